/**
 * The knowledge store: one root of Markdown files, the only writer of documents, and the one query API over the
 * search index projected from those files. A thin composition: drafts ({@link redactDraft}, {@link renderDraft}),
 * files (scan and watch, {@link DocumentFiles}), ids ({@link IdClaims}), the index ({@link SearchIndex}, private),
 * the ledger and the live settings.
 *
 * write(): redact every field → document → index → atomic file → change listeners (./commit.ts). The files stay the
 * source of truth: every `.md` under the root is indexed at start, and a watcher follows edits, deletions and captures.
 * @module dsh-knowledge-sync/knowledge/store
 */
import { join, resolve } from 'node:path'
import type { DocStatus, FrontMatter, KnowledgeDoc, Redaction, SearchFilter, SearchHit } from '../types.js'
import type { Redactor } from '../redact/redactor.js'
import { type FieldInput, type RedactedFields, redactFields, redactLine } from '../redact/fields.js'
import { isVisible, workspaceOf } from '../search/scope.js'
import type { Facets, IndexedMeta, ListSort, SearchIndex, SearchIndexOptions } from '../search/search-index.js'
import { CACHE_DIR, CACHE_FILE } from './index-cache/index-cache.js'
import { type CommitHost, commitDocument, PendingWrites } from './writes/commit.js'
import { formatDocument, isValidId } from './documents/document.js'
import { addSupersedes, type EditHost, setStatus, splice, withdrawCreated } from './writes/edits.js'
import { parseDocumentId } from './query.js'
import { type DocumentDraft, redactDraft, renderDraft } from './documents/draft.js'
import type { DocumentFiles } from './view/files.js'
import { Holds } from './holds.js'
import { IdClaims, roundFiles, withRoundLock } from './ids/id-claims.js'
import { StoreIndex } from './view/store-index.js'
import type { FreshnessView } from './view/freshness.js'
import type { KnowledgeStoreOptions, PreparedDocument, StoreChange, StoreLogger, WrittenDocument } from './store-types.js'
import { Ledger } from './logs/ledger.js'
import { documentPath, insideRoot, sessionFolder, slugify } from './documents/paths.js'
import { Revisions } from './logs/revisions.js'
import { LiveSettings } from './settings/settings.js'
import { carryStatus, idsToPaths, type RelationGraph, successorsFirst, type StatusChange } from './relations/relations.js'
export { type DocumentDraft, LIMITS } from './documents/draft.js'
export type { FieldInput, RedactedFields } from '../redact/fields.js'
export type { Facets, IndexedMeta, ListSort } from '../search/search-index.js'
export type { KnowledgeStoreOptions, PreparedDocument, StoreChange, StoreLogger, WrittenDocument } from './store-types.js'
/** The longest `close` waits for {@link KnowledgeStore.hold}s: about the harness's process shutdown window. */
export const CLOSE_HOLD_MS = 5000

export class KnowledgeStore {
  readonly root: string
  readonly ledger: Ledger
  readonly settings = new LiveSettings() // user overrides from the `knowledge` settings namespace, shared by every row
  private readonly indexed: StoreIndex // the index (memory, or the persisted cache), its files, the relation graph
  private readonly ids: IdClaims
  private readonly revisions: Revisions // `v:N`, shared with every process on the root through .knowledge/revisions.log
  private redactor: Redactor
  private readonly logger: StoreLogger
  private readonly watchEnabled: boolean
  private readonly cacheEnabled: boolean
  private readonly reading: { readOnly: boolean; trustWatcher: boolean }
  private readonly listeners = new Set<(change: StoreChange) => void>()
  private readonly holds = new Holds()
  private readonly pending = new PendingWrites()
  private readonly commitHost: CommitHost
  private chain: Promise<unknown> = Promise.resolve()
  private scanned?: Promise<void>
  private closing?: Promise<void>
  private closed = false
  private readonly readers = new Set<() => void>() // ends readers of the index file in other threads on close

