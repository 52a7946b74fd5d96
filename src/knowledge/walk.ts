/**
 * What the start-up scan decides before it parses anything: given the files under the root with their sizes and
 * times (./list-files.ts) and the persisted index's manifest, which files the index already holds as they are, which
 * entries lost their file, and which files must be read.
 * @module dsh-knowledge-sync/knowledge/walk
 */
import { sep } from 'node:path'
import { type ManifestRow, type ManifestTuple, manifestRow } from '../search/search-index.js'
import { changedSince } from './index-cache.js'
import { toRelative } from './paths.js'

/** What the reconcile tells its caller, row by row. */
export interface ReconcileSink {
  /** Its size and times match: the index holds it as it is. */
  kept(id: string, session: string | null): void
  /** Its file is gone (or is no longer a file the listing has: a link, under a linked folder), or it is a second entry for a path. */
  dropped(row: ManifestRow): void
}

/** The manifest read into memory by path (while the files are listed off the main thread), and second entries. */
export interface ManifestByPath {
  rows: Map<string, ManifestTuple>
  extra: ManifestTuple[]
}

/** Reads the whole manifest (streamed from the index) by path. */
export function readManifest(manifest: Iterable<ManifestTuple>): ManifestByPath {
  const rows = new Map<string, ManifestTuple>()
  const extra: ManifestTuple[] = []
  for (const row of manifest) {
    if (rows.has(row[1])) {
      extra.push(row)
      continue
    }
    rows.set(row[1], row)
  }
  return { rows, extra }
}

/**
 * Compares the manifest with the files on disk: entries whose file vanished are dropped, files whose size and times
 * match (and were not modified within the time granularity of being indexed) are kept as they are. Returns the files
 * to read: changed ones with their old entry, new ones with none.
 */
export function reconcileManifest(root: string, manifest: ManifestByPath, files: string[], times: Float64Array, sink: ReconcileSink): Map<string, ManifestRow | undefined> {
  const prefix = root + sep
  const { rows } = manifest
  const out = new Map<string, ManifestRow | undefined>()
  for (const row of manifest.extra) sink.dropped(manifestRow(row))
  for (let i = 0; i < files.length; i++) {
    const full = files[i]
    const path = sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(root, full)
    const row = rows.get(path)
    if (Number.isNaN(times[3 * i])) continue // gone since it was listed: its entry (if any) is dropped below
    if (row === undefined) {
      out.set(full, undefined)
      continue
    }
    rows.delete(path)
    if (changedSince(row, times[3 * i], times[3 * i + 1], times[3 * i + 2])) out.set(full, manifestRow(row))
    else sink.kept(row[0], row[2])
  }
  for (const row of rows.values()) sink.dropped(manifestRow(row))
  return out
}
