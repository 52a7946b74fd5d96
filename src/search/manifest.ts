/**
 * What a file-backed index tells the start-up reconcile about the files it reflects: the manifest (streamed as
 * arrays: at 100k rows node:sqlite builds arrays ~3× faster than objects, with far less garbage), one whole row by
 * rowid, and every document's id, file and session.
 * @module dsh-knowledge-sync/search/manifest
 */
import { MANIFEST_COLUMNS, type ManifestRow, type ManifestTuple } from './schema.js'
import { manifestDigestSql, RACY_MS, STAMP_COLUMN, STAMP_HASH_FN } from './stamp-digest.js'
import type { StatementSync } from 'node:sqlite'
import type { FileStamp } from '../types.js'
import type { SearchIndex } from './search-index.js'

/** Rows of a statement as arrays, streamed (pending writes committed first, so the rows are current). */
function arrays(index: SearchIndex, rows: StatementSync): Iterable<unknown> {
  index.flush()
  rows.setReturnArrays(true)
  return rows.iterate()
}

/** Every document's file as last indexed: the manifest a start-up reconcile compares the files with. */
export function manifestRows(index: SearchIndex): Iterable<ManifestTuple> {
  return arrays(index, index.stmt(`SELECT ${MANIFEST_COLUMNS} FROM doc`)) as Iterable<ManifestTuple>
}

/** The whole manifest row of one document (a file that changed or vanished). */
export function manifestRow(index: SearchIndex, rowid: number): ManifestRow {
  return index.stmt('SELECT id, path, session, size, mtime, ctime, hash, seen FROM doc WHERE rowid = ?').get(rowid) as unknown as ManifestRow
}

/** Rows of one page of the location stream below. */
const LOCATION_PAGE = 1024

/**
 * Id, file and session of every document, a page at a time by rowid: the tables loaded from it may be read a slice at
 * a time across event-loop turns (a background warm-up), two at once, and no statement stays open between two pages
 * (an open read would pin a snapshot, and a shared file's next write transaction could not begin on it).
 */
export function* locations(index: SearchIndex): Iterable<readonly [id: string, path: string, session: string | null]> {
  index.flush()
  const page = index.stmt(`SELECT rowid, id, path, session FROM doc WHERE rowid > ? ORDER BY rowid LIMIT ${LOCATION_PAGE}`)
  page.setReturnArrays(true)
  for (let after = -1; ; ) {
    const rows = page.all(after) as unknown as Array<[number, string, string, string | null]>
    for (const [, id, path, session] of rows) yield [id, path, session] as const
    if (rows.length < LOCATION_PAGE) return
    after = rows[rows.length - 1][0]
  }
}

/** Whether a file-backed index already holds this file as it is (another process indexed it): same path, size, times and content. */
export function indexedAs(index: SearchIndex, doc: { id: string; path: string; mtimeMs: number; stamp?: FileStamp }): boolean {
  if (!index.persistent || !doc.stamp) return false
  const row = index.stmt('SELECT path, size, mtime, ctime, hash FROM doc WHERE id = ?').get(doc.id) as
    | { path: string; size: number | null; mtime: number; ctime: number | null; hash: string | null }
    | undefined
  return row !== undefined && row.path === doc.path && row.size === doc.stamp.size && row.mtime === doc.mtimeMs && row.ctime === doc.stamp.ctimeMs && row.hash === doc.stamp.hash
}

/**
 * The indexed file times of a document: mtime, and size and ctime when the row has them (null on a row an older build
 * wrote). The watcher compares all three: a file rewritten in place with its old mtime put back (`touch -r`, `cp -p`,
 * `rsync -t`, an editor that keeps times) still has a new ctime, which nothing in user space can set.
 */
export function indexedStamp(index: SearchIndex, id: string): IndexedStamp | undefined {
  const row = index.stmt('SELECT mtime, size, ctime, seen, hash FROM doc WHERE id = ?').get(id) as
    | { mtime: number; size: number | null; ctime: number | null; seen: number | null; hash: string | null }
    | undefined
  return row && { mtimeMs: row.mtime, size: row.size, ctimeMs: row.ctime, seenMs: row.seen, hash: row.hash }
}

/** A row's file times, when it was indexed (`seen`), and the content hash of the text it was indexed from. */
export interface IndexedStamp {
  mtimeMs: number
  size: number | null
  ctimeMs: number | null
  seenMs: number | null
  hash: string | null
}

