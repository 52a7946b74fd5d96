/**
 * What a file-backed index tells the start-up reconcile about the files it reflects: the manifest (streamed as
 * arrays: at 100k rows node:sqlite builds arrays ~3× faster than objects, with far less garbage), one whole row by
 * rowid, and every document's id, file and session.
 * @module dsh-knowledge-sync/search/manifest
 */
import { MANIFEST_COLUMNS, type ManifestRow, type ManifestTuple } from './schema.js'
import type { StatementSync } from 'node:sqlite'
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

/**
 * Id, file and session of every document, on a statement of its own: the tables loaded from it may be read a slice
 * at a time across event-loop turns (a background warm-up), two at once.
 */
export function locations(index: SearchIndex): Iterable<readonly [id: string, path: string, session: string | null]> {
  return arrays(index, index.prepare('SELECT id, path, session FROM doc')) as Iterable<readonly [string, string, string | null]>
}
