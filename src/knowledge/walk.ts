/**
 * What the start-up scan reads before it parses anything: the document files under the root (links never followed,
 * dot folders and `node_modules` skipped, abandoned temporary files swept), their sizes and times, and, when a
 * persisted index exists, which of them it already holds as they are.
 * @module dsh-knowledge-sync/knowledge/walk
 */
import { rmSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join, sep } from 'node:path'
import type { ManifestRow } from '../search/search-index.js'
import { changedSince } from './index-cache.js'
import { toRelative } from './paths.js'

/** A temporary file older than this was left by a crashed writer. */
const STALE_TMP_MS = 60 * 60 * 1000

/**
 * The `.md` files under the root, at most 8 folders deep. A symbolic link is never followed (see readRootFile); a
 * linked document is reported in `invalid` so nobody wonders where it went.
 */
export async function walkDocuments(root: string, invalid: Map<string, string>): Promise<string[]> {
  const files: string[] = []
  const now = Date.now()
  const walk = async (dir: string, depth: number) => {
    if (depth > 8) return
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const full = join(dir, entry.name)
      if (entry.name.startsWith('.')) {
        // A temporary file left by a writer that crashed mid-write: swept once it is clearly abandoned.
        if (entry.isFile() && entry.name.endsWith('.tmp')) {
          try {
            if (now - statSync(full).mtimeMs > STALE_TMP_MS) rmSync(full, { force: true })
          } catch {
            /* raced */
          }
        }
        continue
      }
      if (entry.name === 'node_modules') continue
      if (entry.isSymbolicLink()) {
        if (entry.name.endsWith('.md')) invalid.set(toRelative(root, full), `${toRelative(root, full)}: is a symbolic link; links are never followed`)
        continue
      }
      if (entry.isDirectory()) await walk(full, depth + 1)
      else if (entry.isFile() && entry.name.endsWith('.md')) files.push(full)
    }
  }
  await walk(root, 0)
  return files
}

/** Size, mtime and ctime of file i at 3i…3i+2 (size NaN: gone): no Stats object outlives its line. */
export function statFiles(files: string[]): Float64Array {
  const times = new Float64Array(files.length * 3)
  const noThrow = { throwIfNoEntry: false } as const
  for (let i = 0; i < files.length; i++) {
    const info = statSync(files[i], noThrow)
    times[3 * i] = info ? info.size : NaN
    times[3 * i + 1] = info ? info.mtimeMs : 0
    times[3 * i + 2] = info ? info.ctimeMs : 0
  }
  return times
}

/** What {@link reconcileManifest} tells its caller, row by row (the manifest is streamed, never held). */
export interface ReconcileSink {
  /** The file is there (its entry is the document's). */
  present(row: ManifestRow): void
  /** Its size and times match: the index holds it as it is. */
  kept(row: ManifestRow): void
  /** Its file is gone (or is no longer a file the walk lists: a link, under a linked folder, a second entry). */
  dropped(row: ManifestRow): void
}

/**
 * Compares the persisted index's manifest with the files on disk: entries whose file vanished are dropped, files
 * whose size and times match (and were not modified within the time granularity of being indexed) are kept as they
 * are. Returns the files to read: changed ones with their old entry, new ones with none.
 */
export function reconcileManifest(root: string, manifest: Iterable<ManifestRow>, files: string[], times: Float64Array, sink: ReconcileSink): Map<string, ManifestRow | undefined> {
  const prefix = root + sep
  const onDisk = new Map<string, number>()
  for (let i = 0; i < files.length; i++) {
    const full = files[i]
    onDisk.set(sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(root, full), i)
  }
  const out = new Map<string, ManifestRow | undefined>()
  for (const row of manifest) {
    const i = onDisk.get(row.path)
    if (i === undefined || Number.isNaN(times[3 * i])) {
      sink.dropped(row)
      continue
    }
    onDisk.delete(row.path)
    sink.present(row)
    if (changedSince(row, times[3 * i], times[3 * i + 1], times[3 * i + 2])) out.set(files[i], row)
    else sink.kept(row)
  }
  for (const i of onDisk.values()) out.set(files[i], undefined)
  return out
}
