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
import { lstatSync, readdirSync, rmSync, type Stats, statSync } from 'node:fs'
import { sep } from 'node:path'
import type { MessagePort } from 'node:worker_threads'
import { isGeneratedFile, toRelative } from '../documents/paths.js'
import { MANIFEST_DIR } from './originals-marker.js'
import { MAX_DEPTH, type MemoFolder, type MemoWalk, readTreeMemo, stillListed, writeTreeMemo } from './tree-memo.js'
import { stampHash, stampHashFrom } from '../../search/stamp-digest.js'

/** A temporary file older than this was left by a crashed writer. */
const STALE_TMP_MS = 60 * 60 * 1000
/** The longest the walk keeps the event loop before giving it a turn. */
const YIELD_MS = 8

/**
 * The `.md` files under the root, at most 8 folders deep. A symbolic link is never followed (see readRootFile); a
 * linked document is reported in `invalid` so nobody wonders where it went. Each folder is listed synchronously (at
 * 100k files in a few folders that is ~3× faster than a promise per folder), with a turn for the event loop between
 * folders once a few milliseconds have passed. `memo`: a folder whose times match the previous walk's memo is taken
 * from it, not listed (./tree-memo.ts); every folder walked goes into `memo.next`.
 */
export async function walkDocuments(root: string, invalid: Map<string, string>, memo?: MemoWalk): Promise<string[]> {
  const files: string[] = []
  const now = Date.now()
  let turn = performance.now()
  const walk = async (dir: string, rel: string, depth: number) => {
    if (depth > MAX_DEPTH) return
    if (performance.now() - turn > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      turn = performance.now()
    }
    let folder: MemoFolder
    try {
      folder = memo ? memoFolder(dir, rel, depth, memo) : listFolder(dir, depth, now)
    } catch {
      return
    }
    memo?.next.folders.set(rel, folder)
    if (folder.originals) return
    // Names never hold a separator, so a plain concatenation is the joined path (path.join costs ~0.8 µs a file).
    const base = dir.endsWith(sep) ? dir : dir + sep
    const under = rel ? `${rel}/` : ''
    for (const name of folder.links) invalid.set(toRelative(root, base + name), `${toRelative(root, base + name)}: is a symbolic link; links are never followed`)
    for (const name of folder.files) files.push(base + name)
    for (const name of folder.folders) await walk(base + name, under + name, depth + 1)
  }
  await walk(root, '', 0)
  return files
}

/**
 * The memo's entry for a folder whose times are still the ones it was listed with, else the folder listed again.
 * Throws for a folder that is no longer one (a link put in its place): it is not walked.
 */
function memoFolder(dir: string, rel: string, depth: number, memo: MemoWalk): MemoFolder {
  // The root itself is used as it resolves (the person chose it); below it, never through a link.
  const info = depth === 0 ? statSync(dir) : lstatSync(dir)
  if (!info.isDirectory()) throw new Error('not a folder')
  const known = memo.previous?.folders.get(rel)
  if (known && memo.previous && stillListed(memo.previous, known, info.mtimeMs, info.ctimeMs)) return known
  memo.listed++
  // Its times before its listing: an entry added meanwhile changes them again, and the next walk lists it again.
  return { ...listFolder(dir, depth, Date.now()), mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs }
}

/** Lists one folder: what the walk takes from it (times not set). Abandoned temporary files are swept on the way. */
function listFolder(dir: string, depth: number, now: number): MemoFolder {
  const entries = readdirSync(dir, { withFileTypes: true })
  const folder: MemoFolder = { mtimeMs: 0, ctimeMs: 0, originals: false, files: [], folders: [], links: [] }
  // The originals folder holds the person's files (Markdown too), never documents.
  if (depth > 0 && entries.some((e) => e.name === MANIFEST_DIR && e.isDirectory())) return { ...folder, originals: true }
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
    if (entry.isSymbolicLink()) {
      if (name.endsWith('.md')) folder.links.push(name)
    } else if (entry.isDirectory()) folder.folders.push(name)
    else if (entry.isFile() && name.endsWith('.md')) folder.files.push(name)
  }
  return folder
}

/**
 * `lstat`, or undefined when there is nothing to stat there (gone, or a file on the way: `lstatSync` throws ENOTDIR
 * even with `throwIfNoEntry: false`, where `statSync` does not).
 */
export function lstatSafe(full: string): Stats | undefined {
  try {
    return lstatSync(full)
  } catch {
    return undefined
  }
}

/** Size, mtime and ctime of file i at 3i…3i+2 (size NaN: gone, or cannot be stat'ed): no Stats object outlives its line. */
export function statFiles(files: string[]): Float64Array {
  const times = new Float64Array(files.length * 3)
  statInto({ files, times }, 0, files.length)
  return times
}

/**
 * Stats files `from`…`to` of a job into its times; with `hashes`, each file's stamp hash too (search/stamp-digest.ts,
 * of its path relative to `root`; NaN for a file gone), so that the reconcile's digest is a sum (walk.ts).
 */
