/**
 * The in-process search index: a projection of the knowledge files into an in-memory SQLite database (Node's built-in
 * `node:sqlite`, no native addon) with an FTS5 table for BM25 ranking and plain tables for the metadata that filters,
 * lists and facets read. The store rebuilds it at start and feeds it one document at a time afterwards.
 *
 * Why this shape:
 * - FTS5 never sees user text. {@link indexStreams} turns titles, tags and bodies into token streams (words,
 *   identifier parts, CJK bigrams; identifier wholes in columns of their own, weighted double) and the MATCH
 *   expression is assembled only from our own quoted tokens, so no query can be a syntax error (`AND`, `NEAR`, `"`,
 *   `*`, `^`, `:`, NUL, 10 KB pastes…).
 * - The FTS5 table is contentless (`content=''`, `contentless_delete=1`): tokens are stored once, in the index; the
 *   original body lives in a separate table only for snippets. An upsert is a delete plus an insert: O(one document).
 * - Rowids are dense, in indexing order, and carry the kind in their low three bits and the status in the next two:
 *   the kind boost and the superseded penalty are applied inside the ORDER BY without a join, a kind filter is
 *   `rowid & 7 = k`, the default status filter (retired documents leave search) is `(rowid >> 3) & 3 <> 2`, and
 *   "the newest documents" is a rowid range.
 * - Ranking: `bm25(title 4, tags 2, body 1, identifier wholes ×2) × kind boost`, OR semantics (any query term
 *   matches), times an all-terms bonus (1.6) for documents that hold every query term (an identifier counts when
 *   one of its wholes, or all of its words, are present), computed with an AND-ed MATCH under the same filters.
 * - bm25 costs about a microsecond per matching row and phrase, so large queries are planned (rarest terms first;
 *   see {@link SearchIndex.search}) to keep every search within a bounded number of scored rows.
 * @module dsh-knowledge-sync/search/search-index
 */
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite'
import picomatch from 'picomatch'
import type { DocKind, DocStatus, KnowledgeDoc, SearchFilter, SearchHit } from '../types.js'
import { DOC_KINDS, DOC_STATUSES, type Facets } from '../wire.js'
import { indexStreams, queryTerms, type QueryTerm } from './tokenize.js'
import { snippet } from './snippet.js'
import { scopeRange } from './scope.js'

/** Options of {@link SearchIndex}. */
export interface SearchIndexOptions {
  /** Multiplicative rank boost per kind; defaults note 1.5, distilled 1.3, manual 1.2, raw 1. */
  boost?: Partial<Record<DocKind, number>>
  /** BM25 column weights; defaults title 4, tags 2, body 1. */
  weights?: Partial<Record<'title' | 'tags' | 'body', number>>
  /**
   * Extra weight of a whole identifier (`ERR_PNPM_FETCH_404`, `searchIndex`, a path) over a word in the same field;
   * default 2, so naming the identifier beats mentioning its parts.
   */
  identWeight?: number
  /** Rank multiplier for documents that contain every query term; default 1.6. */
  allTermsBonus?: number
  /** Rank multiplier of a superseded document (its successor should come first); default 0.5. */
  supersededFactor?: number
  /** Snippet width in characters; default 200. */
  snippetWidth?: number
  /**
   * How many matching rows one ranking pass may score (bm25 costs ~1 µs a row); default 500. Queries whose terms
   * match more rows are planned (rarest terms first, see {@link SearchIndex.search}).
   */
  scoreBudget?: number
}

/** What the index knows of a document without its body. */
export interface IndexedMeta {
  id: string
  path: string
  kind: DocKind
  title: string
  cwd: string
  created: string
  tags: string[]
  tools: string[]
  mtimeMs: number
  /** The dsh session and turn of a captured round (absent for hand-written documents). */
  session?: string
  turn?: number
  /** Absent = active. */
  status?: DocStatus
  /** The successor of a superseded document. */
  supersededBy?: string
}

export type { Facets }

/** Sort orders of {@link SearchIndex.list}: newest first, or by title A→Z (case-insensitive). */
export type ListSort = 'created' | 'title'

// The kind is stored in a rowid's low three bits (DOC_KINDS order), the status in the next two (DOC_STATUSES order).
const KINDS = DOC_KINDS
const KIND_INDEX: Record<string, number> = Object.fromEntries(DOC_KINDS.map((kind, k) => [kind, k]))
const STATUS_INDEX: Record<string, number> = Object.fromEntries(DOC_STATUSES.map((status, k) => [status, k]))
const ROWID_STEP = 32
const DEFAULT_BOOST: Record<DocKind, number> = { raw: 1, note: 1.5, distilled: 1.3, manual: 1.2, preference: 1.5 }
export const DEFAULT_SEARCH_LIMIT = 10
export const DEFAULT_LIST_LIMIT = 50
/** Paging never reaches further than this into a ranking (a model or a page never needs more). */
export const MAX_WINDOW = 1000
/** At most this many common (non-driver) terms are scored per query; see {@link SearchIndex.search}. */
export const MAX_SCORED_COMMON = 4
/**
 * bm25 first counts, for every phrase of a query, the rows holding it (a pass over its posting list, ~0.1 µs an
 * entry): a ranking pass may read at most this many budgets' worth of postings for its common terms.
 */
export const POSTINGS_PER_BUDGET = 20
/** Background merging starts after this many writes, and does this many pages of work per event-loop turn. */
export const MERGE_AFTER = 256
export const MERGE_STEP_PAGES = 200

