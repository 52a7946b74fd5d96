/**
 * The start-up reconcile of a large persisted index, in a worker thread: the listing of the root (a path and a stat
 * per file, ../disk/list-files.ts) and its comparison with the index's manifest (./walk.ts). Why: on the main thread,
 * at 100k documents, it left ~60 MB more RSS behind even after a full garbage collection. 100k paths that stay alive
 * while the listing runs grow V8's young generation to its maximum (32 MB), and the old-space pages they were promoted
 * to stay mapped. V8 gives that memory back only after ~30 s idle. A worker's heap goes away with the worker. The main
 * thread gets back only what it acts on: the files to read (with their old entry's rowid) and the entries to drop.
 *
 * The worker reads the manifest through its own read-only connection, in one snapshot, as the main thread did; the
 * main thread reads the whole rows it needs afterwards, and an entry another process removed meanwhile is just not
 * there any more. The store starts the worker before it opens the index, so that the worker's own start overlaps
 * the open. Below {@link OFF_THREAD_MIN_BYTES}, or if the worker fails, the main thread reconciles as before.
 * @module dsh-knowledge-sync/knowledge/index-cache/reconcile-worker
 */
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { ManifestRow } from '../../search/search-index.js'
import { MANIFEST_COLUMNS } from '../../search/schema.js'
import { listFiles } from '../disk/list-files.js'
import { FROM_SOURCE, moduleUrl, WORKER_PRELUDE } from '../disk/worker-code.js'
import type { StoreLogger } from '../store-types.js'
import { type Manifest, type ReconcileSink, reconcileManifest } from './walk.js'

/**
 * From an index file this large (about 16k documents of bench/generate-rounds.mjs's size) the reconcile runs in a
 * worker. Below it the memory saved is small, and a worker's start (~0.1 s of CPU) is a larger share of a small start.
 */
export const OFF_THREAD_MIN_BYTES = 32 * 1024 * 1024

/** What the worker found. */
export interface OffThreadReconcile {
  /** The files to read: changed ones (`rowids[i]`: their entry) and new ones (`rowids[i]` = -1). */
  files: string[]
  rowids: number[]
  /** Size, mtime and ctime of `files[i]` at 3i…3i+2 (see statFiles). */
  times: Float64Array
  /** Entries whose file is gone, or second entries for a path (rowids, in manifest order). */
  gone: number[]
  /** Files the index holds as they are. */
  kept: number
  /** Files that cannot be documents (links), with why (see walkDocuments). */
  invalid: Array<[string, string]>
}

const LIST_URL = moduleUrl('../disk/list-files', import.meta.url)
const WALK_URL = moduleUrl('./walk', import.meta.url)

// CommonJS, evaluated in the worker after the store's worker prelude (../disk/worker-code.ts).
const WORKER = `${WORKER_PRELUDE}
const { parentPort, workerData } = require('node:worker_threads')
const { root, file, sql, listUrl, walkUrl } = workerData
;(async () => {
  const { listFiles } = await import(listUrl)
  const { reconcileManifest } = await import(walkUrl)
  const { DatabaseSync } = require('node:sqlite')
  const invalid = new Map()
  const listedAt = Date.now()
  const { files, times } = await listFiles(root, invalid)
  const db = new DatabaseSync(file, { readOnly: true })
  let kept = 0
  const gone = []
  let out
  try {
    db.exec('PRAGMA busy_timeout = 10000')
    const rows = db.prepare(sql)
    rows.setReturnArrays(true)
    const manifest = { rows: rows.iterate(), row: (rowid) => rowid }
    out = reconcileManifest(root, manifest, files, times, { kept: () => kept++, dropped: (rowid) => gone.push(rowid) }, listedAt)
  } finally {
    db.close()
  }
  const read = [...out.keys()]
  const at = new Map()
  if (read.length) for (let i = 0; i < files.length; i++) at.set(files[i], i)
  const readTimes = new Float64Array(read.length * 3)
  read.forEach((full, k) => readTimes.set(times.subarray(3 * at.get(full), 3 * at.get(full) + 3), 3 * k))
  const rowids = read.map((full) => out.get(full) ?? -1)
  parentPort.postMessage({ files: read, rowids, times: readTimes, gone, kept, invalid: [...invalid] }, [readTimes.buffer])
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }))
`

