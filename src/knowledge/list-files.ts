/**
 * The document files under a root with their sizes and times: what the start-up scan lists before it reads anything.
 * Links are never followed, dot folders and `node_modules` are skipped, abandoned temporary files are swept.
 *
 * With a large persisted index, the listing runs in a worker thread ({@link listFilesOffThread}) while the main thread
 * reads the index's manifest: at 100k files the two take about as long (~0.4 s each), so the start waits for one of
 * them instead of both. This module is also that worker's entry, so it imports only Node's own modules (it is loaded
 * directly, as `.ts` under the tests and `.js` from lib/).
 * @module dsh-knowledge-sync/knowledge/list-files
 */
import { readdirSync, rmSync, statSync } from 'node:fs'
import { relative, sep } from 'node:path'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

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
        if (name.endsWith('.md')) invalid.set(relativeTo(root, full), `${relativeTo(root, full)}: is a symbolic link; links are never followed`)
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

/** Files and their sizes and times (see {@link statFiles}), and the links found where documents would be. */
export interface FileListing {
  files: string[]
  times: Float64Array
  invalid: Array<[path: string, reason: string]>
}

/** Lists and stats the root's documents in this thread. */
export async function listFiles(root: string): Promise<FileListing> {
  const invalid = new Map<string, string>()
  const files = await walkDocuments(root, invalid)
  return { files, times: statFiles(files), invalid: [...invalid] }
}

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './list-files.ts' : './list-files.js', import.meta.url)
const JOB = 'dsh-knowledge-sync:list-files'

/** What the worker posts back: the paths in one string (NUL never occurs in a path), the times transferred. */
interface ListingMessage {
  files: string
  times: Float64Array
  invalid: Array<[string, string]>
}

/**
 * {@link listFiles} in a worker thread; in this thread after all when a worker cannot be started or fails (the
 * listing is the same either way, only slower).
 */
export function listFilesOffThread(root: string): Promise<FileListing> {
  return new Promise<FileListing>((resolve) => {
    let settled = false
    const inThread = () => {
      if (settled) return
      settled = true
      resolve(listFiles(root))
    }
    let worker: Worker
    try {
      worker = new Worker(WORKER_URL, { workerData: { job: JOB, root }, resourceLimits: { maxOldGenerationSizeMb: 512 }, stdout: true, stderr: true })
    } catch {
      inThread()
      return
    }
    worker.once('message', (message: ListingMessage) => {
      if (settled) return
      settled = true
      resolve({ files: message.files ? message.files.split('\0') : [], times: message.times, invalid: message.invalid })
      void worker.terminate()
    })
    worker.once('error', inThread)
    worker.once('exit', inThread)
  })
}

// The worker's side.
if (!isMainThread && parentPort && (workerData as { job?: string } | undefined)?.job === JOB) {
  const port = parentPort
  const { root } = workerData as { root: string }
  void listFiles(root).then((listing) => {
    const message: ListingMessage = { files: listing.files.join('\0'), times: listing.times, invalid: listing.invalid }
    port.postMessage(message, [listing.times.buffer as ArrayBuffer])
  })
}

/** A root-relative path with `/` separators (as ./paths.ts `toRelative`, which this module cannot import). */
function relativeTo(root: string, full: string): string {
  return relative(root, full).split(sep).join('/')
}
