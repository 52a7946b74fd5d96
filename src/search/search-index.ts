/**
 * The in-process search index: a projection of the knowledge files into an SQLite database (Node's built-in
 * `node:sqlite`, no native addon) with an FTS5 table for BM25 ranking and plain tables for the metadata that filters,
 * lists and facets read ({@link SCHEMA}). This file owns the lifecycle (the write transaction, background segment
 * merging) and the writes; the query planner, the passes (expansion, characters, context, company, meaning), filters and listings live beside it.
 *
 * Why this shape:
 * - FTS5 never sees user text. {@link indexStreams} turns titles, tags and bodies into token streams (words,
 *   identifier parts, CJK bigrams; identifier wholes in columns of their own, weighted double) and the MATCH
 *   expression is assembled only from our own quoted tokens, so no query can be a syntax error (`AND`, `NEAR`, `"`,
 *   `*`, `^`, `:`, NUL, 10 KB pastes…). An upsert is a delete plus an insert: O(one document).
 * - bm25 costs about a microsecond per matching row and phrase, so large queries are planned (rarest terms first; see {@link QueryPlanner}) to keep every search within a bounded number of scored rows.
 * @module dsh-knowledge-sync/search/search-index
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { FileStamp, KnowledgeDoc, SearchFilter, SearchHit } from '../types.js'
import type { Facets } from '../wire.js'
import { queryTerms } from './tokenize.js'
import { toHit } from './hits.js'
import { CREATED_COLUMN, CWD_COLUMN, type DocWrites, deleteDocRows, docRow, docWrites, fillRevisions, insertTokens, insertValues, oldestFirst, pathIndex } from './doc-row.js'
import { countDocs, FacetCache, facetCounts, listDocs, workspaceCount } from './facets.js'
import { tagKey, Vocabulary, whereOf } from './filter.js'
import { type Plan, QueryPlanner, RANK_DEPTH } from './planner.js'
import { DEFAULT_SEARCH_LIMIT, DOC_COLUMNS, type DocRow, type IndexedMeta, type ListSort, ownString, page, type RelationsRow, ROWID_STEP, SCHEMA, STATUS_INDEX, toMeta } from './schema.js'
import { type IndexFileState, loadSqlite, setIndexFileState } from './index-file.js'
import { WriteCycle } from './write-cycle.js'
import { StatementCache } from './statement-cache.js'
import { type FileState, type ForeignChange, SharedFile } from './shared-file.js'
import type { CheckpointOptions, Checkpointer } from './checkpointer.js'
import { expandQuery, type ExpandOptions, warmExpansion } from './expand/index.js'
import { addExpansion } from './expansion.js'
import { resolveOptions, type SearchIndexOptions } from './options.js'
import { addNeighbours } from './context.js'
import { addChars } from './chars.js'
import { type SemanticPass, semanticPass } from './word-vectors.js'
import { CooccurPass } from './cooccur.js'

export type { Facets, Plan, SearchIndexOptions }
export type { IndexedMeta, ListSort, ManifestRow, ManifestTuple, RelationsRow } from './schema.js'

/** A BM25 index over knowledge documents. Synchronous; one instance per store. */
export class SearchIndex {
  private readonly db: DatabaseSync
  /** Prepared statements by SQL text, bounded (./statement-cache.ts); read by tests. */
  readonly statements = new StatementCache()
  private readonly snippetWidth: number
  private readonly planner: QueryPlanner
  private readonly onPlan?: (plan: Plan) => void
  /** Tag and tool names as small integers, for filters and facets (new names are stored in `name`). */
  readonly vocabulary = new Vocabulary((kind, id, name) => {
    this.stmt('INSERT OR REPLACE INTO name (id, kind, text) VALUES (?, ?, ?)').run(id, kind === 'tag' ? 0 : 1, name)
  })
  /** Backed by a file (see {@link openIndexFile}) rather than memory. */
  readonly persistent: boolean
  /** The `doc` columns of a row's metadata: with the revision when the file has its column (schema.ts, REV_COLUMN). */
  readonly docColumns: string
  readonly writes: DocWrites // how `doc` rows are written here: the columns outside the schema this file has (doc-row.ts)
  /** Which id a file holds is a point query of the `doc_path` index (doc-row.ts, pathIndex). */
  readonly byPath: boolean
  /** Document id → rowid in memory: a Map (ids arrive in file order; a sorted b-tree cost a quarter of the insert time); a file uses its `doc_id` index (see {@link restore}). */
  private readonly rowids = new Map<string, number>()
  /** Counters, next rowid and whether any indexed text had Chinese characters (read back from a file). */
  private readonly state: FileState = { count: 0, seq: 0, retired: 0, han: false }
  /** Query expansion's sources (undefined: off). */
  private readonly expand: ExpandOptions | undefined
  private readonly context: number
  private readonly chars: number
  private readonly semantic: SemanticPass | undefined
  private readonly cooccur: CooccurPass
  private closed = false
  /** Rows up to this rowid have their revision, or none to be had (see {@link fillRevisions}). */
  private revsFrom = 0
  /** The write transaction of each event-loop turn, and background segment merging. */
  private readonly cycle: WriteCycle
  /** Facet counts per filter, shifted by this index's writes and by the other connections' it follows (./facets.ts). */
  private readonly facetCache = new FacetCache(() => this.file?.seenVersion ?? 0, facetCounts.bind(null, this))
  /** A file's change log, which other processes write too (see ./shared-file.ts). */
  private readonly file?: SharedFile
  /** Told of other processes' document changes once this index caught up with them (null: reload everything). */
  onForeign: (changes: ForeignChange[] | null) => void = () => {}