  constructor(private readonly options: KnowledgeStoreOptions) {
    this.root = resolve(options.root)
    this.redactor = options.redactor
    this.logger = options.logger ?? { info() {}, warn() {}, debug() {} }
    this.watchEnabled = options.watch ?? true
    this.cacheEnabled = options.cache ?? true
    this.reading = { readOnly: options.readOnly ?? false, trustWatcher: options.trustWatcher ?? false }
    this.ledger = new Ledger(this.root)
    this.ids = new IdClaims(this.root, () => this.indexed.locations())
    this.revisions = new Revisions(this.root, this.logger)
    this.indexed = new StoreIndex({ root: this.root, logger: this.logger, indexOptions: options.index, ids: this.ids, revisions: this.revisions, emit: (change) => this.emit(change) })
    this.commitHost = {
      root: this.root,
      indexed: this.indexed,
      revisions: this.revisions,
      pending: this.pending,
      landed: (id, path, meta) => {
        if (this.watchEnabled) this.files.watch()
        this.emit({ type: 'written', id, path, kind: meta.kind, cwd: meta.cwd })
      },
    }
  }

  private get index(): SearchIndex {
    return this.indexed.index
  }
  private get files(): DocumentFiles {
    return this.indexed.files
  }

  /** Redacts texts that leave the process not as a document (a distill request) as a document's fields are (windowed, masked, cut). */
  redactFields(fields: FieldInput[]): Promise<RedactedFields> {
    return redactFields(this.redactor, fields)
  }

  /** Replaces the redactor (live settings). Later writes use it. */
  setRedactor(redactor: Redactor): void {
    this.redactor = redactor
  }
  get redactionEnabled(): boolean {
    return this.redactor.enabled
  }
  /** The text that replaces a masked value ('' when redaction is off). */
  get redactionMask(): string {
    return this.redactor.enabled ? this.redactor.mask : ''
  }

  /** Files that could not be read as documents, with why. */
  get invalid(): ReadonlyMap<string, string> {
    return this.files.invalid
  }

  /** Number of indexed documents. */
  get size(): number {
    return this.index.size
  }

  /** `checked` once the start's check of the files is over (maybe behind a watching start), `walkedMs` what the start waited for it, `vouching` while this store's stamp lets others skip it (see FreshnessView). */
  get freshness(): FreshnessView {
    return this.indexed.freshness
  }

