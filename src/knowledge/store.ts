/**
 * The knowledge store: one root of Markdown files, the only writer of documents, and the one query API over the
 * search index projected from those files. A thin composition: drafts ({@link redactDraft}, {@link renderDraft}),
 * files (scan and watch, {@link DocumentFiles}), ids ({@link IdClaims}), the index ({@link SearchIndex}, private),
 * the ledger and the live settings.
 *
 * write(): redact every field → document → atomic file → index → change listeners. The files stay the source of
 * truth: at start every `.md` under the root is indexed, and a watcher keeps the index current with hand edits,
 * deletions and other processes' captures.
 * @module dsh-knowledge-sync/knowledge/store
 */
import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { FrontMatter, KnowledgeDoc, Redaction, SearchFilter, SearchHit } from '../types.js'
import type { Redactor } from '../redact/redactor.js'
import { isVisible, workspaceOf } from '../search/scope.js'
import { SearchIndex, type Facets, type IndexedMeta, type ListSort, type SearchIndexOptions } from '../search/search-index.js'
import { writeFileAtomic } from './atomic.js'
import { formatDocument, isValidId, parseDocument } from './document.js'
import { type DocumentDraft, redactDraft, renderDraft } from './draft.js'
import { DocumentFiles } from './files.js'
import { IdClaims } from './id-claims.js'
import { openIndexCache, stampOf } from './index-cache.js'
import { Ledger } from './ledger.js'
import { documentPath, insideRoot, sessionFolder, slugify } from './paths.js'
import { LiveSettings } from './settings.js'

export type { DocumentDraft } from './draft.js'
export { LIMITS } from './draft.js'
export type { Facets, IndexedMeta, ListSort } from '../search/search-index.js'

/** The longest `close` waits for {@link KnowledgeStore.hold}s: about the harness's process shutdown window. */
export const CLOSE_HOLD_MS = 5000

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

export type StoreChange = { type: 'written' | 'removed'; id: string; path: string; kind?: string; cwd?: string }

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
  /** Keep the index in `<root>/.knowledge/cache/` between runs (default true; see index-cache.ts). */
  cache?: boolean
  /**
   * This process only reads (CLI search, list, stats, read): while another process owns the index cache, read that
   * file instead of indexing every document in memory, as long as no document changed since it was written.
   */
  readOnly?: boolean
}

const silent: StoreLogger = { info() {}, warn() {}, debug() {} }

export class KnowledgeStore {
  readonly root: string
  readonly ledger: Ledger
  /** User overrides from the `knowledge` settings namespace, shared by every row. */
  readonly settings = new LiveSettings()
  /** In memory until {@link start} opens the persisted one; created on first use (SQLite loads only then). */
  private index_?: SearchIndex
  private releaseCache = (): void => {}
  private files: DocumentFiles
  private readonly ids: IdClaims
  private redactor: Redactor
  private readonly logger: StoreLogger
  private readonly watchEnabled: boolean
  private readonly cacheEnabled: boolean
  private readonly readOnly: boolean
  private readonly indexOptions?: SearchIndexOptions
  private readonly listeners = new Set<(change: StoreChange) => void>()
  private readonly holds = new Set<Promise<unknown>>()
  private chain: Promise<unknown> = Promise.resolve()
  private scanned?: Promise<void>
  private closing?: Promise<void>
  private closed = false

  constructor(options: KnowledgeStoreOptions) {
    this.root = resolve(options.root)
    this.redactor = options.redactor
    this.logger = options.logger ?? silent
    this.watchEnabled = options.watch ?? true
    this.cacheEnabled = options.cache ?? true
    this.readOnly = options.readOnly ?? false
    this.indexOptions = options.index
    this.ledger = new Ledger(this.root)
    this.ids = new IdClaims(this.root)
    this.files = this.openFiles()
  }