  /** An empty in-memory index, or, given `db` ({@link createIndexFile}, {@link openIndexFile}), one over that file. */
  constructor(options: SearchIndexOptions = {}, db?: DatabaseSync) {
    const resolved = resolveOptions(options)
    this.snippetWidth = resolved.snippetWidth
    this.expand = resolved.expand
    this.context = resolved.context
    this.chars = resolved.chars
    this.semantic = semanticPass(resolved.semantic, options.wordVectors)
    this.onPlan = options.onPlan
    this.planner = new QueryPlanner(this, resolved.rank)
    this.cooccur = new CooccurPass(this, this.planner, resolved.cooccur)
    this.persistent = db !== undefined
    this.db = db ?? new (loadSqlite().DatabaseSync)(':memory:')
    this.cycle = new WriteCycle({ db: this.db, stmt: (sql) => this.stmt(sql), shared: this.persistent, began: () => this.catchUp() })
    if (db) {
      this.file = new SharedFile((sql) => this.stmt(sql), this.db)
      this.file.open(this.state, this.vocabulary)
    } else this.db.exec(`PRAGMA page_size = 8192; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; ${SCHEMA}`)
    this.writes = docWrites(this.db, this.persistent)
    this.docColumns = this.writes.rev ? `${DOC_COLUMNS}, rev` : DOC_COLUMNS
    this.byPath = pathIndex(this.db)
  }

  /** Catches up with other processes' commits to a shared file (./shared-file.ts); one `PRAGMA data_version` if none. */
  follow(): void {
    if (this.file && !this.cycle.open && !this.closed) this.catchUp()
  }

  private catchUp(): void {
    const before = this.file?.seenVersion ?? 0
    const changes = this.file?.catchUp(this.state, this.vocabulary, () => this.planner.wrote())
    this.facetCache.followed(changes, before)
    if (changes !== undefined) this.onForeign(changes)
  }

  /** The rowid of a document id. */
  private rowidOf(id: string): number | undefined {
    if (!this.persistent) return this.rowids.get(id)
    return (this.stmt('SELECT rowid FROM doc WHERE id = ?').get(id) as { rowid: number } | undefined)?.rowid
  }

  /** The relations records of the documents that have one (streamed; few documents do). */
  relations(): Iterable<RelationsRow> {
    this.flush()
    return this.stmt('SELECT id, relations FROM doc WHERE relations IS NOT NULL').iterate() as Iterable<RelationsRow>
  }

