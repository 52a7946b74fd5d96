/**
 * The search index's tables and the vocabulary its other files share: the SQL schema, the rowid layout (the kind in
 * its low three bits, the status in the next two), the row ↔ metadata mapping, paging limits and small value helpers.
 *
 * Tables: `doc` (metadata and the file's stamp, one row per document), `body` (the text snippets are cut from),
 * `tag`/`tool` (document → interned name id, for filters and facets), `name` (those ids' names) and `fts`, a contentless FTS5 table (`content=''`,
 * `contentless_delete=1`): tokens are stored once, in the index. Rowids are dense, in indexing order, and carry the
 * kind in their low three bits and the status in the next two, so the kind boost and the superseded penalty need no
 * join, a kind filter is `rowid & 7 = k`, the default status filter (retired documents leave search) is
 * `(rowid >> 3) & 3 <> 2`, and "the newest documents" is a rowid range.
 * @module dsh-knowledge-sync/search/schema
 */
import type { StatementSync } from 'node:sqlite'
import type { DocKind, DocStatus, SearchFilter } from '../types.js'
import { DOC_KINDS, DOC_STATUSES } from '../wire.js'

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
  /** The store's revision of the indexed text, when the writer recorded it (see {@link REV_COLUMN}). */
  version?: number
}

/** Sort orders of a listing: newest first, or by title A→Z (case-insensitive). */
export type ListSort = 'created' | 'updated' | 'title'

/** One `doc` row as SELECTed by {@link DOC_COLUMNS}. */
export interface DocRow {
  rowid: number
  id: string
  path: string
  kind: number
  title: string
  cwd: string
  created: string
  mtime: number
  tags: string
  tools: string
  session: string | null
  turn: number | null
  superseded_by: string | null
  /** Absent when the file has no {@link REV_COLUMN}; null for a row written without it. */
  rev?: number | null
}

/** A document's relations record as the store gave it ({@link KnowledgeDoc.relations}). */
export interface RelationsRow {
  id: string
  relations: string
}

/** A document's file as the index last saw it (see {@link FileStamp}); `null`s for documents indexed without one. */
export interface ManifestRow {
  id: string
  path: string
  session: string | null
  size: number | null
  mtime: number
  ctime: number | null
  hash: string | null
  seen: number | null
}

/**
 * A manifest row as the index streams it for the start-up reconcile: an array (node:sqlite builds arrays ~3× faster
 * than objects) of what the comparison needs, one string per row; the whole {@link ManifestRow} is read by rowid for
 * the few files that changed or vanished.
 */
export type ManifestTuple = readonly [rowid: number, path: string, size: number | null, mtime: number, ctime: number | null, hashed: number, seen: number | null]

/** The manifest columns of {@link ManifestTuple}, in order. */
export const MANIFEST_COLUMNS = 'rowid, path, size, mtime, ctime, hash IS NOT NULL, seen'

/** The columns {@link toMeta} reads. */
export const DOC_COLUMNS = 'rowid, id, path, kind, title, cwd, created, mtime, tags, tools, session, turn, superseded_by'

/**
 * The store's revision of the text a row holds (`v:N`), written with the row, so that a search or a listing shows it
 * without the revision log. Why: a process that reused the index has read no file, so it knew a hit's revision only
 * by folding the whole log (a million documents: a 90 MB log, 0.7 s for the first search's ids, 2.9 s to fold on the
 * second). Added to an existing file by `ALTER TABLE` (not part of {@link SCHEMA}, whose text is the file's format:
 * a new format would rebuild every cache), so a row written by an older build, or a file opened read-only that
 * lacks it, falls back to the log.
 */
export const REV_COLUMN = 'rev'

/**
 * Whether `present` (a query that returns a row when it holds) holds of a database, after running `add` when it did
 * not: what a file gains outside {@link SCHEMA}, whose text is the file's format (so no cache is rebuilt for it): the
 * {@link REV_COLUMN} column, the `doc_path` index, the change log's facets column. A file that cannot take it now
 * (read-only, the write lock held, another process adding it this instant) goes without.
 */
export function addedToSchema(prepare: (sql: string) => StatementSync, present: string, add: string): boolean {
  const has = () => prepare(present).get() !== undefined
  if (has()) return true
  try {
    prepare(add).run()
  } catch {
    /* read-only, busy, or added by another process this instant */
  }
  return has()
}