const finite = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback)
const quote = (token: string): string => `"${token.replace(/"/g, '""')}"`
const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => x !== null && x !== undefined).map(String) : [])
const epoch = (created: string, fallback: number): number => {
  const t = Date.parse(created)
  return Number.isNaN(t) ? fallback : t
}

interface Where {
  sql: string
  params: SQLInputValue[]
  /** The filter can select nothing (unknown kind, a tool glob no tool name matches). */
  none: boolean
  /** The clauses read the `doc` table (the FTS query then joins it). */
  needsDoc: boolean
  /** The only clause is the default status filter (counted without a scan). */
  defaultOnly?: boolean
}

interface Row { r: number; s: number }
/** The all-terms test: its MATCH expression, a bound on the rows satisfying it, and the postings bm25 would count. */
interface AllTerms { expr: string; rows: number; postings: number }
interface DocRow {
  rowid: number; id: string; path: string; kind: number; title: string; cwd: string; created: string; mtime: number; tags: string; tools: string
  session: string | null; turn: number | null; superseded_by: string | null
}

/** An in-memory BM25 index over knowledge documents. Synchronous; one instance per store. */
export class SearchIndex {
  private readonly db: DatabaseSync
  private readonly statements = new Map<string, StatementSync>()
  private readonly boost: Record<DocKind, number>
  private readonly bm25: string
  private readonly bonus: number
  private readonly superseded: number
  private readonly snippetWidth: number
  /** Tool name → number of documents using it: tool globs are matched against this, not against every row. */
  private readonly toolNames = new Map<string, number>()
  /** Document id → rowid. A Map, not a UNIQUE index: ids arrive in file order, and keeping a b-tree of them sorted
   * cost a quarter of the insert time. */
  private readonly rowids = new Map<string, number>()
  /** Tags (lowercased) and tool names are stored as small integers; these are the two vocabularies. */
  private readonly tagIds = new Map<string, number>()
  private readonly toolIds = new Map<string, number>()
  private readonly names: string[] = []
  private seq = 0
  private count_ = 0
  /** Retired documents indexed (the default filter leaves them out; counting the rest needs no scan). */
  private retired = 0
  private inTx = false
  private closed = false
  /** Document frequency per query token, for query planning only (never for scores: FTS5 computes those). */
  private readonly dfCache = new Map<string, { n: number; cap: number }>()
  private writesSinceDf = 0
  private readonly budget: number
  /** Documents written since FTS5 segments were last merged, and the background merge state. */
  private mergeDebt = 0
  private merging = false
  private settled: Array<() => void> = []

  /** Creates an empty index. */
  constructor(options: SearchIndexOptions = {}) {
    this.boost = { ...DEFAULT_BOOST }
    for (const k of KINDS) this.boost[k] = finite(options.boost?.[k], DEFAULT_BOOST[k])
    const w = options.weights ?? {}
    const title = finite(w.title, 4)
    const body = finite(w.body, 1)
    const ident = finite(options.identWeight, 2)
    this.bm25 = `bm25(fts, ${title}, ${finite(w.tags, 2)}, ${body}, ${title * ident}, ${body * ident})`
    this.bonus = finite(options.allTermsBonus, 1.6)
    this.superseded = finite(options.supersededFactor, 0.5)
    this.snippetWidth = finite(options.snippetWidth, 200)
    this.budget = finite(options.scoreBudget, 500)
    this.db = new DatabaseSync(':memory:')
    this.db.exec(`
      PRAGMA page_size = 8192;
      PRAGMA journal_mode = MEMORY;
      PRAGMA temp_store = MEMORY;
      CREATE TABLE doc (
        rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, kind INTEGER NOT NULL, title TEXT NOT NULL,
        cwd TEXT NOT NULL, created TEXT NOT NULL, created_ms REAL NOT NULL, mtime REAL NOT NULL, tags TEXT NOT NULL, tools TEXT NOT NULL,
        session TEXT, turn INTEGER, superseded_by TEXT
      );
      CREATE INDEX doc_created ON doc (created_ms);
      CREATE INDEX doc_cwd ON doc (cwd);
      CREATE TABLE body (rowid INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TABLE tag (doc INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (doc, id)) WITHOUT ROWID;
      CREATE INDEX tag_by_id ON tag (id, doc);
      CREATE TABLE tool (doc INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (doc, id)) WITHOUT ROWID;
      CREATE INDEX tool_by_id ON tool (id, doc);
      CREATE VIRTUAL TABLE fts USING fts5(
        title, tags, body, title_id, body_id, content = '', contentless_delete = 1, detail = full,
        tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
      );
    `)
  }

  /** Number of documents in the index. */
  get size(): number {
    return this.count_
  }