/**
 * Whether a file's times now are what the index holds for it (see {@link indexedStamp}): undefined when not; else
 * `racy` when they are within {@link RACY_MS} of its indexing (a second write in the same timestamp tick, of the same
 * size, leaves them equal: the content decides, `hash`), as the start-up reconcile rules (walk.ts, changedSince).
 */
export function stampMatch(indexed: IndexedStamp | undefined, size: number, mtimeMs: number, ctimeMs: number): { racy: boolean; hash: string | null } | undefined {
  if (!indexed || indexed.mtimeMs !== mtimeMs || (indexed.size !== null && indexed.size !== size) || (indexed.ctimeMs !== null && indexed.ctimeMs !== ctimeMs)) return undefined
  return { racy: indexed.seenMs === null || indexed.seenMs - mtimeMs < RACY_MS, hash: indexed.hash }
}

/** What a follower needs of a document another process indexed: its file, session, relations, kind and workspace. */
export function followedRow(index: SearchIndex, id: string): { path: string; session: string | null; relations: string | null; kind: number; cwd: string } | undefined {
  return index.stmt('SELECT path, session, relations, rowid & 7 AS kind, cwd FROM doc WHERE id = ?').get(id) as
    | { path: string; session: string | null; relations: string | null; kind: number; cwd: string }
    | undefined
}

/**
 * Which file holds which id, asked of an index with the `doc_path` index (SearchIndex.byPath): a file's id, an id's
 * file (the `doc_id` index of a file, the rowid map of memory, which has no `doc_id`), every indexed file.
 */
export function pathQueries(index: SearchIndex): { idAt(path: string): string | undefined; pathOf(id: string): string | undefined; paths(): string[] } {
  return {
    idAt: (path) => (index.stmt('SELECT id FROM doc WHERE path = ?').get(path) as { id: string } | undefined)?.id,
    pathOf: (id) => (index.persistent ? (index.stmt('SELECT path FROM doc WHERE id = ?').get(id) as { path: string } | undefined)?.path : index.get(id)?.path),
    paths: () => (index.stmt('SELECT path FROM doc').all() as Array<{ path: string }>).map((row) => row.path),
  }
}

/** The manifest's digest row (see {@link manifestDigestSql}), as an array, pending writes committed first. */
export function manifestDigest(index: SearchIndex, racyMs: number): unknown[] {
  index.flush()
  const digest = index.stmt(manifestDigestSql(racyMs, index.writes.stamp))
  digest.setReturnArrays(true)
  return digest.get() as unknown as unknown[]
}

/** Rows whose stored stamp hash {@link fillStampHashes} writes per call (a million rows: ~1–2 ms, at most ~7). */
const FILL_BATCH = 256

/**
 * Stores the stamp hash of the next rows after rowid `from` that lack one (written by an older build, or before the
 * file had the column: stamp-digest.ts, STAMP_COLUMN), so that the digest no longer hashes them one by one; returns
 * the last rowid looked at, undefined once none is left (or the file has no such column).
 */
export function fillStampHashes(index: SearchIndex, from: number): number | undefined {
  if (!index.writes.stamp) return undefined
  const rows = `SELECT rowid FROM doc WHERE rowid > ? AND ${STAMP_COLUMN} IS NULL AND size IS NOT NULL AND ctime IS NOT NULL ORDER BY rowid LIMIT ${FILL_BATCH}`
  return index.batch(() => {
    const rowids = (index.stmt(rows).all(from) as Array<{ rowid: number }>).map((row) => row.rowid)
    if (rowids.length) index.stmt(`UPDATE doc SET ${STAMP_COLUMN} = ${STAMP_HASH_FN}(path, size, mtime, ctime) WHERE rowid IN (SELECT value FROM json_each(?))`).run(JSON.stringify(rowids))
    return rowids.at(-1)
  })
}

/**
 * The manifest a start-up reconcile reads (knowledge/index-cache/walk.ts, `Manifest`): the rows streamed, a whole row
 * by rowid, and the digest with `racyMs` (the rows' stream is opened when it is asked for, not before).
 */
export function indexManifest(index: SearchIndex, racyMs: number): { readonly rows: Iterable<ManifestTuple>; row(rowid: number): ManifestRow; digest(): unknown[] } {
  return {
    get rows() {
      return manifestRows(index)
    },
    row: (rowid) => manifestRow(index, rowid),
    digest: () => manifestDigest(index, racyMs),
  }
}
