/**
 * What the start-up scan decides before it parses anything: given the files under the root with their sizes and
 * times (./list-files.ts) and the persisted index's manifest, which files the index already holds as they are, which
 * entries lost their file, and which files must be read. Imports only Node and modules that import only Node: a worker
 * thread loads it from source in the tests (./reconcile-worker.ts).
 * @module dsh-knowledge-sync/knowledge/index-cache/walk
 */
import { realpathSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import type { ManifestRow, ManifestTuple } from '../../search/search-index.js'
import { RACY_MS, StampSums } from '../../search/stamp-digest.js'
import { toRelative } from '../documents/paths.js'
import { lstatSafe } from '../disk/list-files.js'
import { insideOriginals } from '../disk/originals-marker.js'
import type { MessagePort } from 'node:worker_threads'
import type { OffThreadReconcile } from './reconcile-worker.js'

/** How long after being stat'ed a file's times still cannot be trusted (search/stamp-digest.ts). */
export { RACY_MS } from '../../search/stamp-digest.js'

/**
 * Whether a file may differ from what the index holds. Size, mtime and ctime must all match (ctime cannot be set
 * back by `touch` or a restore, so a file put back with its old mtime still counts as changed), and the entry must
 * not be racy: a file indexed within {@link RACY_MS} of its modification gets its content checked once (its hash
 * compared; an unchanged text costs a read, not a re-index).
 */
export function changedSince(row: ManifestTuple, size: number, mtimeMs: number, ctimeMs: number): boolean {
  const [, , rowSize, mtime, ctime, hashed, seen] = row
  if (rowSize !== size || mtime !== mtimeMs || ctime !== ctimeMs || seen === null || !hashed) return true
  return seen - mtimeMs < RACY_MS
}

/**
 * The persisted index's manifest: its rows, streamed, and a whole row by rowid (off the main thread, just the rowid).
 * `offThread`: a worker thread's reconcile of this manifest, for a large index (./reconcile-worker.ts).
 */
export interface Manifest<Row = ManifestRow> {
  rows: Iterable<ManifestTuple>
  row(rowid: number): Row
  /** The manifest's digest row (search/stamp-digest.ts, `manifestDigestSql` with {@link RACY_MS}), if the index offers it. */
  digest?(): unknown[]
  offThread?: Promise<OffThreadReconcile>
  /** Lends this thread to `offThread`'s stats, for a caller that waits for it (see reconcile-worker.ts, `help`). */
  helpOffThread?(): void
  /**
   * Takes the reconcile back from `offThread` if its worker has not begun, for a one-shot caller that waits: this
   * thread lists and compares, the worker stats a share (see reconcile-worker.ts, `lead`). The port to share with.
   */
  leadOffThread?(): MessagePort | undefined
  /** The tree memo's file (disk/tree-memo.ts), beside the index file. */
  treeMemo?: string
}

/**
 * The reconcile without reading the manifest's rows, when the listing's digest is the index's (see
 * search/stamp-digest.ts): every row that is not racy then holds its file as it is, path by path, and nothing else
 * is on disk but the racy rows' files, compared one by one here as in the full reconcile. Undefined when the digests
 * differ, a file vanished between its listing and its stat, or the racy rows are too many: every row is compared.
 */
function digestMatch<Row>(root: string, manifest: Manifest<Row>, files: string[], times: Float64Array, sink: ReconcileSink<Row>, listedAt: number, hashes?: Float64Array) {
  let indexed: unknown, racyRows: unknown
  try {
    ;[indexed, racyRows] = manifest.digest?.() ?? []
  } catch {
    return undefined // a sum that would overflow (search/stamp-digest.ts)
  }
  if (typeof indexed !== 'string' || typeof racyRows !== 'string') return undefined
  const single = JSON.parse(racyRows) as Array<[rowid: number, path: string, seen: number | null, mtime: number]>
  const singlePath = new Map(single.map(([rowid, path]) => [path, rowid]))
  if (singlePath.size < single.length) return undefined
  const prefix = root + sep
  const at = new Map<number, number>()
  const sums = new StampSums()
  for (let i = 0; i < files.length; i++) {
    if (Number.isNaN(times[3 * i])) return undefined
    // The path only when it is needed: for a racy row's lookup, or a hash not taken with the stat (list-files.ts).
    const rel = singlePath.size || !hashes ? (sep === '/' && files[i].startsWith(prefix) ? files[i].slice(prefix.length) : toRelative(root, files[i])) : ''
    const rowid = singlePath.size ? singlePath.get(rel) : undefined
    if (rowid !== undefined) at.set(rowid, i)
    else if (hashes) sums.addHash(hashes[i], times[3 * i])
    else sums.add(rel, times[3 * i], times[3 * i + 1], times[3 * i + 2])
  }
  if (sums.text !== indexed) return undefined
  for (let k = 0; k < files.length - at.size; k++) sink.kept()
  const out = new Map<string, Row | undefined>()
  const gone: Row[] = []
  for (const [rowid, path, seen, mtime] of single) {
    const i = at.get(rowid)
    if (i !== undefined) out.set(files[i], manifest.row(rowid))
    // Written by another process after the listing (as in the full reconcile): its writer's entry, not a drop.
    else if (writtenMeanwhile(root, path, seen, mtime, listedAt)) sink.kept()
    else gone.push(manifest.row(rowid))
  }
  for (const row of gone) sink.dropped(row)
  return out
}

/**
 * Whether an entry the listing did not see was written since the listing began (its seen time, else its mtime, at
 * most RACY_MS before) and its file is there now: its writer's, not a drop. (An entry whose file has not landed yet
 * is dropped here; the store keeps its own writes in flight: view/files.ts, reconcile.)
 */
function writtenMeanwhile(root: string, path: string, seen: number | null, mtime: number, listedAt: number): boolean {
  return (seen ?? mtime) >= listedAt - RACY_MS && listable(root, path)
}

/**
 * Whether `path` is a file the walk would list: a regular file, in no originals folder and under no linked folder.
 * Why not only "a file is there": a folder marked as originals (or swapped for a link) just after its documents were
 * indexed leaves their files in place, and they are no longer documents.
 */
function listable(root: string, path: string): boolean {
  const full = join(root, path)
  if (lstatSafe(full)?.isFile() !== true || insideOriginals(root, path)) return false
  try {
    return realpathSync.native(dirname(full)) === join(realpathSync.native(root), dirname(path))
  } catch {
    return false
  }
}

/** What the reconcile tells its caller. */
export interface ReconcileSink<Row = ManifestRow> {
  /** Its size and times match: the index holds it as it is. */
  kept(): void
  /** Its file is gone (or is no longer a file the listing has: a link, under a linked folder), or it is a second entry for a path. */
  dropped(row: Row): void
}

/**
 * Compares the persisted index's manifest with the files on disk: entries whose file vanished are dropped, files
 * whose size and times match (and were not modified within the time granularity of being indexed) are kept as they
 * are. Returns the files to read: changed ones with their old entry, new ones with none. The manifest is streamed,
 * never held: only the files are in a map. `listedAt`: when the listing of `files` began; an entry another process
 * indexed since then may hold a file the listing never saw, so it is dropped only if its file is not there now.
 * `hashes`: each file's stamp hash, taken with its stat (disk/list-files.ts), for the digest.
 */
export function reconcileManifest<Row = ManifestRow>(
  root: string,
  manifest: Manifest<Row>,
  files: string[],
  times: Float64Array,
  sink: ReconcileSink<Row>,
  listedAt = Number.POSITIVE_INFINITY,
  hashes?: Float64Array,
): Map<string, Row | undefined> {
  const quick = digestMatch(root, manifest, files, times, sink, listedAt, hashes)
  if (quick) return quick
  const prefix = root + sep
  const onDisk = new Map<string, number>()
  for (let i = 0; i < files.length; i++) {
    const full = files[i]
    onDisk.set(sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(root, full), i)
  }
  const out = new Map<string, Row | undefined>()
  // Dropped once the rows are read: a removal is a write, and a write begun while the manifest's statement still
  // reads the shared file fails at once (SQLite's busy handler does not wait for a stale read snapshot).
  const gone: Row[] = []
  for (const row of manifest.rows) {
    const i = onDisk.get(row[1])
    if (i === undefined && writtenMeanwhile(root, row[1], row[6], row[3], listedAt)) {
      // A round another process wrote after the listing: its file is there, the entry is its writer's (not a drop).
      onDisk.set(row[1], -1)
      sink.kept()
      continue
    }
    if (i === undefined || i < 0 || Number.isNaN(times[3 * i])) {
      gone.push(manifest.row(row[0]))
      continue
    }
    // Matched: a second entry for this path is dropped, not matched again.
    onDisk.set(row[1], -1)
    if (changedSince(row, times[3 * i], times[3 * i + 1], times[3 * i + 2])) out.set(files[i], manifest.row(row[0]))
    else sink.kept()
  }
  for (const i of onDisk.values()) if (i >= 0) out.set(files[i], undefined)
  for (const row of gone) sink.dropped(row)
  return out
}