  /** Records that a document's file was seen again with the same content (new times, no re-index). */
  restamp(id: string, mtimeMs: number, stamp: FileStamp, version?: number): void {
    this.atomically(() => {
      const rowid = this.rowidOf(id)
      if (rowid !== undefined) this.stmt(this.writes.restamp).run(mtimeMs, stamp.size, stamp.ctimeMs, stamp.hash, stamp.seenMs, rowid)
      if (rowid !== undefined && version !== undefined && this.docColumns !== DOC_COLUMNS) this.stmt('UPDATE doc SET rev = ? WHERE rowid = ?').run(version, rowid)
    })
  }

  /** Gives rows written without a revision (an older build) theirs, a batch per call; true once none is left. */
  fillRevisions(versionOf: (id: string) => number | undefined): boolean {
    if (this.docColumns === DOC_COLUMNS || this.closed) return true
    const to = this.atomically(() => fillRevisions((sql) => this.stmt(sql), this.revsFrom, versionOf))
    if (to === undefined) return true
    this.revsFrom = to
    return false
  }

  /** Records a file-backed index's build state (committed with the writes before it). */
  setState(state: IndexFileState): void {
    if (!this.persistent || this.closed) return
    this.atomically(() => setIndexFileState(this.db, state))
    this.flush()
    // Complete: other processes may open it from now on, and follow its change log.
    if (this.file) this.file.logging = state === 'complete'
  }

  /** Number of documents in the index. */
  get size(): number {
    this.follow()
    return this.state.count
  }
  /** Number of retired documents in the index (for listings' default status filter). */
  get retired(): number {
    return this.state.retired
  }
  /** Loads query expansion's sources now, if this index expands queries (see {@link warmExpansion}). */
  warmExpansion(): void {
    if (this.expand) warmExpansion(this.expand)
  }

  /** A statement of its own (not cached): for an iteration that may stay open across event-loop turns. */
  prepare(sql: string): StatementSync {
    return this.db.prepare(sql)
  }

  /** A prepared statement, cached by its SQL (for the planner and listings too). */
  stmt(sql: string): StatementSync {
    return this.statements.get(sql, (text) => this.db.prepare(text))
  }

  /** One document's statements in the open transaction; no savepoint (FTS5 flushes at each; nothing here can fail on constraints). */
  private atomically<T>(fn: () => T): T {
    this.cycle.begin()
    return fn()
  }

  /** Runs `fn` (typically many upserts) and commits once at the end. */
  batch<T>(fn: () => T): T {
    this.cycle.begin()
    try {
      return fn()
    } finally {
      this.cycle.flush()
    }
  }

  /** Commits pending writes now (else on the next event-loop turn: FTS5 writes a segment per turn); searches see them at once. */
  flush(): void {
    if (!this.closed) this.cycle.flush()
  }

  /** WAL checkpoints off this thread from now on (see ./checkpointer.ts): for a long-lived, file-backed index. */
  checkpointInBackground(options?: CheckpointOptions): Checkpointer | undefined {
    return this.persistent && !this.closed ? this.cycle.checkpointInBackground(options) : undefined
  }

  /** Holds background merging during a bulk load (the start-up scan); returns the release. */
  holdMerges(): () => void {
    return this.cycle.holdMerges()
  }

  /** Finishes in the background the segment merge an earlier process left undone (unmerged: queries ~2× slower). */
  mergeLeftovers(): void {
    if (this.persistent && !this.closed) this.cycle.mergeLeftovers()
  }

  /** Resolves once pending writes are committed and background segment merging is done (for benches and tests). */
  settle(): Promise<void> {
    return this.cycle.settle()
  }

  /** Upserts many documents in one transaction, oldest first (rowids follow time: common-word queries rank the newest). */
  upsertMany(docs: Iterable<KnowledgeDoc>): number {
    const order = oldestFirst(docs)
    this.batch(() => order.forEach((d) => this.upsert(d)))
    return order.length
  }