  private stmt(sql: string): StatementSync {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /**
   * Writes run inside a transaction that is opened on the first write and committed on the next turn of the event
   * loop (or by {@link flush}). FTS5 turns its pending terms into a segment once per commit, so 10k upserts in a
   * loop (or interleaved with file reads) cost one commit, not 10k. Searches on this connection see uncommitted
   * writes, so a document is searchable as soon as `upsert` returns.
   */
  private begin(): void {
    if (this.inTx || this.closed) return
    this.db.exec('BEGIN')
    this.inTx = true
    setImmediate(() => {
      try {
        this.flush()
      } catch {
        // Nothing to report to: the next write opens a fresh transaction; an in-memory COMMIT does not fail in practice.
      }
    })
  }

  /** Commits pending writes now (they are committed on the next event-loop turn anyway). */
  flush(): void {
    if (!this.inTx || this.closed) return
    this.inTx = false
    try {
      this.db.exec('COMMIT')
    } catch (err) {
      try { this.db.exec('ROLLBACK') } catch { /* already rolled back */ }
      throw err
    } finally {
      if (this.mergeDebt >= MERGE_AFTER) this.scheduleMerge()
      else this.wake()
    }
  }

  /**
   * After a bulk load FTS5 holds many small segments, and every query reads each of them (queries run about twice as
   * fast once merged). Merging is done in the background, a few milliseconds per event-loop turn, so neither the load
   * nor a search ever waits for it.
   */
  private scheduleMerge(): void {
    if (this.merging || this.closed || this.bulkDepth > 0) return
    this.merging = true
    const changes = this.stmt('SELECT total_changes() AS n')
    const merge = this.stmt(`INSERT INTO fts (fts, rank) VALUES ('merge', -${MERGE_STEP_PAGES})`)
    const step = (): void => {
      let more = false
      if (!this.closed) {
        try {
          const before = (changes.get() as { n: number }).n
          merge.run()
          // FTS5's documented signal: fewer than two changes means there was nothing left to merge.
          more = (changes.get() as { n: number }).n - before >= 2
        } catch {
          more = false
        }
      }
      if (more) setImmediate(step)
      else {
        this.merging = false
        this.mergeDebt = 0
        this.wake()
      }
    }
    setImmediate(step)
  }

  private wake(): void {
    if (this.inTx || this.merging) return
    const waiting = this.settled
    this.settled = []
    for (const resolve of waiting) resolve()
  }

  private bulkDepth = 0

  /**
   * Holds background merging while a bulk load (the store's start-up scan) commits slice after slice: merging the
   * growing segments after every slice would redo the same work many times. Merging starts when the last hold ends.
   */
  holdMerges(): () => void {
    this.bulkDepth++
    let released = false
    return () => {
      if (released) return
      released = true
      if (--this.bulkDepth === 0 && this.mergeDebt >= MERGE_AFTER) this.scheduleMerge()
    }
  }

  /** Resolves once pending writes are committed and background segment merging is done (for benches and tests). */
  settle(): Promise<void> {
    if (!this.inTx && !this.merging) return Promise.resolve()
    return new Promise((resolve) => this.settled.push(resolve))
  }

  /**
   * Runs one document's statements inside the open transaction. No savepoint: FTS5 flushes its pending terms at every
   * savepoint, which would undo the batching; the statements cannot fail on constraints (the old row is deleted
   * first), and tokenizing, the only part that could throw on odd input, happens before the first statement.
   */
  private atomically<T>(fn: () => T): T {
    this.begin()
    return fn()
  }

  /** Runs `fn` (typically many upserts) and commits once at the end. */
  batch<T>(fn: () => T): T {
    this.begin()
    try {
      return fn()
    } finally {
      this.flush()
    }
  }

  /**
   * Inserts or replaces many documents in one transaction (the cold start path), oldest first: rowids follow
   * indexing order, so documents indexed later count as newer when a query of common words only ranks the newest.
   */
  upsertMany(docs: Iterable<KnowledgeDoc>): number {
    const list = [...docs]
    const at = (d: KnowledgeDoc): number => epoch(typeof d.meta?.created === 'string' ? d.meta.created : '', d.mtimeMs ?? 0)
    const order = list.map((d, i) => ({ d, i, t: at(d) })).sort((a, b) => a.t - b.t || a.i - b.i)
    this.batch(() => {
      for (const { d } of order) this.upsert(d)
    })
    return list.length
  }

  /** Inserts a document, or replaces the one with the same id. Costs one document's tokens, never a rebuild. */
  upsert(doc: KnowledgeDoc): void {
    const meta = doc.meta ?? ({} as KnowledgeDoc['meta'])
    const id = String(doc.id ?? meta.id)
    const kind = KIND_INDEX[meta.kind] ?? KIND_INDEX.manual
    const title = typeof meta.title === 'string' ? meta.title : id
    const cwd = typeof meta.cwd === 'string' ? meta.cwd : ''
    const tags = asStrings(meta.tags)
    const tools = asStrings(meta.tools)
    const mtime = Number.isFinite(doc.mtimeMs) ? doc.mtimeMs : 0
    const created = typeof meta.created === 'string' ? meta.created : new Date(mtime).toISOString()
    const body = typeof doc.body === 'string' ? doc.body : ''
    const session = typeof meta.session === 'string' ? meta.session : null
    const turn = typeof meta.turn === 'number' && Number.isFinite(meta.turn) ? meta.turn : null
    const status = STATUS_INDEX[meta.status as string] ?? 0
    const supersededBy = status === STATUS_INDEX.superseded && typeof meta.superseded_by === 'string' ? meta.superseded_by : null
    // Tokenize before touching the database: the write itself is then a handful of statements.
    const titleText = indexStreams(title)
    const tagText = indexStreams(tags.join(' '))
    // The body usually opens with `# <title>`: the title has its own column, so that line is not indexed twice.
    const bodyText = indexStreams(stripTitle(body, title))
    const createdMs = epoch(created, mtime)
    // Dense rowids in indexing order: FTS5 stores rowid deltas as varints, so sparse rowids (say, derived from
    // timestamps) would add bytes to every posting. The low bits carry the kind and the status (see the header).
    const rowid = ++this.seq * ROWID_STEP + status * 8 + kind
    const write = (): void => {
      const replaced = this.deleteRow(id)
      this.stmt('INSERT INTO doc (rowid, id, path, kind, title, cwd, created, created_ms, mtime, tags, tools, session, turn, superseded_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)')
        .run(rowid, id, String(doc.path ?? ''), kind, title, cwd, created, createdMs, mtime, JSON.stringify(tags), JSON.stringify(tools), session, turn, supersededBy)
      this.stmt('INSERT INTO body (rowid, text) VALUES (?, ?)').run(rowid, body)
      this.rowids.set(ownString(id), rowid)
      this.stmt('INSERT INTO fts (rowid, title, tags, body, title_id, body_id) VALUES (?, ?, ?, ?, ?, ?)')
        .run(rowid, titleText.words, tagText.words + tagText.wholes, bodyText.words, titleText.wholes, bodyText.wholes)
      const addTag = this.stmt('INSERT OR IGNORE INTO tag (doc, id) VALUES (?, ?)')
      for (const t of new Set(tags.map((x) => x.toLowerCase()))) addTag.run(rowid, this.intern(this.tagIds, t))
      const addTool = this.stmt('INSERT OR IGNORE INTO tool (doc, id) VALUES (?, ?)')
      for (const t of new Set(tools)) {
        addTool.run(rowid, this.intern(this.toolIds, t))
        this.toolNames.set(this.names[this.toolIds.get(t)!], (this.toolNames.get(t) ?? 0) + 1)
      }
      if (!replaced) this.count_++
      if (status === STATUS_INDEX.retired) this.retired++
    }
    this.atomically(write)
    this.wrote()
  }

  /** Removes a document; false when the id is not indexed. */
  remove(id: string): boolean {
    if (typeof id !== 'string') return false
    const gone = this.atomically(() => this.deleteRow(id))
    if (gone) {
      this.count_--
      this.wrote()
    }
    return gone
  }

  /** The integer standing for a tag or tool name (ids are shared by both vocabularies and never reused). */
  private intern(ids: Map<string, number>, name: string): number {
    let id = ids.get(name)
    if (id === undefined) {
      id = this.names.length
      const own = ownString(name)
      this.names.push(own)
      ids.set(own, id)
    }
    return id
  }

  private deleteRow(id: string): boolean {
    const rowid = this.rowids.get(id)
    if (rowid === undefined) return false
    this.rowids.delete(id)
    const row = this.stmt('SELECT rowid, tools FROM doc WHERE rowid = ?').get(rowid) as { rowid: number; tools: string }
    if (((row.rowid >> 3) & 3) === STATUS_INDEX.retired) this.retired--
    for (const t of new Set(asStrings(JSON.parse(row.tools)))) {
      const n = (this.toolNames.get(t) ?? 1) - 1
      if (n > 0) this.toolNames.set(t, n)
      else this.toolNames.delete(t)
    }
    this.stmt('DELETE FROM fts WHERE rowid = ?').run(row.rowid)
    this.stmt('DELETE FROM doc WHERE rowid = ?').run(row.rowid)
    this.stmt('DELETE FROM body WHERE rowid = ?').run(row.rowid)
    this.stmt('DELETE FROM tag WHERE doc = ?').run(row.rowid)
    this.stmt('DELETE FROM tool WHERE doc = ?').run(row.rowid)
    return true
  }

  /** The metadata of one document (no body), or undefined. */
  get(id: string): IndexedMeta | undefined {
    if (typeof id !== 'string') return undefined
    const rowid = this.rowids.get(id)
    if (rowid === undefined) return undefined
    const row = this.stmt('SELECT rowid, id, path, kind, title, cwd, created, mtime, tags, tools, session, turn, superseded_by FROM doc WHERE rowid = ?').get(rowid) as DocRow | undefined
    return row ? toMeta(row) : undefined
  }

  /** The indexed body of one document (what snippets are cut from), or undefined. */
  body(id: string): string | undefined {
    const rowid = this.rowids.get(id)
    if (rowid === undefined) return undefined
    const row = this.stmt('SELECT text FROM body WHERE rowid = ?').get(rowid) as { text: string } | undefined
    return row?.text
  }

  /**
   * Filter clauses over `doc` (or, for kind, over the rowid of `alias`). Every value is a bound parameter; the SQL is
   * built from fixed fragments only, so the prepared-statement cache stays small.
   */
  private where(filter: SearchFilter | undefined, alias: 'doc' | 'fts'): Where {
    const clauses: string[] = []
    const params: SQLInputValue[] = []
    let needsDoc = false
    let none = false
    const f = filter ?? {}
    if (f.kind !== undefined && f.kind !== null) {
      const k = KIND_INDEX[f.kind as string]
      if (k === undefined) none = true
      else { clauses.push(`(${alias}.rowid & 7) = ?`); params.push(k) }
    }
    // Retired documents leave search, lists and counts unless the filter names a status (or `all`); while none is
    // indexed the default filter adds no clause at all.
    let defaultClause = false
    if (f.status !== 'all') {
      const s = f.status === undefined || f.status === null ? undefined : STATUS_INDEX[f.status as string]
      if (f.status !== undefined && f.status !== null && s === undefined) none = true
      else if (s === undefined) {
        if (this.retired > 0) { clauses.push(`((${alias}.rowid >> 3) & 3) <> ${STATUS_INDEX.retired}`); defaultClause = true }
      } else { clauses.push(`((${alias}.rowid >> 3) & 3) = ?`); params.push(s) }
    }
    if (typeof f.tag === 'string' && f.tag.trim()) {
      const tag = this.tagIds.get(f.tag.trim().toLowerCase())
      if (tag === undefined) none = true
      else {
        clauses.push(`EXISTS (SELECT 1 FROM tag WHERE tag.doc = ${alias}.rowid AND tag.id = ?)`)
        params.push(tag)
      }
    }
    if (typeof f.tool === 'string' && f.tool.trim()) {
      const ids = this.toolsMatching(f.tool.trim()).map((name) => this.toolIds.get(name)!)
      if (!ids.length) none = true
      else if (ids.length === 1) {
        clauses.push(`EXISTS (SELECT 1 FROM tool WHERE tool.doc = ${alias}.rowid AND tool.id = ?)`)
        params.push(ids[0])
      } else {
        clauses.push(`EXISTS (SELECT 1 FROM tool WHERE tool.doc = ${alias}.rowid AND tool.id IN (SELECT value FROM json_each(?)))`)
        params.push(JSON.stringify(ids))
      }
    }
    if (typeof f.scope === 'string' && f.scope.trim()) {
      const { exact, lo, hi } = scopeRange(f.scope.trim())
      needsDoc = true
      clauses.push(`(doc.cwd = '' OR doc.cwd = ? OR (doc.cwd >= ? AND doc.cwd < ?))`)
      params.push(exact, lo, hi)
    }
    const defaultOnly = defaultClause && clauses.length === 1
    return { sql: clauses.length ? ' AND ' + clauses.join(' AND ') : '', params, none, needsDoc, defaultOnly }
  }

  /** Tool names (from the live vocabulary) that the glob matches, case-insensitively; a broken glob matches literally. */
  private toolsMatching(glob: string): string[] {
    let test: (s: string) => boolean
    try {
      const m = picomatch(glob, { nocase: true, dot: true })
      test = (s) => m(s)
    } catch {
      const lowered = glob.toLowerCase()
      test = (s) => s.toLowerCase() === lowered
    }
    return [...this.toolNames.keys()].filter(test)
  }

  /**
   * Ranked search. An empty or whitespace query lists the filtered documents newest first. Never throws on any
   * query text; a query with nothing searchable in it (punctuation, emoji) finds nothing.
   *
   * Score = bm25 × kind boost × (all-terms bonus when the document holds every query term). bm25 costs about a
   * microsecond per matching row and per phrase, plus a pass over each phrase's posting list, so a query whose terms
   * match more rows than the score budget is planned like MaxScore: the rarest terms ("drivers") select the
   * candidates, the common terms still count in their scores, and the plan is `pruned` (provably the same top rows)
   * when the common terms together could not lift a document outside the candidates above the last hit of the page.
   * Otherwise it is `approx`: documents holding only common terms are left out, and a query made of nothing but
   * common terms (each in thousands of documents) ranks the newest matching documents, about a budget's worth.
   * {@link SearchIndex.lastPlan} says which happened.
   */
  search(query: string, filter: SearchFilter = {}): SearchHit[] {
    const { offset, limit } = page(filter, DEFAULT_SEARCH_LIMIT)
    this.lastPlan = 'list'
    if (limit === 0) return []
    const text = typeof query === 'string' ? query : ''
    if (!text.trim()) {
      return this.list({ ...filter, offset, limit }).items.map((m) => this.hit(m, 0, []))
    }
    this.lastPlan = 'none'
    const terms = queryTerms(text)
    if (!terms.length || this.count_ === 0) return []
    const where = this.where(filter, 'fts')
    if (where.none) return []
    const window = offset + limit
    const pool = this.candidates(terms, where, window)
    const ranked = [...pool].sort((a, b) => b[1] - a[1] || b[0] - a[0]).slice(offset, window)
    if (!ranked.length) return []
    const marks = [...new Set(terms.flatMap((t) => [...t.tokens, ...(t.parts ?? [])]))]
    const rows = this.stmt('SELECT doc.rowid, id, path, kind, title, cwd, created, mtime, tags, tools, session, turn, superseded_by, body.text AS body FROM doc JOIN body ON body.rowid = doc.rowid WHERE doc.rowid IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ranked.map(([r]) => r))) as unknown as Array<DocRow & { body: string }>
    const byRowid = new Map(rows.map((r) => [r.rowid, r]))
    const hits: SearchHit[] = []
    for (const [rowid, score] of ranked) {
      const row = byRowid.get(rowid)
      if (row) hits.push(this.hit(toMeta(row), score, marks, row.body))
    }
    return hits
  }

  /**
   * How the last search was evaluated: `exact` (every matching row scored), `pruned` (rare-term drivers, provably
   * the same top rows), `approx` (only common terms, or common-only documents left out; see {@link search}).
   */
  lastPlan: 'list' | 'none' | 'exact' | 'pruned' | 'approx' = 'none'

  /** Scored candidates (rowid → final score, higher is better) that contain the top `window` of the ranking. */
  private candidates(terms: QueryTerm[], where: Where, window: number): Map<number, number> {
    const n = this.count_
    const df = new Map<string, number>()
    const dfOf = (t: string): number => {
      let v = df.get(t)
      if (v === undefined) df.set(t, (v = this.df(t)))
      return v
    }
    // Is an identifier's part rare? Counting stops as soon as the answer is no.
    const rareCap = Math.floor(this.budget / 8)
    const rare = (t: string): boolean => (df.get(t) ?? this.df(t, rareCap + 1)) <= rareCap
    // The phrases to rank with. An identifier contributes its wholes when the corpus has them (every document with a
    // whole also holds its parts), plus its rare parts; else all its parts.
    const ranked = new Set<string>()
    for (const t of terms) {
      let tokens = t.tokens
      if (t.kind === 'ident' && t.parts?.length) {
        const wholes = t.tokens.filter((x) => !t.parts!.includes(x) && dfOf(x) > 0)
        // With a whole present, only rare parts are worth their cost (they find `SqliteError … busy` for
        // `SQLITE_BUSY`); common ones (`src`, `ts`, `get`) would only slow the query down.
        tokens = wholes.length ? [...wholes, ...t.parts.filter(rare)] : t.parts
      }
      for (const x of tokens) if (dfOf(x) > 0) ranked.add(x)
    }
    let active = [...ranked]
    if (!active.length) return new Map()
    // Terms in half the corpus or more get idf 1e-6 from FTS5's bm25: they cannot change a score, only cost time.
    if (n >= 1000) {
      const informative = active.filter((t) => df.get(t)! * 2 < n)
      if (informative.length) active = informative
    }
    const activeSet = new Set(active)
    const all = this.allTerms(terms, df, activeSet, ranked)
    const pool = new Map<number, number>()
    const add = (rows: Row[]): void => {
      for (const r of rows) if ((pool.get(r.r) ?? -Infinity) < -r.s) pool.set(r.r, -r.s)
    }
    const sum = (list: string[]): number => list.reduce((acc, t) => acc + df.get(t)!, 0)
    const or = (list: string[]): string => list.map(quote).join(' OR ')
    if (sum(active) <= this.budget) {
      // Few enough matching rows to score them all.
      this.lastPlan = 'exact'
      add(this.rank(or(active), where, window))
      if (all) this.applyBonus(all, where, window, 0, pool)
      return pool
    }
    const sorted = [...active].sort((a, b) => df.get(a)! - df.get(b)!)
    // Drivers: the rarest terms, as many as fit the budget.
    const drivers: string[] = []
    let acc = 0
    for (const t of sorted) {
      if (acc + df.get(t)! > this.budget) break
      drivers.push(t)
      acc += df.get(t)!
    }
    // Not even the rarest term fits: it drives alone, over the newest documents only (about a budget's worth of its
    // rows). Such a query is made of common words only; its ranking is approximate.
    let from = 0
    if (!drivers.length) {
      drivers.push(sorted[0])
      from = this.newestRowid(Math.ceil(this.budget * n / df.get(sorted[0])!))
    }
    const rest = sorted.slice(drivers.length)
    const d = or(drivers)
    // Rows holding only drivers are scored exactly by the drivers alone.
    add(this.rank(d, where, window, from))
    if (all) {
      // Rows holding every term are scored exactly (with every phrase) by the AND query and get the bonus; rows
      // holding a driver and some common terms keep their driver score (an underestimate): approximate.
      this.applyBonus(all, where, window, from, pool)
      this.lastPlan = rest.length || from ? 'approx' : 'pruned'
      return pool
    }
    // One query term (an identifier's wholes, a CJK run's bigrams): rows holding a driver and a common token, scored
    // with every phrase (only the rarest common tokens: each phrase costs a pass over its posting list).
    const scored: string[] = []
    let postings = 0
    for (const t of rest.slice(0, MAX_SCORED_COMMON)) {
      if (postings + df.get(t)! > POSTINGS_PER_BUDGET * this.budget) break
      scored.push(t)
      postings += df.get(t)!
    }
    if (scored.length) add(this.rank(`(${d}) AND (${or(scored)})`, where, window, from))
    // Exact when no document outside the candidates could reach the page: it would hold only common tokens, and bm25
    // gives a token at most idf × (k1 + 1).
    const maxBoost = Math.max(...Object.values(this.boost))
    const ceiling = rest.reduce((total, t) => total + idf(n, df.get(t)!) * 2.2, 0) * maxBoost
    const best = [...pool.values()].sort((a, b) => b - a)
    const kth = best.length >= window ? best[window - 1] : 0
    this.lastPlan = !from && scored.length === rest.length && ceiling <= kth ? 'pruned' : 'approx'
    return pool
  }

  /**
   * The all-terms test as a MATCH expression, with an estimate of how many rows satisfy it; undefined when the query
   * has fewer than two terms the corpus knows. One group per query term: a word; a CJK run (any of its bigrams); an
   * identifier (one of its wholes, else all its parts). Terms the corpus does not know are left out ("all terms" means
   * all the terms that occur), and so are near-universal ones (taken as present).
   */
  private allTerms(terms: QueryTerm[], df: Map<string, number>, active: Set<string>, ranked: Set<string>): AllTerms | undefined {
    const count = (x: string): number => df.get(x) ?? 0
    const groups: string[] = []
    let rows = Infinity
    let postings = 0
    const seen = new Set<string>()
    for (const t of terms) {
      const tokens = t.tokens.filter((x) => ranked.has(x))
      if (!tokens.length || !tokens.some((x) => active.has(x))) continue
      const key = tokens.join(' ')
      if (seen.has(key)) continue
      seen.add(key)
      postings += tokens.reduce((a, x) => a + count(x), 0)
      const wholes = t.kind === 'ident' && t.parts?.length ? tokens.filter((x) => !t.parts!.includes(x)) : []
      if (wholes.length) {
        groups.push(wholes.length === 1 ? quote(wholes[0]) : `(${wholes.map(quote).join(' OR ')})`)
        rows = Math.min(rows, wholes.reduce((a, x) => a + count(x), 0))
      } else if (t.kind === 'ident') {
        const parts = tokens.filter((x) => active.has(x))
        groups.push(parts.length === 1 ? quote(parts[0]) : `(${parts.map(quote).join(' AND ')})`)
        rows = Math.min(rows, ...parts.map(count))
      } else {
        groups.push(tokens.length === 1 ? quote(tokens[0]) : `(${tokens.map(quote).join(' OR ')})`)
        rows = Math.min(rows, tokens.reduce((a, x) => a + count(x), 0))
      }
    }
    return groups.length < 2 ? undefined : { expr: groups.join(' AND '), rows, postings }
  }

  /**
   * Gives the rows holding every query term the all-terms bonus, at their exact score. Ranking them costs a pass over
   * every term's posting list (bm25 counts the rows holding each) plus the rows themselves (at most as many as hold
   * the rarest term); when either is large, only the best candidates already found are tested (no bm25, no counts).
   */
  private applyBonus(all: AllTerms, where: Where, window: number, from: number, pool: Map<number, number>): void {
    if ((all.rows <= this.budget || from) && all.postings <= POSTINGS_PER_BUDGET * this.budget) {
      for (const r of this.rank(all.expr, where, window, from)) pool.set(r.r, Math.max(pool.get(r.r) ?? 0, -r.s) * this.bonus)
      return
    }
    // One statement per candidate: `rowid = ?` lets FTS5 seek each posting list (~15 µs a probe), where an IN list
    // made it walk them (ten times slower).
    const probe = this.stmt('SELECT 1 AS hit FROM fts WHERE fts MATCH ? AND fts.rowid = ?')
    for (const [r, score] of [...pool].sort((a, b) => b[1] - a[1]).slice(0, Math.max(30, window * 3))) {
      if (probe.get(all.expr, r)) pool.set(r, score * this.bonus)
    }
  }

  /** The rowid below which lie all but the `count` most recently indexed documents; 0 for all. */
  private newestRowid(count: number): number {
    if (count >= this.count_) return 0
    const row = this.stmt('SELECT rowid FROM doc ORDER BY rowid DESC LIMIT 1 OFFSET ?').get(count) as { rowid: number } | undefined
    return row ? row.rowid + 1 : 0
  }

  /**
   * Rows holding `token`, counted up to `cap` (a result equal to the cap means "at least that many": counting is a
   * pass over the posting list, and planning never needs to know more). Cached for planning; zero is never cached,
   * so a new document is found at once.
   */
  private df(token: string, cap = POSTINGS_PER_BUDGET * this.budget + 1): number {
    const cached = this.dfCache.get(token)
    if (cached !== undefined && (cached.n < cached.cap || cap <= cached.cap)) return cached.n
    let n = 0
    try {
      n = (this.stmt('SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)').get(quote(token), cap) as { n: number }).n
    } catch {
      n = 0
    }
    if (n > 0) this.dfCache.set(token, { n, cap })
    return n
  }

  /** Called after every write: planning statistics are refreshed once the corpus changed by ~2%. */
  private wrote(): void {
    this.mergeDebt++
    if (++this.writesSinceDf > Math.max(32, this.count_ * 0.02)) {
      this.dfCache.clear()
      this.writesSinceDf = 0
    }
  }

  /** Top `n` rows of one MATCH expression under the filters, best first (`s` is the boosted bm25, lower is better). */
  private rank(expr: string, where: Where, n: number, fromRowid = 0): Row[] {
    const b = this.boost
    const sql = `SELECT fts.rowid AS r, ${this.bm25} * (CASE fts.rowid & 7 WHEN 0 THEN ${b.raw} WHEN 1 THEN ${b.note} WHEN 2 THEN ${b.distilled} WHEN 4 THEN ${b.preference} ELSE ${b.manual} END)` +
      ` * (CASE (fts.rowid >> 3) & 3 WHEN ${STATUS_INDEX.superseded} THEN ${this.superseded} ELSE 1 END) AS s ` +
      `FROM fts${where.needsDoc ? ' JOIN doc ON doc.rowid = fts.rowid' : ''} WHERE fts MATCH ?${fromRowid ? ' AND fts.rowid >= ?' : ''}${where.sql} ORDER BY s, fts.rowid DESC LIMIT ?`
    try {
      return this.stmt(sql).all(expr, ...(fromRowid ? [fromRowid] : []), ...where.params, n) as unknown as Row[]
    } catch {
      // Our expressions are built from quoted tokens only, so this is not expected; a search must still never throw.
      return []
    }
  }

  private hit(meta: IndexedMeta, score: number, marks: string[], body?: string): SearchHit {
    const text = body ?? this.body(meta.id) ?? ''
    return {
      id: meta.id, title: meta.title, kind: meta.kind, score: Number(score.toPrecision(6)),
      snippet: snippet(stripTitle(text, meta.title), marks, { width: this.snippetWidth }),
      path: meta.path, cwd: meta.cwd, tags: meta.tags, tools: meta.tools, created: meta.created,
      ...(meta.status ? { status: meta.status } : {}), ...(meta.supersededBy ? { supersededBy: meta.supersededBy } : {}),
    }
  }

  /** Filtered documents without a query, paged; `total` counts them before paging. */
  list(filter: SearchFilter & { sort?: ListSort } = {}): { total: number; items: IndexedMeta[] } {
    const { offset, limit } = page(filter, DEFAULT_LIST_LIMIT, Number.MAX_SAFE_INTEGER)
    const where = this.where(filter, 'doc')
    if (where.none) return { total: 0, items: [] }
    const total = this.countWhere(where)
    if (limit === 0 || offset >= total) return { total, items: [] }
    const order = filter.sort === 'title' ? 'title COLLATE NOCASE, created_ms DESC, rowid DESC' : 'created_ms DESC, rowid DESC'
    const rows = this.stmt(`SELECT rowid, id, path, kind, title, cwd, created, mtime, tags, tools, session, turn, superseded_by FROM doc WHERE 1${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`)
      .all(...where.params, limit, offset) as unknown as DocRow[]
    return { total, items: rows.map(toMeta) }
  }

  /** How many documents were recorded with exactly this `cwd` (an indexed lookup; cheaper than facets for that). */
  workspaceCount(cwd: string): number {
    return (this.stmt('SELECT count(*) AS n FROM doc WHERE cwd = ?').get(String(cwd)) as { n: number }).n
  }

  /** How many documents the filter selects (paging ignored). */
  count(filter: SearchFilter = {}): number {
    const where = this.where(filter, 'doc')
    return where.none ? 0 : this.countWhere(where)
  }

  private countWhere(where: Where): number {
    if (!where.sql) return this.count_
    if (where.defaultOnly) return this.count_ - this.retired
    const row = this.stmt(`SELECT count(*) AS n FROM doc WHERE 1${where.sql}`).get(...where.params) as { n: number }
    return row.n
  }

  /** Counts per kind, tag, tool and workspace over the documents the filter selects (paging ignored). */
  facets(filter: SearchFilter = {}): Facets {
    const out: Facets = { kinds: {}, tags: {}, tools: {}, workspaces: {} }
    const where = this.where(filter, 'doc')
    if (where.none) return out
    for (const r of this.stmt(`SELECT kind AS k, count(*) AS n FROM doc WHERE 1${where.sql} GROUP BY kind`).all(...where.params) as Array<{ k: number; n: number }>) {
      out.kinds[KINDS[r.k]] = r.n
    }
    for (const r of this.stmt(`SELECT cwd AS k, count(*) AS n FROM doc WHERE 1${where.sql} GROUP BY cwd`).all(...where.params) as Array<{ k: string; n: number }>) {
      out.workspaces[r.k] = r.n
    }
    for (const r of this.stmt(`SELECT tag.id AS k, count(*) AS n FROM tag JOIN doc ON doc.rowid = tag.doc WHERE 1${where.sql} GROUP BY tag.id`).all(...where.params) as Array<{ k: number; n: number }>) {
      out.tags[this.names[r.k]] = r.n
    }
    for (const r of this.stmt(`SELECT tool.id AS k, count(*) AS n FROM tool JOIN doc ON doc.rowid = tool.doc WHERE 1${where.sql} GROUP BY tool.id`).all(...where.params) as Array<{ k: number; n: number }>) {
      out.tools[this.names[r.k]] = r.n
    }
    return out
  }

  /** Merges all FTS5 segments into one now, blocking (background merging does the same in small steps). */
  optimize(): void {
    this.flush()
    this.db.exec(`INSERT INTO fts (fts) VALUES ('optimize')`)
    this.mergeDebt = 0
  }

  /** Frees the database. The index cannot be used afterwards. */
  close(): void {
    if (this.closed) return
    this.flush()
    this.closed = true
    this.wake()
    this.statements.clear()
    this.db.close()
  }
}

/**
 * The `cwd` range a scope selects: the directory itself and everything below it (`/a/b` and `/a/b/…`, not `/a/bc`).
 * `lo`/`hi` bound the strings that start with `scope + sep` (the separator's successor closes the range).
 */
/**
 * A copy of `s` that shares no memory with the text it was cut from. An id parsed out of a file is a V8 "sliced
 * string" that keeps the whole file text alive; kept as a Map key for every document, that was 140 MB at 100k.
 */
function ownString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8')
}

/** FTS5's bm25 idf: log((N − n + 0.5) / (n + 0.5)), floored at 1e-6. */
function idf(total: number, n: number): number {
  return Math.max(1e-6, Math.log((total - n + 0.5) / (n + 0.5)))
}

/** Offset and limit from a filter: non-numbers and negatives fall back, a ranking's offset stops at {@link MAX_WINDOW}. */
function page(filter: SearchFilter | undefined, defaultLimit: number, maxOffset = MAX_WINDOW): { offset: number; limit: number } {
  const rawOffset = Number(filter?.offset ?? 0)
  const rawLimit = filter?.limit === undefined || filter?.limit === null ? defaultLimit : Number(filter.limit)
  const offset = Number.isFinite(rawOffset) && rawOffset > 0 ? Math.min(Math.floor(rawOffset), maxOffset) : 0
  const limit = Number.isFinite(rawLimit) && rawLimit >= 0 ? Math.min(Math.floor(rawLimit), MAX_WINDOW) : defaultLimit
  return { offset, limit }
}

function toMeta(row: DocRow): IndexedMeta {
  return {
    id: row.id, path: row.path, kind: KINDS[row.kind] ?? 'manual', title: row.title, cwd: row.cwd, created: row.created,
    tags: asStrings(JSON.parse(row.tags)), tools: asStrings(JSON.parse(row.tools)), mtimeMs: row.mtime,
    ...(row.session !== null ? { session: row.session } : {}), ...(row.turn !== null ? { turn: row.turn } : {}),
    ...(((row.rowid >> 3) & 3) ? { status: DOC_STATUSES[(row.rowid >> 3) & 3] } : {}),
    ...(row.superseded_by !== null ? { supersededBy: row.superseded_by } : {}),
  }
}

/** Drops a leading `# Title` line that repeats the title, so snippets start with content. */
function stripTitle(body: string, title: string): string {
  const m = /^\s*#[ \t]+(.+)\r?\n/.exec(body)
  return m && m[1].trim() === title.trim() ? body.slice(m[0].length) : body
}