  /** Subscribes to documents written or removed (by this process or on disk). */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change)
      } catch (error) {
        this.logger.warn('change listener failed: %s', (error as Error).message)
      }
    }
  }

  // ---------------------------------------------------------------- lifecycle
  /** Indexes every document under the root and watches; with the persisted index, only files changed since are read. Idempotent. */
  start(): Promise<void> {
    this.scanned ??= (async () => {
      await this.indexed.start({ cache: this.cacheEnabled, ...this.reading, closed: () => this.closed, watch: this.watchEnabled })
      if (!this.watchEnabled || this.closed) return
      this.files.watch()
      this.indexed.warmUp(() => void this.redactor.redact('warm-up:no-secret-here').catch(() => {})) // long-lived: load the rest in the background
    })()
    return this.scanned
  }

  /**
   * Keeps the store open until `done` settles (at most {@link CLOSE_HOLD_MS} on close). Why: dsh disposes every row at
   * once on exit (headless right after the last turn); a row's shutdown work (queued rounds, distill calls) needs it.
   */
  hold(done: Promise<unknown>): void {
    this.holds.add(done)
  }

  /** Waits for holds (bounded) and pending writes, stops watching, frees the index. */
  async close(): Promise<void> {
    if (this.closed || this.closing) return this.closing
    this.closing = (async () => {
      if (this.holds.size) await this.holds.settle(CLOSE_HOLD_MS)
      this.closed = true
      for (const end of this.readers) end()
      await this.flush()
      await this.indexed.close()
    })()
    return this.closing
  }

  /** Resolves when every write queued so far has finished. */
  async flush(): Promise<void> {
    await this.chain.catch(() => {})
  }

  /** The index file, this process's writes committed, for readers in other threads; undefined in memory. `end` runs on close. */
  indexFile(end: () => void): { file: string; options?: SearchIndexOptions; release(): void } | undefined {
    if (this.closed || !this.index.persistent) return undefined
    this.index.flush()
    this.readers.add(end)
    return { file: join(this.root, CACHE_DIR, CACHE_FILE), options: this.options.index, release: () => this.readers.delete(end) }
  }

  // ---------------------------------------------------------------- the query API
  /** Document metadata by id, from the index. */
  get(id: string): IndexedMeta | undefined {
    return isValidId(id) ? this.index.get(id) : undefined
  }

  /** The newest revision (`v:N`) of a document, another process's change included (see {@link Revisions}). */
  versionOf(id: string): number | undefined {
    return this.revisions.current(id)
  }

  /** One document in full from its file, with the index's bounds (no link, ≤ 4 MiB); a file that fails leaves the index, named. */
  async read(id: string): Promise<KnowledgeDoc | undefined> {
    // A document this process is writing is searchable before its file is on disk: wait for the file.
    await this.pending.settled(id)
    const meta = this.get(id)
    return meta ? this.indexed.read(id, meta.path) : undefined
  }

  /** The whole text of a visible document's file, read with the same checks as {@link read} (the CLI prints it). */
  async readText(rawId: unknown, scope: string | undefined): Promise<{ doc: KnowledgeDoc; text: string }> {
    const doc = await this.readVisible(rawId, scope)
    return { doc, text: this.files.readText(doc.path, insideRoot(this.root, doc.path)).text }
  }

  /** Reads `id` if it names a document visible from `scope`; throws an Error with a clear message otherwise. */
  async readVisible(rawId: unknown, scope: string | undefined): Promise<KnowledgeDoc> {
    const id = parseDocumentId(rawId)
    const meta = this.get(id)
    if (!meta || !isVisible(meta.cwd, scope)) throw new Error(`no document ${id}${scope ? ` is visible in ${scope}` : ''}; use knowledge_search to find ids`)
    const doc = await this.read(id)
    if (!doc) throw new Error(`document ${id} was removed from disk`)
    return doc
  }

  /** BM25 search over the documents the filter selects; a superseded hit never ranks above its successor. */
  search(query: string, filter: SearchFilter = {}): SearchHit[] {
    const hits = successorsFirst(this.index.search(query, filter))
    return filter.bare ? hits : this.revisions.withVersions(hits)
  }

  /** A page of document metadata, newest first (or by title). */
  list(filter: SearchFilter & { sort?: ListSort; after?: string } = {}): { total: number; items: Array<IndexedMeta & { version?: number }> } {
    const page = this.index.list(filter)
    return { total: page.total, items: this.revisions.withVersions(page.items) }
  }

  /** How many documents the filter selects. */
  count(filter: SearchFilter = {}): number {
    return this.index.count(filter)
  }

  /** Facet counts (kinds, tags, tools, workspaces) over the documents the filter selects. */
  facets(filter: SearchFilter = {}): Facets {
    return this.index.facets(filter)
  }

  /** The indexed body of a document (what search sees), without reading the file. */
  text(id: string): string | undefined {
    return isValidId(id) ? this.index.body(id) : undefined
  }

  /** Ids of the documents that link to `id` (computed from every document's links, never written). */
  linkedFrom(id: string): string[] {
    return this.indexed.graph.linkedFrom(id)
  }

  /** Ids of the documents `id` replaces (their `superseded_by`, or its own `supersedes`). */
  supersededOnes(id: string): string[] {
    return this.indexed.graph.supersededOnes(id)
  }

  /** The id of the document at a root-relative path. */
  idOfPath(path: string): string | undefined {
    return this.indexed.graph.idOfPath(path)
  }

  /** The relation graph, read-only (for the check). */
  get relations(): Pick<RelationGraph, 'entries' | 'get' | 'resolve'> {
    return this.indexed.graph
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
    // A round (not a rewrite by id) is written under its cross-process lock, so a re-capture always finds the file.
    return this.queued(() => withRoundLock(this.root, draft.replaceId || draft.kind === 'note' ? undefined : draft, () => this.writeNow(draft)))
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
    // A round captured again replaces its document in place (see roundFiles); extra copies are removed after the write.
    const again = existing ? [] : await roundFiles(this.root, sessionFolder(session), id)
    const relPath = existing?.path ?? again[0] ?? documentPath(sessionFolder(session), id, slug)
    insideRoot(this.root, relPath)
    let rendered = renderDraft(draft, redacted, id)
    // A rewrite keeps the status of the document it replaces (a late distillation must not un-retire it).
    const previous = existing ? await this.read(existing.id) : undefined
    if (previous) rendered = carryStatus(previous, rendered.meta, rendered.body)
    const { meta } = rendered
    // Links by id become paths relative to this file, so it reads well in an editor and on a git forge.
    const body = draft.kind === 'note' || draft.kind === 'preference' ? idsToPaths(rendered.body, relPath, (to) => this.get(to)?.path) : rendered.body
    return { id, path: relPath, meta, body, text: formatDocument(meta, body), redaction: redacted.redaction, ...(again.length ? { replaced: again } : {}) }
  }

  /** Masks `text` the way every write is masked (so a caller can compare what would be written with what is there). */
  redact(text: string): Promise<Redaction> {
    return this.redactor.redact(text)
  }

  /**
   * Replaces spans of one document's file text (upstream sections): each inserted text is redacted, every other byte
   * stays as it is. `expected` is the text the caller read; a file changed since is refused. Atomic, indexed, ledgered.
   */
  splice(relPath: string, expected: string, edits: Array<{ start: number; end: number; text: string }>, source = ''): Promise<WrittenDocument> {
    return this.queued(() => splice(this.editHost(), relPath, expected, edits, source))
  }

  /** One line of text as recorded outside a document (the ledger's title of a dropped round): redacted, then cut to `max`. */
  redactLine(text: string, max = 80): Promise<string> {
    return redactLine(this.redactor, text, max)
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
    const { id, path: relPath, meta, body, text, redaction, replaced } = await this.prepare(draft)
    const version = await this.commit(id, relPath, meta, body, text, replaced)
    return { id, path: relPath, meta, redaction, version }
  }

  /** The one write (see ./commit.ts): index, file, stamp and revision, change listeners. */
  private commit(id: string, relPath: string, meta: FrontMatter, body: string, text: string, replaced?: string[]): Promise<number> {
    return commitDocument(this.commitHost, { id, path: relPath, meta, body, text, replaced })
  }

  /**
   * Changes a document's status: front matter (`status`, `superseded_by`, `retired`) and a one-line notice under its
   * title; the round's own sections are never rewritten. The reason is redacted; the change is recorded in the
   * ledger with who asked (`actor`: tool, cli, page). Serialized with every other write.
   */
  setStatus(id: string, change: StatusChange, actor: string): Promise<{ id: string; status: DocStatus }> {
    return this.queued(() => setStatus(this.editHost(), id, change, actor))
  }

  /** Adds `oldIds` to a document's `supersedes` list (front matter only; the body stays as it is). */
  addSupersedes(id: string, oldIds: string[]): Promise<void> {
    return this.queued(() => addSupersedes(this.editHost(), id, oldIds))
  }

  /** Runs a write of existing or new files (the wiki's pages) with the edit host, serialized with every other write. */
  edit<T>(fn: (host: EditHost) => Promise<T>): Promise<T> {
    return this.queued(() => fn(this.editHost()))
  }

  /** Runs `fn` after every write queued so far (writes are serialized within this process). */
  private queued<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn)
    this.chain = run.catch(() => {})
    return run
  }

  /** What the edits of an existing document ({@link setStatus}, {@link addSupersedes}, {@link splice}) use of the store. */
  private editHost(): EditHost {
    return {
      root: this.root,
      ledger: this.ledger,
      redactor: this.redactor,
      closed: () => this.closed,
      start: () => this.start(),
      read: (id) => this.read(id),
      firstSeen: (id) => this.revisions.firstSeen(id),
      versionOf: (id) => this.revisions.current(id),
      commit: (id, relPath, meta, body, text) => this.commit(id, relPath, meta, body, text),
      withdraw: (relPath) => withdrawCreated(this.root, relPath, this.files),
      landed: (doc) => {
        this.indexed.relate(doc)
        // Every path into the index records the revision of the text it indexes (one source for list, read, API).
        this.revisions.index([doc])
        this.index.upsert(doc)
        this.files.noteWritten(doc)
        this.emit({ type: 'written', id: doc.id, path: doc.path, kind: doc.meta.kind, cwd: doc.meta.cwd })
      },
    }
  }
}