  /** Inserts a document, or replaces the one with the same id. Costs one document's tokens, never a rebuild. */
  upsert(doc: KnowledgeDoc): void {
    // The transaction first: in a shared file, what the id holds is read inside it. Tokenizing writes nothing.
    this.cycle.begin()
    const { id, kind, status, body, tags, tools, columns, stampHash, titleText, tagText, bodyText, han } = docRow(doc, !this.state.han)
    const was = this.rowidOf(id)
    const kept = was !== undefined && (this.stmt('SELECT created FROM doc WHERE rowid = ?').get(was) as { created?: unknown })?.created === columns[CREATED_COLUMN]
    const rowid = (kept ? Math.floor(was / ROWID_STEP) : ++this.state.seq) * ROWID_STEP + status * 8 + kind
    const write = (): void => {
      const replaced = this.deleteRow(id)
      this.stmt(this.writes.insert).run(...insertValues(this.writes, rowid, columns, stampHash, doc.version))
      this.stmt('INSERT INTO body (rowid, text) VALUES (?, ?)').run(rowid, body)
      if (!this.persistent) this.rowids.set(ownString(id), rowid)
      insertTokens((sql) => this.stmt(sql), rowid, titleText, tagText, bodyText)
      const tagIds = [...new Set(tags.map(tagKey))].map((t) => this.vocabulary.tag(t))
      const toolIds = [...new Set(tools)].map((t) => this.vocabulary.useTool(t))
      for (const tag of tagIds) this.stmt('INSERT OR IGNORE INTO tag (doc, id) VALUES (?, ?)').run(rowid, tag)
      for (const tool of toolIds) this.stmt('INSERT OR IGNORE INTO tool (doc, id) VALUES (?, ?)').run(rowid, tool)
      if (!replaced) this.state.count++
      if (status === STATUS_INDEX.retired) this.state.retired++
      this.file?.record(id, doc.path, false, status === STATUS_INDEX.retired, JSON.stringify([...new Set(tools)]), () => [rowid, id, String(columns[CWD_COLUMN]), tagIds, toolIds])
      // Remembered in a file-backed index too: a reused cache expands English queries into Chinese as before.
      if (han && this.persistent) this.stmt("INSERT OR REPLACE INTO meta (key, value) VALUES ('han', '1')").run()
      if (han) this.state.han = true
      this.facetCache.shift([rowid], 1)
    }
    this.facetCache.writing(() => this.atomically(write))
    this.wrote()
  }

  /** Called after every write: counts merge debt and tells the planner (it refreshes its statistics). */
  private wrote(): void {
    this.cycle.wrote()
    this.planner.wrote()
  }

  /** Removes a document; false when the id is not indexed. */
  remove(id: string): boolean {
    if (typeof id !== 'string') return false
    const gone = this.facetCache.writing(() => this.atomically(() => this.deleteRow(id)))
    if (gone) this.state.count--
    if (gone) this.wrote()
    return gone
  }

  private deleteRow(id: string): boolean {
    const rowid = this.rowidOf(id)
    if (rowid === undefined) return false
    this.facetCache.shift([rowid], -1)
    this.rowids.delete(id)
    const retired = deleteDocRows(
      (sql) => this.stmt(sql),
      rowid,
      (tool) => this.vocabulary.dropTool(tool),
      (path, retired, tools, snapshot) => this.file?.record(id, path, true, retired, tools, snapshot),
    )
    if (retired) this.state.retired--
    return true
  }

  /** The metadata of one document (no body), or undefined. */
  get(id: string): IndexedMeta | undefined {
    if (typeof id !== 'string') return undefined
    const rowid = this.rowidOf(id)
    if (rowid === undefined) return undefined
    const row = this.stmt(`SELECT ${this.docColumns} FROM doc WHERE rowid = ?`).get(rowid) as DocRow | undefined
    return row ? toMeta(row) : undefined
  }

  /** The indexed body of one document (what snippets are cut from), or undefined. */
  body(id: string): string | undefined {
    const rowid = this.rowidOf(id)
    if (rowid === undefined) return undefined
    return (this.stmt('SELECT text FROM body WHERE rowid = ?').get(rowid) as { text: string } | undefined)?.text
  }

