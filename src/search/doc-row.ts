/**
 * What {@link SearchIndex.upsert} writes for one document, computed before the database is touched: the `doc` row's
 * columns, the token streams of the FTS5 columns ({@link indexStreams}), the tag and tool names, and whether the text
 * holds Chinese. Pure: no I/O, no index state; tokenizing (the only part that could throw on odd input) happens here.
 * @module dsh-knowledge-sync/search/doc-row
 */
import type { KnowledgeDoc } from '../types.js'
import { hasHan } from './expand/index.js'
import { plainBody } from './plain-text.js'
import { addedToSchema, asStrings, epoch, KIND_INDEX, REV_COLUMN, STATUS_INDEX, stripTitle } from './schema.js'
import { digestIndexes, RACY_MS, STAMP_COLUMN, STAMP_HASH_FN, STORED_HASH, stampHash } from './stamp-digest.js'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { FacetSnapshot } from './shared-file.js'
import { indexStreams } from './tokenize.js'

/** The `doc` columns every file has, after the rowid: {@link DocRowValues.columns}, in order. */
const BASE_COLUMNS = 'id, path, kind, title, cwd, created, created_ms, mtime, tags, tools, session, turn, superseded_by, relations, size, ctime, hash, seen'

/** How a file's `doc` rows are written: which columns outside the schema it has (schema.ts, addedToSchema), and the statements. */
export interface DocWrites {
  /** The revision column (schema.ts, REV_COLUMN). */
  rev: boolean
  /** The stored stamp hash (schema.ts, STAMP_COLUMN). */
  stamp: boolean
  /** The insert: the rowid, {@link DocRowValues.columns}, then the stamp hash and the revision where the file has them ({@link insertValues}). */
  insert: string
  /** A row's new stamp (mtime, size, ctime, content hash, seen, then the rowid), its stamp hash with it. */
  restamp: string
}

/**
 * The columns `db`'s `doc` table has besides the schema's, added now when they can be. `persistent`: a file (the
 * stamp hash serves only a file's digest, and only a file's connection has the hash function registered: index-file.ts).
 */
export function docWrites(db: DatabaseSync, persistent: boolean): DocWrites {
  const has = (sql: string, add: string) => addedToSchema((q) => db.prepare(q), sql, add)
  const rev = has(`SELECT 1 AS x FROM pragma_table_info('doc') WHERE name = '${REV_COLUMN}'`, `ALTER TABLE doc ADD COLUMN ${REV_COLUMN} INTEGER`)
  // The trigger goes with the column: a file that has one without the other (added by a process that died between)
  // gets the other now, and goes without the stored hash while it cannot.
  const stamp = persistent && STORED_HASH.every(([present, add]) => has(present, add))
  // The digest's indexes: only where the hash is stored (without them the digest is slower, never wrong).
  if (stamp) for (const [present, add] of digestIndexes(RACY_MS)) has(present, add)
  const columns = `${BASE_COLUMNS}${stamp ? `, ${STAMP_COLUMN}` : ''}${rev ? `, ${REV_COLUMN}` : ''}`
  const marks = columns.split(',').map(() => '?')
  const hashed = stamp ? `, ${STAMP_COLUMN} = ${STAMP_HASH_FN}(path, ?2, ?1, ?3)` : ''
  return {
    rev,
    stamp,
    insert: `INSERT INTO doc (rowid, ${columns}) VALUES (?, ${marks.join(',')})`,
    restamp: `UPDATE doc SET mtime = ?1, size = ?2, ctime = ?3, hash = ?4, seen = ?5${hashed} WHERE rowid = ?6`,
  }
}

/** The values of {@link DocWrites.insert} for one row. */
export function insertValues(writes: DocWrites, rowid: number, columns: DocRowValues['columns'], stampHash: number | null, version: number | undefined): Array<string | number | null> {
  const values = [rowid, ...columns]
  if (writes.stamp) values.push(stampHash)
  if (writes.rev) values.push(version ?? null)
  return values
}

