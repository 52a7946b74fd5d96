/**
 * What the start-up scan decides before it parses anything: given the files under the root with their sizes and
 * times (./list-files.ts) and the persisted index's manifest, which files the index already holds as they are, which
 * entries lost their file, and which files must be read.
 * @module dsh-knowledge-sync/knowledge/index-cache/walk
 */
import { lstatSync } from 'node:fs'
import { join, sep } from 'node:path'
import type { ManifestRow, ManifestTuple } from '../../search/search-index.js'
import { changedSince, RACY_MS } from './index-cache.js'
import { toRelative } from '../documents/paths.js'

/** The persisted index's manifest: its rows, streamed, and a whole row by rowid. */
export interface Manifest {
  rows: Iterable<ManifestTuple>
  row(rowid: number): ManifestRow
}

/** What the reconcile tells its caller. */
export interface ReconcileSink {
  /** Its size and times match: the index holds it as it is. */
  kept(): void
  /** Its file is gone (or is no longer a file the listing has: a link, under a linked folder), or it is a second entry for a path. */
  dropped(row: ManifestRow): void
}

/**
 * Compares the persisted index's manifest with the files on disk: entries whose file vanished are dropped, files
 * whose size and times match (and were not modified within the time granularity of being indexed) are kept as they
 * are. Returns the files to read: changed ones with their old entry, new ones with none. The manifest is streamed,
 * never held: only the files are in a map. `listedAt`: when the listing of `files` began; an entry another process
 * indexed since then may hold a file the listing never saw, so it is dropped only if its file is not there now.
 */
export function reconcileManifest(
  root: string,
  manifest: Manifest,
  files: string[],
  times: Float64Array,
  sink: ReconcileSink,
  listedAt = Number.POSITIVE_INFINITY,
): Map<string, ManifestRow | undefined> {
  const prefix = root + sep
  const onDisk = new Map<string, number>()
  for (let i = 0; i < files.length; i++) {
    const full = files[i]
    onDisk.set(sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(root, full), i)
  }
  const out = new Map<string, ManifestRow | undefined>()
  // Dropped once the rows are read: a removal is a write, and a write begun while the manifest's statement still
  // reads the shared file fails at once (SQLite's busy handler does not wait for a stale read snapshot).
  const gone: ManifestRow[] = []
  for (const row of manifest.rows) {
    const i = onDisk.get(row[1])
    if (i === undefined && (row[6] ?? row[3]) >= listedAt - RACY_MS && lstatSync(join(root, row[1]), { throwIfNoEntry: false })?.isFile()) {
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