// The kind is stored in a rowid's low three bits (DOC_KINDS order), the status in the next two (DOC_STATUSES order).
export const KINDS = DOC_KINDS
export const KIND_INDEX: Record<string, number> = Object.fromEntries(DOC_KINDS.map((kind, k) => [kind, k]))
export const STATUS_INDEX: Record<string, number> = Object.fromEntries(DOC_STATUSES.map((status, k) => [status, k]))
/** Rowids advance by this step per document; the bits below it hold `status * 8 + kind`. */
export const ROWID_STEP = 32
/** Curated above captured: wiki pages, then notes and preferences, then distilled, hand-written and raw rounds. */
export const DEFAULT_BOOST: Record<DocKind, number> = { raw: 1, note: 1.5, distilled: 1.3, manual: 1.2, preference: 1.5, page: 2 }
export const DEFAULT_SEARCH_LIMIT = 10
export const DEFAULT_LIST_LIMIT = 50
/** Paging never reaches further than this into a ranking (a model or a page never needs more). */
export const MAX_WINDOW = 1000

/** The tables, indexes and the FTS5 table (see the module header). */
export const SCHEMA = `
  CREATE TABLE doc (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, kind INTEGER NOT NULL, title TEXT NOT NULL,
    cwd TEXT NOT NULL, created TEXT NOT NULL, created_ms REAL NOT NULL, mtime REAL NOT NULL, tags TEXT NOT NULL, tools TEXT NOT NULL,
    session TEXT, turn INTEGER, superseded_by TEXT, relations TEXT, size INTEGER, ctime REAL, hash TEXT, seen REAL
  );
  CREATE INDEX doc_created ON doc (created_ms);
  CREATE INDEX doc_mtime ON doc (mtime);
  CREATE INDEX doc_cwd ON doc (cwd);
  CREATE INDEX doc_session ON doc (session, turn) WHERE session IS NOT NULL;
  CREATE TABLE body (rowid INTEGER PRIMARY KEY, text TEXT NOT NULL);
  CREATE TABLE tag (doc INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (doc, id)) WITHOUT ROWID;
  CREATE INDEX tag_by_id ON tag (id, doc);
  CREATE TABLE tool (doc INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (doc, id)) WITHOUT ROWID;
  CREATE INDEX tool_by_id ON tool (id, doc);
  CREATE TABLE name (id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, text TEXT NOT NULL);
  CREATE VIRTUAL TABLE fts USING fts5(
    title, tags, body, title_id, body_id, content = '', contentless_delete = 1, detail = full,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
  );
  CREATE VIRTUAL TABLE fts_chars USING fts5(chars, content = '', contentless_delete = 1, detail = full, tokenize = "unicode61");
`

export const finite = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback)
/** An FTS5 string literal: our own tokens only, so no query text can be a syntax error. */
export const quote = (token: string): string => `"${token.replace(/"/g, '""')}"`
export const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => x !== null && x !== undefined).map(String) : [])
export const epoch = (created: string, fallback: number): number => {
  const t = Date.parse(created)
  return Number.isNaN(t) ? fallback : t
}

/**
 * A copy of `s` that shares no memory with the text it was cut from. An id parsed out of a file is a V8 "sliced
 * string" that keeps the whole file text alive; kept as a Map key for every document, that was 140 MB at 100k.
 */
export function ownString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8')
}

/** Offset and limit from a filter: non-numbers and negatives fall back, a ranking's offset stops at {@link MAX_WINDOW}. */
export function page(filter: SearchFilter | undefined, defaultLimit: number, maxOffset = MAX_WINDOW): { offset: number; limit: number } {
  const rawOffset = Number(filter?.offset ?? 0)
  const rawLimit = filter?.limit === undefined || filter?.limit === null ? defaultLimit : Number(filter.limit)
  const offset = Number.isFinite(rawOffset) && rawOffset > 0 ? Math.min(Math.floor(rawOffset), maxOffset) : 0
  const limit = Number.isFinite(rawLimit) && rawLimit >= 0 ? Math.min(Math.floor(rawLimit), MAX_WINDOW) : defaultLimit
  return { offset, limit }
}

/** A `doc` row as metadata. */
export function toMeta(row: DocRow): IndexedMeta {
  return {
    id: row.id,
    path: row.path,
    kind: KINDS[row.kind] ?? 'manual',
    title: row.title,
    cwd: row.cwd,
    created: row.created,
    tags: asStrings(JSON.parse(row.tags)),
    tools: asStrings(JSON.parse(row.tools)),
    mtimeMs: row.mtime,
    ...(row.session !== null ? { session: row.session } : {}),
    ...(row.turn !== null ? { turn: row.turn } : {}),
    ...((row.rowid >> 3) & 3 ? { status: DOC_STATUSES[(row.rowid >> 3) & 3] } : {}),
    ...(row.superseded_by !== null ? { supersededBy: row.superseded_by } : {}),
    ...(typeof row.rev === 'number' ? { version: row.rev } : {}),
  }
}

/** Drops a leading `# Title` line that repeats the title, so snippets start with content. */
export function stripTitle(body: string, title: string): string {
  const m = /^\s*#[ \t]+(.+)\r?\n/.exec(body)
  return m && m[1].trim() === title.trim() ? body.slice(m[0].length) : body
}