/**
 * Whether `db` has the `doc_path` index, created now when it can be: which id a file holds is then a point query, and
 * the store keeps no table of every file in memory (~200 bytes a document: 200 MB at a million; knowledge/index-cache/
 * path-table.ts). Not part of SCHEMA, so an existing cache is not rebuilt for it; creating it on a file of a million
 * documents takes a few seconds, once.
 */
export function pathIndex(db: DatabaseSync): boolean {
  return addedToSchema((sql) => db.prepare(sql), "SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'doc_path'", 'CREATE INDEX doc_path ON doc (path)')
}

/** Rows read per {@link fillRevisions} call. */
const FILL_BATCH = 256

/**
 * Writes the revision `versionOf` knows into the next rows after rowid `from` that have none (rows of an older build),
 * in the open transaction; returns the last rowid looked at, undefined when no such row is left.
 */
export function fillRevisions(stmt: (sql: string) => StatementSync, from: number, versionOf: (id: string) => number | undefined): number | undefined {
  const rows = stmt(`SELECT rowid, id FROM doc WHERE rowid > ? AND ${REV_COLUMN} IS NULL ORDER BY rowid LIMIT ${FILL_BATCH}`).all(from) as Array<{ rowid: number; id: string }>
  const set = stmt(`UPDATE doc SET ${REV_COLUMN} = ? WHERE rowid = ?`)
  for (const row of rows) {
    const version = versionOf(row.id)
    if (version) set.run(version, row.rowid)
  }
  return rows.at(-1)?.rowid
}

/** Where `created` is in {@link DocRowValues.columns}: an upsert that keeps it keeps the rowid order a rebuild gives (dense rowids, oldest first). */
export const CREATED_COLUMN = 5
/** Where `cwd` is in {@link DocRowValues.columns}. */
export const CWD_COLUMN = 4

/** One document as the index stores it. */
export interface DocRowValues {
  id: string
  kind: number
  status: number
  body: string
  tags: string[]
  tools: string[]
  /** The `doc` columns after the rowid (see {@link DocWrites.insert}). */
  columns: Array<string | number | null>
  /** Its stamp's hash (schema.ts, STAMP_COLUMN), null without a stamp. */
  stampHash: number | null
  titleText: { words: string; wholes: string; chars: string }
  tagText: { words: string; wholes: string; chars: string }
  bodyText: { words: string; wholes: string; chars: string }
  /** The title or body holds Chinese characters (only looked for when `checkHan`). */
  han: boolean
}

/** The row of one document; `checkHan`: whether to look for Chinese (false once the index knows it has some). */
export function docRow(doc: KnowledgeDoc, checkHan: boolean): DocRowValues {
  const meta = doc.meta ?? ({} as KnowledgeDoc['meta'])
  const id = String(doc.id ?? meta.id)
  const kind = KIND_INDEX[meta.kind] ?? KIND_INDEX.manual
  const title = typeof meta.title === 'string' ? meta.title : id
  const cwd = typeof meta.cwd === 'string' ? meta.cwd : ''
  const tags = asStrings(meta.tags)
  const tools = asStrings(meta.tools)
  const mtime = Number.isFinite(doc.mtimeMs) ? doc.mtimeMs : 0
  const created = typeof meta.created === 'string' ? meta.created : new Date(mtime).toISOString()
  // What a person reads: the status notice, comments and link targets are the file's plumbing, not its text.
  const body = plainBody(typeof doc.body === 'string' ? doc.body : '')
  const session = typeof meta.session === 'string' ? meta.session : null
  const turn = typeof meta.turn === 'number' && Number.isFinite(meta.turn) ? meta.turn : null
  const stamp = doc.stamp
  const status = STATUS_INDEX[meta.status as string] ?? 0
  const supersededBy = status === STATUS_INDEX.superseded && typeof meta.superseded_by === 'string' ? meta.superseded_by : null
  const titleText = indexStreams(title)
  const tagText = indexStreams(tags.join(' '))
  // The body usually opens with `# <title>`: the title has its own column, so that line is not indexed twice.
  const bodyText = indexStreams(stripTitle(body, title))
  const han = checkHan && (hasHan(title) || hasHan(body))
  const createdMs = epoch(created, mtime)
  const columns = [
    id,
    String(doc.path ?? ''),
    kind,
    title,
    cwd,
    created,
    createdMs,
    mtime,
    JSON.stringify(tags),
    JSON.stringify(tools),
    session,
    turn,
    supersededBy,
    typeof doc.relations === 'string' ? doc.relations : null,
    stamp?.size ?? null,
    stamp?.ctimeMs ?? null,
    stamp?.hash ?? null,
    stamp?.seenMs ?? null,
  ]
  const stampHashed = stamp ? stampHash(String(columns[1]), stamp.size, mtime, stamp.ctimeMs) : null
  return { id, kind, status, body, tags, tools, columns, stampHash: stampHashed, titleText, tagText, bodyText, han }
}

