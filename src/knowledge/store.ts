/**
 * The knowledge store: one root of Markdown files, the only writer of documents, and the in-memory search index
 * projected from those files.
 *
 * write(): redact every field → document → atomic file → index → change listeners. The files stay the source of
 * truth: at start every `.md` under the root is indexed, and a watcher keeps the index current with hand edits,
 * deletions and other processes' captures, one file at a time (never a rebuild).
 * @module dsh-knowledge-sync/knowledge/store
 */
import { existsSync, readFileSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs'
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import type { DocKind, FrontMatter, KnowledgeDoc, Outcome, Redaction, Salience, SearchFilter, SearchHit, ToolCall } from '../types.js'
import { DocumentError, formatDocument, isValidId, parseDocument } from './document.js'
import { writeFileAtomic } from './atomic.js'
import { Ledger, LEDGER_DIR } from './ledger.js'
import { documentPath, insideRoot, sessionFolder, sessionShortId, slugify, toRelative } from './paths.js'
import type { Redactor } from './redact.js'
import { SearchIndex, type IndexedMeta, type SearchIndexOptions } from '../recall/search-index.js'
import { LiveSettings } from './settings.js'

/** Bounds for what one document may hold, so a 10 MB tool argument still yields a readable file. */
export const LIMITS = {
  title: 120,
  section: 64 * 1024,
  /** Redaction looks at this much of each tool argument before it is cut for display, so no secret is half-cut. */
  toolArgumentsWindow: 64 * 1024,
  toolArguments: 2000,
  toolResultExcerpt: 1000,
  tools: 50,
  tags: 12,
}

/** Files read per slice of the start-up scan (see `scan`). */
const SCAN_SLICE = 1024
/** Files larger than this are reported, not indexed. */
const MAX_FILE_BYTES = 4 * 1024 * 1024
/** A temporary file older than this was left by a crashed writer. */
const STALE_TMP_MS = 60 * 60 * 1000

/** The longest `close` waits for {@link KnowledgeStore.hold}s: about the harness's process shutdown window. */
export const CLOSE_HOLD_MS = 5000

/** What a writer hands the store; every text field is redacted before it reaches the file. */
export interface DocumentDraft {
  kind: DocKind
  title: string
  cwd: string
  created?: string
  session?: string
  turn?: number
  outcome?: Outcome
  /** Body sections after the `# title` heading, in order. */
  sections: Array<{ heading: string; text: string }>
  /** Rendered as a `## Tools` section, one line per call; names go to front matter `tools`. */
  tools?: ToolCall[]
  /** Keep a bounded excerpt of failed calls' results (capture option). */
  keepFailedResults?: boolean
  tags?: string[]
  salience?: Salience
  /** Extra front-matter keys (distill cost, …). */
  extra?: Record<string, unknown>
  /** Id kind suffix: `t<turn>` for rounds, `n<k>` for notes. Default: from `turn`. */
  suffix?: string
  /** Rewrite this existing document in place (distillation). */
  replaceId?: string
}

export interface WrittenDocument {
  id: string
  path: string
  meta: FrontMatter
  redaction: Redaction
}

/** A redacted, formatted document not yet on disk. */
export interface PreparedDocument extends WrittenDocument {
  body: string
  /** The whole file text. */
  text: string
}

export type StoreChange = { type: 'written' | 'removed'; id: string; path: string; kind?: DocKind; cwd?: string }

export interface StoreLogger {
  info(format: string, ...args: unknown[]): void
  warn(format: string, ...args: unknown[]): void
  debug(format: string, ...args: unknown[]): void
}

export interface KnowledgeStoreOptions {
  root: string
  redactor: Redactor
  logger?: StoreLogger
  /** Watch the root for changes made by others (default true). */
  watch?: boolean
  index?: SearchIndexOptions
}

const silent: StoreLogger = { info() {}, warn() {}, debug() {} }
// C0 controls other than tab and newline carry no knowledge and upset terminals and YAML readers.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g
const clean = (text: string) => text.replace(CONTROL, '').replace(/\r\n?/g, '\n')

function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end-- // never split a surrogate pair
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

/** A tool call's arguments as compact one-line JSON, for the `## Tools` section. */
function compactArguments(raw: string): string {
  try { return JSON.stringify(JSON.parse(raw)) } catch { return JSON.stringify(raw) }
}

export class KnowledgeStore {
  readonly root: string
  readonly index: SearchIndex
  readonly ledger: Ledger
  /** User overrides from the `knowledge` settings namespace, shared by every row. */
  readonly settings = new LiveSettings()
  private redactor: Redactor
  private readonly logger: StoreLogger
  private readonly watchEnabled: boolean
  private watcher?: FSWatcher
  private readonly listeners = new Set<(change: StoreChange) => void>()
  private readonly byPath = new Map<string, string>()
  /** Document id → its file (the inverse of `byPath`), so duplicate checks need no index query. */
  private readonly idPaths = new Map<string, string>()
  private readonly pendingPaths = new Map<string, NodeJS.Timeout>()
  private chain: Promise<unknown> = Promise.resolve()
  private scanned?: Promise<void>
  private closed = false
  /** Files that could not be parsed at the last scan or change, with why. */
  readonly invalid = new Map<string, string>()

  constructor(options: KnowledgeStoreOptions) {
    this.root = resolve(options.root)
    this.redactor = options.redactor
    this.logger = options.logger ?? silent
    this.watchEnabled = options.watch ?? true
    this.index = new SearchIndex(options.index)
    this.ledger = new Ledger(this.root)
  }

  /** Replaces the redactor (live settings). Later writes use it. */
  setRedactor(redactor: Redactor): void { this.redactor = redactor }
  get redactionEnabled(): boolean { return this.redactor.enabled }

  /** Subscribes to documents written or removed (by this process or on disk). */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Indexes every document under the root and starts watching. Idempotent; resolves when the index is complete. */
  start(): Promise<void> {
    this.scanned ??= this.scan().then(() => this.startWatching())
    return this.scanned
  }

  private readonly holds = new Set<Promise<unknown>>()
  private closing?: Promise<void>

  /**
   * Keeps the store open until `done` settles. Why: dsh disposes every row at once on exit (headless exits right
   * after the last turn), so a dependent row's shutdown work (queued rounds, distill calls) would otherwise meet a
   * closed store. `close` waits for holds at most {@link CLOSE_HOLD_MS}.
   */
  hold(done: Promise<unknown>): void {
    this.holds.add(done)
    void done.then(() => this.holds.delete(done), () => this.holds.delete(done))
  }

  /** Waits for holds (bounded) and pending writes, stops watching, frees the index. */
  async close(): Promise<void> {
    if (this.closed || this.closing) return this.closing
    this.closing = (async () => {
      if (this.holds.size) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([Promise.allSettled([...this.holds]), new Promise((resolve) => { timer = setTimeout(resolve, CLOSE_HOLD_MS) })])
        clearTimeout(timer)
      }
      await this.closeNow()
    })()
    return this.closing
  }

  private async closeNow(): Promise<void> {
    this.closed = true
    await this.flush()
    this.watcher?.close()
    for (const timer of this.pendingPaths.values()) clearTimeout(timer)
    this.index.close()
  }

  /** Resolves when every write queued so far has finished. */
  async flush(): Promise<void> {
    await this.chain.catch(() => {})
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) {
      try { listener(change) } catch (error) { this.logger.warn('change listener failed: %s', (error as Error).message) }
    }
  }

  // ---------------------------------------------------------------- reading

  /** Document metadata by id, from the index. */
  get(id: string): IndexedMeta | undefined {
    return isValidId(id) ? this.index.get(id) : undefined
  }

  /** One document in full, read from its file (the source of truth). */
  async read(id: string): Promise<KnowledgeDoc | undefined> {
    const meta = this.get(id)
    if (!meta) return undefined
    const full = insideRoot(this.root, meta.path)
    try {
      const [text, info] = await Promise.all([readFile(full, 'utf8'), stat(full)])
      const parsed = parseDocument(text, meta.path, id, info.mtimeMs)
      return { id: parsed.meta.id, path: meta.path, meta: parsed.meta, body: parsed.body, mtimeMs: info.mtimeMs }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') { this.forget(meta.path); return undefined }
      throw error
    }
  }

  search(query: string, filter: SearchFilter = {}): SearchHit[] {
    return this.index.search(query, filter)
  }

  /**
   * The workspace a session in `cwd` sees (the scoping rule): the nearest ancestor-or-self that is a git root; else
   * the nearest ancestor-or-self where documents were recorded; else `cwd` itself. Visible documents are those
   * recorded there or below. A git root wins so a subdirectory that later gets documents of its own still sees
   * the project's.
   */
  scopeFor(cwd: string): string {
    const start = resolve(cwd)
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, '.git'))) return dir
      if (dirname(dir) === dir) break
    }
    for (let dir = start; ; dir = dirname(dir)) {
      if (this.hasDocumentsAt(dir)) return dir
      if (dirname(dir) === dir) break
    }
    return start
  }

  private hasDocumentsAt(dir: string): boolean {
    return this.index.workspaceCount(dir) > 0
  }

  // ---------------------------------------------------------------- writing

  /** Redacts and writes one document atomically; writes are serialized within this process. */
  write(draft: DocumentDraft): Promise<WrittenDocument> {
    const run = this.chain.then(() => this.writeNow(draft))
    this.chain = run.catch(() => {})
    return run
  }

  private async redactAll(parts: string[]): Promise<{ texts: string[]; redaction: Redaction }> {
    const texts: string[] = []
    const total: Redaction = { text: '', count: 0, families: {} }
    for (const part of parts) {
      const r = await this.redactor.redact(clean(part))
      texts.push(r.text)
      total.count += r.count
      for (const [family, n] of Object.entries(r.families)) total.families[family] = (total.families[family] ?? 0) + n
    }
    return { texts, redaction: total }
  }

  /** Everything `write` does except writing the file: the redacted document as it would be written. `dryRun` also skips the id-prefix claim, so nothing is created on disk. */
  async prepare(draft: DocumentDraft, options: { dryRun?: boolean } = {}): Promise<PreparedDocument> {
    await this.start()
    const tools = (draft.tools ?? []).slice(0, LIMITS.tools)
    const toolArgs = tools.map((t) => t.arguments.slice(0, LIMITS.toolArgumentsWindow))
    const toolResults = tools.map((t) => (draft.keepFailedResults && t.isError && t.result ? t.result.slice(0, LIMITS.toolArgumentsWindow) : ''))
    const sectionTexts = draft.sections.map((s) => cut(s.text, LIMITS.section))
    const tags = (draft.tags ?? []).slice(0, LIMITS.tags)
    const { texts, redaction } = await this.redactAll([
      draft.title, ...sectionTexts, ...toolArgs, ...toolResults, ...tags, ...tools.map((t) => t.name),
    ])
    let i = 0
    const title = cut(texts[i++].replace(/\s+/g, ' ').trim(), LIMITS.title) || 'Untitled'
    const sections = draft.sections.map((s) => ({ heading: s.heading, text: texts[i++] }))
    const args = tools.map(() => texts[i++])
    const results = tools.map(() => texts[i++])
    const redactedTags = tags.map(() => texts[i++])
    const toolNames = tools.map(() => texts[i++].replace(/[^\w.:-]/g, '_').slice(0, 64))

    const mask = /\[REDACTED\]|[^\w-]/g
    const cleanTags = [...new Set(redactedTags.map((t) => t.toLowerCase().replace(mask, '-').replace(/-+/g, '-').replace(/^-|-$/g, '')).filter(Boolean))]
    const session = draft.session ?? 'notes'
    const folder = sessionFolder(session)
    const existing = draft.replaceId ? this.get(draft.replaceId) : undefined
    if (draft.replaceId && !existing) throw new Error(`no document ${draft.replaceId} to replace`)
    const id = existing?.id ?? `${await this.sessionPrefix(session, !options.dryRun)}-${draft.suffix ?? `t${draft.turn ?? 0}`}`
    const slug = slugify(title, draft.kind === 'note' ? 'note' : 'round')
    const relPath = existing?.path ?? documentPath(folder, id, slug)
    insideRoot(this.root, relPath)

    const body = [`# ${title}`, '']
    for (const section of sections) body.push(`## ${section.heading}`, '', section.text.trim() || '_(empty)_', '')
    if (tools.length) {
      body.push('## Tools', '')
      tools.forEach((_, k) => {
        body.push(`- \`${toolNames[k]}\` — ${cut(compactArguments(args[k]), LIMITS.toolArguments)}`)
        if (results[k]) body.push(`  - failed: ${cut(results[k].replace(/\s+/g, ' '), LIMITS.toolResultExcerpt)}`)
      })
      body.push('')
    }

    const meta: FrontMatter = {
      id, title, kind: draft.kind,
      session: draft.session, turn: draft.turn,
      created: draft.created ?? new Date().toISOString(),
      outcome: draft.outcome,
      cwd: draft.cwd,
      tools: [...new Set(toolNames)],
      tags: cleanTags,
      salience: draft.salience,
      redacted: redaction.count,
      ...draft.extra,
    }
    return { id, path: relPath, meta, body: body.join('\n'), text: formatDocument(meta, body.join('\n')), redaction }
  }

  private async writeNow(draft: DocumentDraft): Promise<WrittenDocument> {
    if (this.closed) throw new Error('knowledge store is closed')
    const { id, path: relPath, meta, body, text, redaction } = await this.prepare(draft)
    const full = insideRoot(this.root, relPath)
    await writeFileAtomic(full, text)
    const info = await stat(full)
    this.upsert({ id, path: relPath, meta, body, mtimeMs: info.mtimeMs })
    this.startWatching()
    this.emit({ type: 'written', id, path: relPath, kind: meta.kind, cwd: meta.cwd })
    return { id, path: relPath, meta, redaction }
  }

  private readonly prefixes = new Map<string, string>()
  /** Id prefix → the session whose documents use it, from every indexed document. */
  private readonly prefixOwners = new Map<string, string>()

  private upsert(doc: KnowledgeDoc): void {
    this.index.upsert(doc)
    this.noteIndexed(doc)
  }

  /**
   * The session's id prefix: the first 8 characters of its uuid, lengthened when another session already owns that
   * prefix (a clash), so two sessions never share an id. Ownership is claimed on disk with an exclusive create in
   * `<root>/.knowledge/ids/`, so two processes writing into one root resolve the clash the same way.
   */
  private async sessionPrefix(session: string, claim = true): Promise<string> {
    const known = this.prefixes.get(session)
    if (known) return known
    // A dry run only looks: the prefix a write would claim now, with nothing created on disk.
    if (!claim) {
      for (const length of [8, 12, 16, 24, 32]) {
        const prefix = sessionShortId(session, length)
        const owner = this.prefixOwners.get(prefix)
        if (owner && owner !== session) continue
        const holder = await readFile(join(this.root, LEDGER_DIR, 'ids', prefix), 'utf8').catch(() => undefined)
        if (holder === undefined || holder.trim() === session) return prefix
      }
      throw new Error(`cannot find a free id prefix for session ${session}`)
    }
    const dir = join(this.root, LEDGER_DIR, 'ids')
    try {
      await mkdir(dir, { recursive: true })
    } catch (error) {
      const err = error as NodeJS.ErrnoException
      throw Object.assign(new Error(`cannot write ${dir}: ${err.code ?? ''} ${err.message}`), { code: err.code, path: dir })
    }
    for (const length of [8, 12, 16, 24, 32]) {
      const prefix = sessionShortId(session, length)
      // A document already indexed under this prefix for another session (e.g. written before claims existed).
      const owner = this.prefixOwners.get(prefix)
      if (owner && owner !== session) continue
      const claim = join(dir, prefix)
      try {
        await writeFile(claim, session, { flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        if ((await readFile(claim, 'utf8')).trim() !== session) continue
      }
      this.prefixes.set(session, prefix)
      return prefix
    }
    throw new Error(`cannot find a free id prefix for session ${session}`)
  }

  /** Next free note number in a session: `n1`, `n2`, … */
  nextNoteSuffix(session: string): string {
    for (let k = 1; ; k++) {
      const prefix = this.prefixes.get(session) ?? sessionShortId(session)
      const owner = this.index.get(`${prefix}-n${k}`)
      if (!owner || owner.session !== session) return `n${k}` // a foreign owner means sessionPrefix lengthens the prefix
    }
  }

  // ---------------------------------------------------------------- scanning and watching

  /**
   * Indexes every document under the root. Files are read synchronously in slices of {@link SCAN_SLICE} with a yield
   * between slices: at boot that is several times faster than one async read per file, and the event loop still
   * gets a turn every few milliseconds.
   */
  private async scan(): Promise<void> {
    if (!existsSync(this.root)) return
    const started = Date.now()
    const files: string[] = []
    const now = Date.now()
    const walk = async (dir: string, depth: number) => {
      if (depth > 8) return
      let entries
      try { entries = await readdir(dir, { withFileTypes: true }) } catch { return }
      for (const entry of entries) {
        const full = join(dir, entry.name)
        if (entry.name.startsWith('.')) {
          // A temporary file left by a writer that crashed mid-write: swept once it is clearly abandoned.
          if (entry.isFile() && entry.name.endsWith('.tmp')) {
            try { if (now - statSync(full).mtimeMs > STALE_TMP_MS) rmSync(full, { force: true }) } catch { /* raced */ }
          }
          continue
        }
        if (entry.name === 'node_modules') continue
        if (entry.isDirectory()) await walk(full, depth + 1)
        else if (entry.isFile() && entry.name.endsWith('.md')) files.push(full)
      }
    }
    await walk(this.root, 0)
    // Oldest first, so the index's insertion order follows time as it does for documents written later.
    const mtimes = new Map(files.map((f) => { try { return [f, statSync(f).mtimeMs] } catch { return [f, 0] } }))
    files.sort((a, b) => mtimes.get(a)! - mtimes.get(b)! || (a < b ? -1 : 1))
    const release = this.index.holdMerges()
    try {
      await this.indexFiles(files)
    } finally {
      release()
    }
    if (this.invalid.size) this.logger.warn('%d file(s) under %s could not be read; first: %s', this.invalid.size, this.root, [...this.invalid.values()][0])
    this.logger.debug('indexed %d document(s) under %s in %d ms', this.index.size, this.root, Date.now() - started)
  }

  private async indexFiles(files: string[]): Promise<void> {
    for (let k = 0; k < files.length && !this.closed; k += SCAN_SLICE) {
      const batch: KnowledgeDoc[] = []
      const claimed = new Map<string, string>()
      for (const full of files.slice(k, k + SCAN_SLICE)) {
        const doc = this.readDocument(full)
        if (doc && this.admit(doc, claimed)) batch.push(doc)
      }
      this.index.upsertMany(batch)
      for (const doc of batch) this.noteIndexed(doc)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Reads and parses one file; undefined (and the reason in {@link invalid}) when it is not a valid document. */
  private readDocument(full: string): KnowledgeDoc | undefined {
    const rel = toRelative(this.root, full)
    let text: string, mtimeMs: number
    try {
      const info = statSync(full)
      if (!info.isFile()) return undefined
      if (info.size > MAX_FILE_BYTES) throw new DocumentError(rel, `too large to index (${info.size} bytes; the limit is 4 MiB)`)
      mtimeMs = info.mtimeMs
      text = readFileSync(full, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') { this.forget(rel); return undefined }
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
    try {
      const fallbackId = basename(full, '.md').replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[-.]+/, '') || 'doc'
      const { meta, body } = parseDocument(text, rel, fallbackId, mtimeMs)
      return { id: meta.id, path: rel, meta, body, mtimeMs }
    } catch (error) {
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
  }

  /**
   * Whether a parsed file may take its id. The file this product wrote (`<id>-<slug>.md`) wins over any other file
   * claiming the same id; otherwise the first one indexed keeps it. `claimed` holds ids taken earlier in the same
   * scan slice (not in the index yet).
   */
  private admit(doc: KnowledgeDoc, claimed?: Map<string, string>): boolean {
    const rel = doc.path
    const holderPath = claimed?.get(doc.id) ?? this.idPaths.get(doc.id)
    if (holderPath && holderPath !== rel && existsSync(insideRoot(this.root, holderPath))) {
      const canonical = (p: string) => basename(p).startsWith(`${doc.id}-`)
      if (!canonical(rel) || canonical(holderPath)) {
        this.invalid.set(rel, `${rel}: duplicate id ${doc.id} (already used by ${holderPath})`)
        return false
      }
      this.invalid.set(holderPath, `${holderPath}: duplicate id ${doc.id} (already used by ${rel})`)
      this.byPath.delete(holderPath)
    }
    const known = this.byPath.get(rel)
    if (known && known !== doc.id) this.index.remove(known)
    claimed?.set(doc.id, rel)
    this.invalid.delete(rel)
    return true
  }

  /** Bookkeeping after a document entered the index. */
  private noteIndexed(doc: KnowledgeDoc): void {
    this.byPath.set(doc.path, doc.id)
    this.idPaths.set(doc.id, doc.path)
    const session = doc.meta.session
    if (typeof session === 'string' && /^[a-z0-9]+-[tn]\d+$/.test(doc.id)) this.prefixOwners.set(doc.id.slice(0, doc.id.indexOf('-')), session)
  }

  /** Re-reads one file after a change on disk (the watcher). */
  private loadFile(full: string): void {
    if (this.closed) return
    const rel = toRelative(this.root, full)
    const known = this.byPath.get(rel)
    let mtimeMs: number | undefined
    try { mtimeMs = statSync(full).mtimeMs } catch { /* gone: readDocument forgets it */ }
    if (known && mtimeMs !== undefined && this.index.get(known)?.mtimeMs === mtimeMs) return
    const doc = this.readDocument(full)
    if (!doc) {
      const reason = this.invalid.get(rel)
      if (reason) this.logger.warn('%s', reason)
      return
    }
    if (!this.admit(doc)) { this.logger.warn('%s', this.invalid.get(rel)); return }
    this.upsert(doc)
    this.emit({ type: 'written', id: doc.id, path: rel, kind: doc.meta.kind, cwd: doc.meta.cwd })
  }

  private forget(rel: string): void {
    if (this.closed) return
    const id = this.byPath.get(rel)
    if (!id) return
    this.byPath.delete(rel)
    if (this.idPaths.get(id) === rel) {
      this.idPaths.delete(id)
      this.index.remove(id)
      this.emit({ type: 'removed', id, path: rel })
    }
  }

  /** Deletes a document's file (used by tests and future lint); the watcher-independent index is updated at once. */
  async remove(id: string): Promise<boolean> {
    const meta = this.get(id)
    if (!meta) return false
    await rm(insideRoot(this.root, meta.path), { force: true })
    this.forget(meta.path)
    return true
  }

  private startWatching(): void {
    if (!this.watchEnabled || this.closed || this.watcher || !existsSync(this.root)) return
    try {
      this.watcher = watch(this.root, { recursive: true, persistent: false }, (_event, name) => {
        if (!name) return
        const rel = name.toString().split(sep).join('/')
        if (rel.split('/').some((part) => part.startsWith('.')) || !rel.endsWith('.md')) return
        // Trigger: a file changed on disk. Why debounce: editors write in several steps. Outcome: one re-parse.
        clearTimeout(this.pendingPaths.get(rel))
        this.pendingPaths.set(rel, setTimeout(() => {
          this.pendingPaths.delete(rel)
          this.loadFile(join(this.root, rel))
        }, 30))
      })
      this.watcher.on('error', (error) => this.logger.warn('watching %s failed: %s', this.root, error.message))
    } catch (error) {
      this.logger.warn('cannot watch %s: %s (hand edits are picked up at the next start)', this.root, (error as Error).message)
    }
  }

}