  /** The document files, feeding this store's index. */
  private openFiles(): DocumentFiles {
    return new DocumentFiles(this.root, {
      upsertMany: (docs) => { this.index.upsertMany(docs); for (const doc of docs) this.ids.noteIndexed(doc.id, doc.meta.session) },
      upsert: (doc) => { this.index.upsert(doc); this.ids.noteIndexed(doc.id, doc.meta.session) },
      remove: (id) => { this.index.remove(id) },
      indexedMtime: (id) => this.index.get(id)?.mtimeMs,
      holdMerges: () => this.index.holdMerges(),
      known: (id, session) => this.ids.noteIndexed(id, session),
      restamp: (doc) => { if (doc.stamp) this.index.restamp(doc.id, doc.mtimeMs, doc.stamp); this.ids.noteIndexed(doc.id, doc.meta.session) },
      written: (doc) => this.emit({ type: 'written', id: doc.id, path: doc.path, kind: doc.meta.kind, cwd: doc.meta.cwd }),
      removed: (id, path) => this.emit({ type: 'removed', id, path }),
    }, this.logger)
  }

  private get index(): SearchIndex {
    this.index_ ??= new SearchIndex(this.indexOptions)
    return this.index_
  }

  /** Replaces the redactor (live settings). Later writes use it. */
  setRedactor(redactor: Redactor): void { this.redactor = redactor }
  get redactionEnabled(): boolean { return this.redactor.enabled }

  /** Files that could not be read as documents, with why. */
  get invalid(): ReadonlyMap<string, string> { return this.files.invalid }

  /** Number of indexed documents. */
  get size(): number { return this.index.size }