type Streams = { words: string; wholes: string; chars: string }

/**
 * Writes a document's token streams: the FTS5 row (identifier wholes in columns of their own) and, when its text has
 * Han characters, their single characters in `fts_chars` (see chars.ts).
 */
export function insertTokens(stmt: (sql: string) => StatementSync, rowid: number, title: Streams, tags: Streams, body: Streams): void {
  stmt('INSERT INTO fts (rowid, title, tags, body, title_id, body_id) VALUES (?, ?, ?, ?, ?, ?)').run(rowid, title.words, tags.words + tags.wholes, body.words, title.wholes, body.wholes)
  if (title.chars || body.chars) stmt('INSERT INTO fts_chars (rowid, chars) VALUES (?, ?)').run(rowid, title.chars + body.chars)
}

/** Documents in indexing order, oldest first (by `created`, else mtime; ties keep their order). */
export function oldestFirst(docs: Iterable<KnowledgeDoc>): KnowledgeDoc[] {
  const at = (d: KnowledgeDoc): number => epoch(typeof d.meta?.created === 'string' ? d.meta.created : '', d.mtimeMs ?? 0)
  return [...docs]
    .map((d, i) => ({ d, i, t: at(d) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map(({ d }) => d)
}

/**
 * Deletes the rows of one document (by rowid), telling `dropTool` each tool name it used and `deleted` its file,
 * status and tools (a shared file's change log); returns whether it was retired.
 */
export function deleteDocRows(
  stmt: (sql: string) => StatementSync,
  rowid: number,
  dropTool: (name: string) => void,
  deleted: (path: string, retired: boolean, tools: string, snapshot: () => FacetSnapshot) => void,
): boolean {
  const row = stmt('SELECT id, tools, path, cwd FROM doc WHERE rowid = ?').get(rowid) as { id: string; tools: string; path: string; cwd: string }
  const retired = ((rowid >> 3) & 3) === STATUS_INDEX.retired
  const ids = (table: 'tag' | 'tool') => (stmt(`SELECT id FROM ${table} WHERE doc = ?`).all(rowid) as Array<{ id: number }>).map((r) => r.id)
  deleted(row.path, retired, row.tools, () => [rowid, row.id, row.cwd, ids('tag'), ids('tool')])
  for (const t of new Set(asStrings(JSON.parse(row.tools)))) dropTool(t)
  for (const table of ['fts', 'fts_chars', 'doc', 'body']) stmt(`DELETE FROM ${table} WHERE rowid = ?`).run(rowid)
  stmt('DELETE FROM tag WHERE doc = ?').run(rowid)
  stmt('DELETE FROM tool WHERE doc = ?').run(rowid)
  return retired
}
