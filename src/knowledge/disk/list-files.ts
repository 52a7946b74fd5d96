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
import { readdirSync, rmSync, type Stats, statSync } from 'node:fs'
import { sep } from 'node:path'
import type { MessagePort } from 'node:worker_threads'
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

/** Size, mtime and ctime of file i at 3i…3i+2 (size NaN: gone, or cannot be stat'ed): no Stats object outlives its line. */
export function statFiles(files: string[]): Float64Array {
  const times = new Float64Array(files.length * 3)
  statInto(files, 0, files.length, times)
  return times
}

function statInto(files: string[], from: number, to: number, times: Float64Array): void {
  const noThrow = { throwIfNoEntry: false } as const
  for (let i = from; i < to; i++) {
    let info: Stats | undefined
    try {
      info = statSync(files[i], noThrow)
    } catch {
      /* not a file we can stat (EACCES, ENOTDIR, ELOOP): as gone */
    }
    times[3 * i] = info ? info.size : NaN
    times[3 * i + 1] = info ? info.mtimeMs : 0
    times[3 * i + 2] = info ? info.ctimeMs : 0
  }
}

/** Files a thread stats at a time when two share a listing (~2–6 ms of work). */
const STAT_CHUNK = 1024

/**
 * A listing two threads stat together: the paths (a copy each), the times in shared memory, and two counters in
 * shared memory: the next chunk to take and the chunks done.
 */
export interface SharedStats {
  files: string[]
  times: Float64Array
  counters: Int32Array
}

/**
 * Takes chunks of `job` and stats them until none is left; `turn`: give the event loop a turn between chunks (the
 * helping thread's). A chunk taken is finished before the function returns or yields, so a thread waiting for
 * the chunks done (see {@link statFilesShared}) never waits on one that is not being stat'ed.
 */
export function statChunks(job: SharedStats, turn?: (next: () => void) => void): void {
  const chunks = Math.ceil(job.files.length / STAT_CHUNK)
  for (;;) {
    const c = Atomics.add(job.counters, 0, 1)
    if (c >= chunks) return
    try {
      statInto(job.files, c * STAT_CHUNK, Math.min(job.files.length, (c + 1) * STAT_CHUNK), job.times)
    } finally {
      Atomics.add(job.counters, 1, 1)
      Atomics.notify(job.counters, 1)
    }
    if (turn) {
      turn(() => statChunks(job, turn))
      return
    }
  }
}

/**
 * {@link statFiles} shared with the thread behind `helper` (a port whose other end may run {@link statChunks} on the
 * job it is sent, or never read it). Why: a stat is a system call of ~3–6 µs on a virtual machine, 100k files ~0.3 s
 * on one core; a caller that waits for the listing (a CLI command with nobody watching) has a second core idle.
 * This thread stats what the other does not take, then waits for the chunks it took. Small listings stay here.
 */
export function statFilesShared(files: string[], helper: MessagePort | undefined): Float64Array {
  if (!helper || files.length < 4 * STAT_CHUNK) return statFiles(files)
  const job: SharedStats = { files, times: new Float64Array(new SharedArrayBuffer(files.length * 24)), counters: new Int32Array(new SharedArrayBuffer(8)) }
  helper.postMessage(job)
  statChunks(job)
  const chunks = Math.ceil(files.length / STAT_CHUNK)
  for (let done = Atomics.load(job.counters, 1); done < chunks; done = Atomics.load(job.counters, 1)) Atomics.wait(job.counters, 1, done, 1000)
  return job.times
}

/** The root's document files and their sizes and times (see {@link statFilesShared}); links found go to `invalid`. */
export async function listFiles(root: string, invalid: Map<string, string>, helper?: MessagePort): Promise<{ files: string[]; times: Float64Array }> {
  const files = await walkDocuments(root, invalid)
  return { files, times: statFilesShared(files, helper) }
}