  /** Subscribes to documents written or removed (by this process or on disk). */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) {
      try { listener(change) } catch (error) { this.logger.warn('change listener failed: %s', (error as Error).message) }
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Indexes every document under the root and starts watching. With the persisted index, only files that changed
   * since it was saved are read. Idempotent; resolves when the index is complete.
   */
  start(): Promise<void> {
    this.scanned ??= (async () => {
      const started = Date.now()
      let mode: string = 'memory'
      if (this.cacheEnabled && !this.closed) {
        const opened = openIndexCache(this.root, this.indexOptions, this.logger, { readOnly: this.readOnly })
        mode = opened.mode
        if (opened.mode !== 'memory') {
          this.index_?.close()
          this.index_ = opened.index
          this.releaseCache = opened.release
        }
      }
      if (mode === 'shared') {
        // Another process's file, read-only: good as long as the reconcile has nothing to write. A change (the
        // owner is not watching, or a file changed this instant) means indexing in memory after all.
        try {
          await this.files.scan(this.index.manifest())
          const { read, dropped } = this.files.scanned
          if (read + dropped > 0) throw new Error('changed')
        } catch {
          this.index_?.close()
          this.index_ = undefined
          this.files.close()
          this.files = this.openFiles()
          mode = 'memory'
          await this.files.scan()
        }
      } else await this.files.scan(mode === 'reused' ? this.index.manifest() : undefined)
      if (mode === 'rebuild' && !this.closed) this.index.setState('complete')
      const { kept, read, restamped, dropped } = this.files.scanned
      this.logger.debug('indexed %d document(s) under %s in %d ms (index %s: kept %d, read %d, restamped %d, dropped %d)',
        this.index.size, this.root, Date.now() - started, mode, kept, read, restamped, dropped)
      if (this.watchEnabled) this.files.watch()
    })()
    return this.scanned
  }

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
      this.closed = true
      await this.flush()
      this.files.close()
      this.index_?.close()
      this.releaseCache()
    })()
    return this.closing
  }

  /** Resolves when every write queued so far has finished. */
  async flush(): Promise<void> {
    await this.chain.catch(() => {})
  }

  // ---------------------------------------------------------------- the query API

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
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') { this.files.forget(meta.path); return undefined }
      throw error
    }
  }

  /** Reads `id` if it names a document visible from `scope`; throws an Error with a clear message otherwise. */
  async readVisible(rawId: unknown, scope: string | undefined): Promise<KnowledgeDoc> {
    if (typeof rawId !== 'string' || !rawId.trim()) throw new Error('"id" must be a document id from knowledge_search, like "abc12345-t3"')
    const id = rawId.trim()
    if (!isValidId(id)) throw new Error(`invalid id ${JSON.stringify(rawId.trim().slice(0, 80))}: ids are letters, digits, "-" and "_" (no paths)`)
    const meta = this.get(id)
    if (!meta || !isVisible(meta.cwd, scope)) throw new Error(`no document ${id}${scope ? ` is visible in ${scope}` : ''}; use knowledge_search to find ids`)
    const doc = await this.read(id)
    if (!doc) throw new Error(`document ${id} was removed from disk`)
    return doc
  }

  /** BM25 search over the documents the filter selects. */
  search(query: string, filter: SearchFilter = {}): SearchHit[] {
    return this.index.search(query, filter)
  }

  /** A page of document metadata, newest first (or by title). */
  list(filter: SearchFilter & { sort?: ListSort } = {}): { total: number; items: IndexedMeta[] } {
    return this.index.list(filter)
  }

  /** How many documents the filter selects. */
  count(filter: SearchFilter = {}): number {
    return this.index.count(filter)
  }

  /** Facet counts (kinds, tags, tools, workspaces) over the documents the filter selects. */
  facets(filter: SearchFilter = {}): Facets {
    return this.index.facets(filter)
  }

  /** The workspace a session in `cwd` sees (see {@link workspaceOf}). */
  scopeFor(cwd: string): string {
    return workspaceOf(cwd, (dir) => this.index.workspaceCount(dir) > 0)
  }

  /** The visible workspace for a caller in `cwd`; undefined = everything under the root. */
  visibleScope(cwd: string | undefined, sameWorkspaceOnly: boolean): string | undefined {
    if (!sameWorkspaceOnly || !cwd) return undefined
    return this.scopeFor(cwd)
  }

  // ---------------------------------------------------------------- writing

  /** Redacts and writes one document atomically; writes are serialized within this process. */
  write(draft: DocumentDraft): Promise<WrittenDocument> {
    const run = this.chain.then(() => this.writeNow(draft))
    this.chain = run.catch(() => {})
    return run
  }

  /** Everything `write` does except writing the file: the redacted document as it would be written. `dryRun` also skips the id-prefix claim, so nothing is created on disk. */
  async prepare(draft: DocumentDraft, options: { dryRun?: boolean } = {}): Promise<PreparedDocument> {
    // A dry run needs the index only to find the document it would replace.
    if (!options.dryRun || draft.replaceId) await this.start()
    const redacted = await redactDraft(draft, this.redactor)
    const session = draft.session ?? 'notes'
    const existing = draft.replaceId ? this.get(draft.replaceId) : undefined
    if (draft.replaceId && !existing) throw new Error(`no document ${draft.replaceId} to replace`)
    const id = existing?.id ?? `${await this.ids.prefixFor(session, !options.dryRun)}-${draft.suffix ?? `t${draft.turn ?? 0}`}`
    const slug = slugify(redacted.title, draft.kind === 'note' ? 'note' : 'round')
    const relPath = existing?.path ?? documentPath(sessionFolder(session), id, slug)
    insideRoot(this.root, relPath)
    const { meta, body } = renderDraft(draft, redacted, id)
    return { id, path: relPath, meta, body, text: formatDocument(meta, body), redaction: redacted.redaction }
  }

  /** Next free note number in a session: `n1`, `n2`, … */
  nextNoteSuffix(session: string): string {
    return this.ids.nextNoteSuffix(session, (id) => {
      const meta = this.index.get(id)
      return meta ? (meta.session ?? null) : undefined
    })
  }

  private async writeNow(draft: DocumentDraft): Promise<WrittenDocument> {
    if (this.closed) throw new Error('knowledge store is closed')
    const { id, path: relPath, meta, body, text, redaction } = await this.prepare(draft)
    const full = insideRoot(this.root, relPath)
    await writeFileAtomic(full, text)
    const info = await stat(full)
    const doc = { id, path: relPath, meta, body, mtimeMs: info.mtimeMs, stamp: stampOf(info, text) }
    this.index.upsert(doc)
    this.ids.noteIndexed(id, meta.session)
    this.files.noteWritten(doc)
    if (this.watchEnabled) this.files.watch()
    this.emit({ type: 'written', id, path: relPath, kind: meta.kind, cwd: meta.cwd })
    return { id, path: relPath, meta, redaction }
  }
}