  /**
   * Ranked search. An empty or whitespace query lists the filtered documents newest first. Never throws on any
   * query text; a query with nothing searchable in it (punctuation, emoji) finds nothing.
   *
   * Score = bm25 × kind boost × superseded factor × (all-terms bonus when the document holds every query term), plus
   * query expansion's phrases below the user's own words ({@link addExpansion}); which rows are scored is the
   * planner's choice (see {@link QueryPlanner}).
   */
  search(query: string, filter: SearchFilter = {}): SearchHit[] {
    this.follow()
    const { offset, limit } = page(filter, DEFAULT_SEARCH_LIMIT)
    let plan: Plan = 'list'
    try {
      if (limit === 0) return []
      const text = typeof query === 'string' ? query : ''
      if (!text.trim()) {
        return this.list({ ...filter, offset, limit }).items.map((m) => this.hit(m, 0, []))
      }
      plan = 'none'
      const terms = queryTerms(text)
      if (!terms.length || this.state.count === 0) return []
      const where = whereOf(filter, 'fts', this.vocabulary, this.state.retired)
      if (where.none) return []
      const window = offset + limit
      const expansion = this.expand ? expandQuery(terms, { han: this.state.han }, this.expand) : undefined
      const depth = Math.max(window, RANK_DEPTH)
      const pool = this.planner.candidates(expansion?.terms ?? terms, where, window, depth)
      plan = this.planner.plan
      addChars((sql) => this.stmt(sql), pool, expansion?.terms ?? terms, where, window, this.chars) // before translations: a short page is about the user's words
      const used = expansion?.extra.length ? addExpansion(this.planner, pool, expansion.extra, where, depth) : []
      const own = new Set((expansion?.terms ?? terms).flatMap((t) => [...t.tokens, ...(t.parts ?? [])]))
      addNeighbours((sql) => this.stmt(sql), pool, where, this.context)
      this.cooccur.run(pool, terms)
      this.semantic?.((sql) => this.stmt(sql), pool, text)
      const ranked = [...pool].sort((a, b) => b[1] - a[1] || b[0] - a[0]).slice(offset, window)
      if (!ranked.length) return []
      const marks = [...new Set([...own, ...used.flatMap((p) => p.split(' '))])]
      const rows = this.stmt(`SELECT doc.${this.docColumns}, body.text AS body FROM doc JOIN body ON body.rowid = doc.rowid WHERE doc.rowid IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify(ranked.map(([r]) => r)),
      ) as unknown as Array<DocRow & { body: string }>
      const byRowid = new Map(rows.map((r) => [r.rowid, r]))
      const hits: SearchHit[] = []
      for (const [rowid, score] of ranked) {
        const row = byRowid.get(rowid)
        if (row) hits.push(this.hit(toMeta(row), score, marks, filter.bare ? '' : row.body))
      }
      return hits
    } finally {
      this.onPlan?.(plan)
    }
  }

  private hit(meta: IndexedMeta, score: number, marks: string[], body?: string): SearchHit {
    return toHit(meta, score, marks, body ?? this.body(meta.id) ?? '', this.snippetWidth)
  }

  /** Filtered documents without a query, paged; `total` counts them before paging. */
  list(filter: SearchFilter & { sort?: ListSort; after?: string } = {}): { total: number; items: IndexedMeta[] } {
    this.follow()
    return listDocs(this, filter)
  }

  /** How many documents were recorded with exactly this `cwd` (an indexed lookup; cheaper than facets for that). */
  workspaceCount(cwd: string): number {
    return workspaceCount(this, cwd)
  }

  /** How many documents the filter selects (paging ignored). */
  count(filter: SearchFilter = {}): number {
    this.follow()
    return countDocs(this, filter)
  }

  /** Counts per kind, tag, tool and workspace over the documents the filter selects (paging ignored). */
  facets(filter: SearchFilter = {}): Facets {
    this.follow()
    return this.facetCache.get(filter, () => facetCounts(this, filter))
  }

  /** Frees the database (a file-backed one checkpointed into its main file first); resolves once its checkpoint worker exited. */
  close(): Promise<void> {
    if (this.closed) return this.cycle.stopped
    this.cycle.close()
    // Never a reader beside the owner: TRUNCATE takes the WAL's write lock, and the owner's write failed ("locked").
    if (this.persistent && !(this.db.prepare('PRAGMA query_only').get() as { query_only: number }).query_only) {
      try {
        // Not waiting for other processes' readers and writers: then it checkpoints what it can (as PASSIVE).
        this.db.exec('PRAGMA busy_timeout = 0; PRAGMA wal_checkpoint(TRUNCATE)')
      } catch {} // another process reads it: the WAL stays, still valid
    }
    this.closed = true
    this.statements.clear()
    this.db.close()
    return this.cycle.stopped
  }
}
