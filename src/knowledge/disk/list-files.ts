/**
 * The document files under a root with their sizes and times: what the start-up scan lists before it reads anything.
 * Links are never followed, dot folders and `node_modules` are skipped, abandoned temporary files are swept.
 *
 * A start over a large persisted index lists in a worker thread, where the comparison with the index's manifest runs
 * too, so that 100k paths never reach the main thread's heap (index-cache/reconcile-worker.ts; for memory: copying the
 * paths back was what made an earlier worker listing slower, 0.52 s against 0.37 s at 100k files). Imports only Node
 * and modules that import only Node, for that worker.
 * @module dsh-knowledge-sync/knowledge/disk/list-files
 */
import { readdirSync, rmSync, statSync } from 'node:fs'
import { sep } from 'node:path'
import { isGeneratedFile, toRelative } from '../documents/paths.js'
import { MANIFEST_DIR } from './originals-marker.js'

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
    // The originals folder holds the person's files (Markdown too), never documents.
    if (depth > 0 && entries.some((e) => e.name === MANIFEST_DIR && e.isDirectory())) return
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
      if (name === 'node_modules' || (depth === 0 && isGeneratedFile(name))) continue
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

/** The root's document files and their sizes and times (see {@link statFiles}); links found go to `invalid`. */
export async function listFiles(root: string, invalid: Map<string, string>): Promise<{ files: string[]; times: Float64Array }> {
  const files = await walkDocuments(root, invalid)
  return { files, times: statFiles(files) }
}