/** The files a start-up scan must read, with their entries in the index (undefined: a new file). */
export interface Reconciled {
  files: string[]
  /** Size, mtime and ctime of `files[i]` at 3i…3i+2. */
  times: Float64Array
  prior: Map<string, ManifestRow | undefined>
  /** Whether the worker did it. */
  offThread: boolean
}

/**
 * Lists the root and compares it with the persisted index's manifest (see {@link reconcileManifest}); links found go
 * to `invalid`. What a worker thread found for this manifest is used if it has one, else (or if it failed) it is done here.
 */
export async function reconcileRoot(root: string, manifest: Manifest, invalid: Map<string, string>, sink: ReconcileSink, logger: StoreLogger): Promise<Reconciled> {
  if (manifest.offThread) {
    try {
      const off = await manifest.offThread
      for (const [rel, why] of off.invalid) invalid.set(rel, why)
      for (let k = 0; k < off.kept; k++) sink.kept()
      // The whole rows, from this thread's connection: one another process removed since the worker's snapshot is
      // gone already (a file that changed is then new).
      const prior = new Map(off.files.map((full, i) => [full, off.rowids[i] < 0 ? undefined : (manifest.row(off.rowids[i]) ?? undefined)]))
      for (const rowid of off.gone) {
        const row = manifest.row(rowid)
        if (row) sink.dropped(row)
      }
      return { files: off.files, times: off.times, prior, offThread: true }
    } catch (error) {
      // Ended by its store (closed): nothing is reconciled, here or there.
      if (error instanceof ReconcileCancelled) throw error
      logger.debug('the reconcile worker failed (%s); reconciling on the main thread', (error as Error).message)
    }
  }
  const listedAt = Date.now()
  const { files, times } = await listFiles(root, invalid)
  return { files, times, prior: reconcileManifest(root, manifest, files, times, sink, listedAt), offThread: false }
}

/** A reconcile under way in a worker thread. */
export interface OffThread {
  result: Promise<OffThreadReconcile>
  /**
   * Ends the worker if it is still running (its result is not wanted); its result then rejects with
   * {@link ReconcileCancelled}, unhandled by nobody, and a scan waiting for it ends without reconciling.
   */
  cancel(): void
}

/** The reconcile was ended by its caller (the store closed during a check in the background). */
export class ReconcileCancelled extends Error {
  constructor() {
    super('the reconcile was cancelled')
  }
}

/**
 * Starts the reconcile of `root` against the index file `file` in a worker thread, if the file is large enough (see
 * {@link OFF_THREAD_MIN_BYTES}). A worker that cannot start leaves the reconcile to the caller's thread (undefined).
 */
export function reconcileOffThread(root: string, file: string, minBytes = OFF_THREAD_MIN_BYTES, logger?: StoreLogger): OffThread | undefined {
  if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) < minBytes) return undefined
  const workerData = { root, file, sql: `SELECT ${MANIFEST_COLUMNS} FROM doc`, listUrl: LIST_URL, walkUrl: WALK_URL, fromSource: FROM_SOURCE }
  let worker: Worker
  try {
    worker = new Worker(WORKER, { eval: true, workerData, stdout: false, stderr: false })
  } catch (error) {
    logger?.debug('no reconcile worker: %s', (error as Error).message)
    return undefined
  }
  let cancelled = false
  const result = new Promise<OffThreadReconcile>((resolve, reject) => {
    let answer: OffThreadReconcile | { error: string } | undefined
    worker.once('message', (message: OffThreadReconcile | { error: string }) => (answer = message))
    worker.once('error', reject)
    // Settled once the worker is gone, so that its heap is too.
    worker.once('exit', (code) => {
      if (cancelled) reject(new ReconcileCancelled())
      else if (answer && !('error' in answer)) resolve(answer)
      else reject(new Error(answer ? answer.error : `the reconcile worker exited with ${code}`))
    })
  })
  return {
    result,
    cancel() {
      cancelled = true
      result.catch(() => {})
      void worker.terminate()
    },
  }
}