function statInto(job: StatJob, from: number, to: number): void {
  const { files, times, hashes, root } = job
  const noThrow = { throwIfNoEntry: false } as const
  const prefix = root === undefined ? '' : root + sep
  for (let i = from; i < to; i++) {
    let info: Stats | undefined
    try {
      // Never through a link: the walk took files, and one swapped for a link since is then not the file it listed.
      info = lstatSync(files[i], noThrow)
    } catch {
      /* not a file we can stat (EACCES, ENOTDIR, ELOOP): as gone */
    }
    const size = info?.isFile() ? info.size : NaN
    times[3 * i] = size
    times[3 * i + 1] = info ? info.mtimeMs : 0
    times[3 * i + 2] = info ? info.ctimeMs : 0
    if (hashes && root !== undefined) {
      const full = files[i]
      const mtime = times[3 * i + 1]
      const ctime = times[3 * i + 2]
      if (Number.isNaN(size)) hashes[i] = NaN
      else if (sep === '/' && full.startsWith(prefix)) hashes[i] = stampHashFrom(full, prefix.length, size, mtime, ctime)
      else hashes[i] = stampHash(toRelative(root, full), size, mtime, ctime)
    }
  }
}

/** Files a thread stats at a time when two share a listing (~2–6 ms of work). */
const STAT_CHUNK = 1024

/**
 * A listing to stat: the paths, the times (and stamp hashes, with `root`: see {@link statInto}) it fills in. Shared by
 * two threads, the times and hashes are in shared memory, with two counters: the next chunk to take and the chunks done.
 */
export interface StatJob {
  files: string[]
  times: Float64Array
  hashes?: Float64Array
  root?: string
  counters?: Int32Array
}

/** A {@link StatJob} as it is posted to the other thread: the paths as one string (a copy of 100k strings each took ~20 ms on both sides). */
export type PostedStats = Omit<StatJob, 'files'> & { joined: string; counters: Int32Array }

/** The job another thread posted (see {@link statFilesShared}). */
export function receivedStats(posted: PostedStats): StatJob & { counters: Int32Array } {
  return { ...posted, files: posted.joined.split('\0') }
}

/**
 * Takes chunks of `job` and stats them until none is left; `turn`: give the event loop a turn between chunks (the
 * helping thread's). A chunk taken is finished before the function returns or yields, so a thread waiting for
 * the chunks done (see {@link statFilesShared}) never waits on one that is not being stat'ed.
 */
export function statChunks(job: StatJob & { counters: Int32Array }, turn?: (next: () => void) => void): void {
  const chunks = Math.ceil(job.files.length / STAT_CHUNK)
  for (;;) {
    const c = Atomics.add(job.counters, 0, 1)
    if (c >= chunks) return
    try {
      statInto(job, c * STAT_CHUNK, Math.min(job.files.length, (c + 1) * STAT_CHUNK))
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
 * Stats `files` (see {@link statInto}; `root`: with their stamp hashes), shared with the thread behind `helper` (a
 * port whose other end may run {@link statChunks} on the job it is sent, or never read it). Why: a stat is a system
 * call of ~2–6 µs on a virtual machine, 100k files ~0.3 s on one core; a caller that waits for the listing (a CLI
 * command with nobody watching) has a second core idle. This thread stats what the other does not take, then waits
 * for the chunks it took. Small listings stay here.
 */
export function statFilesShared(files: string[], helper: MessagePort | undefined, root?: string): { times: Float64Array; hashes?: Float64Array } {
  const shared = helper !== undefined && files.length >= 4 * STAT_CHUNK
  const memory = (n: number) => (shared ? new SharedArrayBuffer(n * 8) : new ArrayBuffer(n * 8))
  const job: StatJob = { files, root, times: new Float64Array(memory(files.length * 3)), hashes: root === undefined ? undefined : new Float64Array(memory(files.length)) }
  if (!shared) {
    statInto(job, 0, files.length)
    return job
  }
  const counters = new Int32Array(new SharedArrayBuffer(8))
  const posted: PostedStats = { joined: files.join('\0'), times: job.times, hashes: job.hashes, root, counters }
  helper.postMessage(posted)
  statChunks({ ...job, counters })
  const chunks = Math.ceil(files.length / STAT_CHUNK)
  for (let done = Atomics.load(counters, 1); done < chunks; done = Atomics.load(counters, 1)) Atomics.wait(counters, 1, done, 1000)
  return job
}

/** A listing: the files, their sizes and times (3 a file), and their stamp hashes when asked for (see {@link listFiles}). */
export interface Listing {
  files: string[]
  times: Float64Array
  hashes?: Float64Array
}

/** How {@link listFiles} lists. */
export interface ListOptions {
  /** With each file's stamp hash (for the reconcile's digest). */
  hashes?: boolean
  /** The tree memo's file (./tree-memo.ts): read before the walk, written after it when a folder was listed again. */
  memo?: string
  /** Told when the walk is over (before the stats). */
  walked?: () => void
  /** Told why the memo could not be written (the listing stands). */
  warn?: (message: string) => void
}

/** The root's document files with their sizes and times (see {@link statFilesShared}); links found go to `invalid`. */
export async function listFiles(root: string, invalid: Map<string, string>, helper?: MessagePort, options: ListOptions = {}): Promise<Listing> {
  const memo: MemoWalk | undefined = options.memo === undefined ? undefined : { previous: readTreeMemo(root, options.memo), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
  const files = await walkDocuments(root, invalid, memo)
  options.walked?.()
  const listing = { files, ...statFilesShared(files, helper, options.hashes ? root : undefined) }
  if (memo && options.memo && (memo.listed > 0 || memo.previous?.folders.size !== memo.next.folders.size))
    await writeTreeMemo(root, options.memo, memo.next).catch((error) => options.warn?.(`the tree memo was not written: ${(error as Error).message}`))
  return listing
}
