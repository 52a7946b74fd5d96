/**
 * What the start-up scan reads before it parses anything: the document files under the root (links never followed,
 * dot folders and `node_modules` skipped, abandoned temporary files swept), their sizes and times, and, when a
 * persisted index exists, which of them it already holds as they are.
 * @module dsh-knowledge-sync/knowledge/walk
 */
import { readdirSync, rmSync, statSync } from 'node:fs'
import { sep } from 'node:path'
import { type ManifestRow, type ManifestTuple, manifestRow } from '../search/search-index.js'
import { changedSince } from './index-cache.js'
import { toRelative } from './paths.js'

/** A temporary file older than this was left by a crashed writer. */
const STALE_TMP_MS = 60 * 60 * 1000
/** The longest the walk keeps the event loop before giving it a turn. */
const YIELD_MS = 8

/**
 * The `.md` files under the root, at most 8 folders deep. A symbolic link is never followed (see readRootFile); a
 * linked document is reported in `invalid` so nobody wonders where it went. Each folder is listed synchronously (at
 * 100k files in a few folders that is ~3× faster than a promise per folder), with a turn for the event loop between
 * folders once a few milliseconds have passed.
 */
export async function walkDocuments(root: string, invalid: Map<string, string>): Promise<string[]> {
  const files: string[] = []
  const now = Date.now()
  let turn = performance.now()
  const walk = async (dir: string, depth: number) => {
    if (depth > 8) return
    if (performance.now() - turn > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      turn = performance.now()
    }
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    // Names never hold a separator, so a plain concatenation is the joined path (path.join costs ~0.8 µs a file).
    const base = dir.endsWith(sep) ? dir : dir + sep
    for (const entry of entries) {
      const name = entry.name
      if (name.startsWith('.')) {
        // A temporary file left by a writer that crashed mid-write: swept once it is clearly abandoned.
        if (entry.isFile() && name.endsWith('.tmp')) {
          try {
            if (now - statSync(base + name).mtimeMs > STALE_TMP_MS) rmSync(base + name, { force: true })
          } catch {
            /* raced */
          }
        }
        continue
      }
      if (name === 'node_modules') continue
      const full = base + name
      if (entry.isSymbolicLink()) {
        if (name.endsWith('.md')) invalid.set(toRelative(root, full), `${toRelative(root, full)}: is a symbolic link; links are never followed`)
        continue
      }
      if (entry.isDirectory()) await walk(full, depth + 1)
      else if (entry.isFile() && name.endsWith('.md')) files.push(full)
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
  present(id: string, path: string, session: string | null): void
  /** Its size and times match: the index holds it as it is. */
  kept(id: string, session: string | null): void
  /** Its file is gone (or is no longer a file the walk lists: a link, under a linked folder, a second entry). */
  dropped(row: ManifestRow): void
}

/**
 * Compares the persisted index's manifest with the files on disk: entries whose file vanished are dropped, files
 * whose size and times match (and were not modified within the time granularity of being indexed) are kept as they
 * are. Returns the files to read: changed ones with their old entry, new ones with none.
 */
export function reconcileManifest(root: string, manifest: Iterable<ManifestTuple>, files: string[], times: Float64Array, sink: ReconcileSink): Map<string, ManifestRow | undefined> {
  const prefix = root + sep
  const onDisk = new Map<string, number>()
  for (let i = 0; i < files.length; i++) {
    const full = files[i]
    onDisk.set(sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(root, full), i)
  }
  const out = new Map<string, ManifestRow | undefined>()
  for (const row of manifest) {
    const path = row[1]
    const i = onDisk.get(path)
    if (i === undefined || Number.isNaN(times[3 * i])) {
      sink.dropped(manifestRow(row))
      continue
    }
    onDisk.delete(path)
    sink.present(row[0], path, row[2])
    if (changedSince(row, times[3 * i], times[3 * i + 1], times[3 * i + 2])) out.set(files[i], manifestRow(row))
    else sink.kept(row[0], row[2])
  }
  for (const i of onDisk.values()) out.set(files[i], undefined)
  return out
}
