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
import { lstatSync, type Stats } from 'node:fs'
import { dirname, join } from 'node:path'
import { type MessagePort, MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import type { ManifestRow } from '../../search/search-index.js'
import { MANIFEST_COLUMNS } from '../../search/schema.js'
import { listFiles, type PostedStats, receivedStats, statChunks } from '../disk/list-files.js'
import { TREE_MEMO_FILE } from '../disk/tree-memo.js'
import { FROM_SOURCE, moduleUrl, WORKER_PRELUDE } from '../disk/worker-code.js'
import type { StoreLogger } from '../store-types.js'
import { type Manifest, RACY_MS, type ReconcileSink, reconcileManifest } from './walk.js'

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
  /** Where the worker's time went, for the debug log. */
  phases: string
}

/** The tree memo's file beside the index file `file` (../disk/tree-memo.ts): a cache of the same root, kept with it. */
export function treeMemoFile(file: string): string {
  return join(dirname(file), TREE_MEMO_FILE)
}

/**
 * What a manifest of the index file `file` gains from `offThread`, a worker's reconcile of it (see Manifest): the
 * result, the help of a caller that waits, the lead taken back by a one-shot caller (`oneShot`: a CLI command), and
 * the tree memo beside the file.
 */
export function offThreadParts(offThread: OffThread | undefined, file: string, digest: () => unknown[], oneShot: boolean): Partial<Manifest> {
  return {
    offThread: offThread?.result,
    helpOffThread: offThread && (() => offThread.help(digest)),
    leadOffThread: offThread && oneShot ? () => offThread.lead() : undefined,
    treeMemo: treeMemoFile(file),
  }
}

const LIST_URL = moduleUrl('../disk/list-files', import.meta.url)
const WALK_URL = moduleUrl('./walk', import.meta.url)
const DIGEST_URL = moduleUrl('../../search/stamp-digest', import.meta.url)

// Evaluated in the worker after the store's worker prelude (../disk/worker-code.ts).
const WORKER = `${WORKER_PRELUDE}
const { parentPort, workerData, receiveMessageOnPort } = process.getBuiltinModule('node:worker_threads')
const { root, file, sql, racyMs, listUrl, walkUrl, digestUrl, helper, claim, memo } = workerData
;(async () => {
  const { listFiles, receivedStats, statChunks } = await import(listUrl)
  const { registerStampDigest, manifestDigestSql, storesStampHash } = await import(digestUrl)
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite')
  const connect = () => {
    const db = new DatabaseSync(file, { readOnly: true })
    registerStampDigest(db)
    db.exec('PRAGMA busy_timeout = 10000')
    return db
  }
  const digestOf = (db) => {
    const row = db.prepare(manifestDigestSql(racyMs, storesStampHash(db)))
    row.setReturnArrays(true)
    return row.get()
  }
  if (Atomics.compareExchange(claim, 0, 0, 1) !== 0) {
    // The caller took the reconcile back (see lead): this thread reads the index's digest for it while it lists, then
    // stats the share it takes of its listing (a message handled once this turn is over).
    helper.once('message', (job) => (statChunks(receivedStats(job)), helper.close()))
    try {
      const db = connect()
      try {
        helper.postMessage({ digest: digestOf(db) })
      } finally {
        db.close()
      }
    } catch {
      // The caller reads its own.
    }
    return
  }
  const { reconcileManifest } = await import(walkUrl)
  const invalid = new Map()
  const listedAt = Date.now()
  const at0 = performance.now()
  let at1 = at0
  const { files, times, hashes } = await listFiles(root, invalid, helper, { hashes: true, memo, walked: () => (at1 = performance.now()) })
  const at2 = performance.now()
  let every = false
  let digestMs = 0
  let handedOver = false
  const db = connect()
  let kept = 0
  const gone = []
  let out
  try {
    const rows = db.prepare(sql)
    rows.setReturnArrays(true)
    const digest = () => {
      // The digest the waiting caller's thread read meanwhile (see help), else this connection's.
      const handed = receiveMessageOnPort(helper)?.message
      if (handed) return (handedOver = true), handed
      const t = performance.now()
      try {
        return digestOf(db)
      } finally {
        digestMs = performance.now() - t
      }
    }
    const manifest = { get rows() { return (every = true), rows.iterate() }, row: (rowid) => rowid, digest }
    out = reconcileManifest(root, manifest, files, times, { kept: () => kept++, dropped: (rowid) => gone.push(rowid) }, listedAt, hashes)
  } finally {
    db.close()
    helper.close()
  }
  const read = [...out.keys()]
  const at = new Map()
  if (read.length) for (let i = 0; i < files.length; i++) at.set(files[i], i)
  const readTimes = new Float64Array(read.length * 3)
  read.forEach((full, k) => readTimes.set(times.subarray(3 * at.get(full), 3 * at.get(full) + 3), 3 * k))
  const rowids = read.map((full) => out.get(full) ?? -1)
  const ms = (x) => Math.round(x)
  const phases = \`start \${ms(at0)} ms, walk \${ms(at1 - at0)} ms, stat \${ms(at2 - at1)} ms, compare \${ms(performance.now() - at2)} ms (\${every ? 'every row' : 'the digest'}; \${handedOver ? 'read by the waiting thread' : \`its query \${ms(digestMs)} ms\`})\`
  parentPort.postMessage({ files: read, rowids, times: readTimes, gone, kept, invalid: [...invalid], phases }, [readTimes.buffer])
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
 * `waits`: the caller waits for this (a start, not a check behind one that is ready): this thread helps the worker, or,
 * for a one-shot caller whose worker has not begun, does it with the worker's help (see {@link OffThread.lead}).
 */
export async function reconcileRoot(root: string, manifest: Manifest, invalid: Map<string, string>, sink: ReconcileSink, logger: StoreLogger, waits = false): Promise<Reconciled> {
  const lead = waits ? manifest.leadOffThread?.() : undefined
  if (lead) {
    // The digest the worker read while this thread listed, if it is there by the compare (see lead), else this one's.
    const handed = () => (receiveMessageOnPort(lead)?.message as { digest?: unknown[] } | undefined)?.digest
    const digest = manifest.digest && (() => handed() ?? manifest.digest?.() ?? [])
    const withHanded: Manifest = {
      get rows() {
        return manifest.rows
      },
      row: (rowid) => manifest.row(rowid),
      digest,
      treeMemo: manifest.treeMemo,
    }
    try {
      return await reconcileHere(root, withHanded, invalid, sink, logger, lead)
    } finally {
      lead.close()
    }
  }
  if (manifest.offThread) {
    if (waits) manifest.helpOffThread?.()
    try {
      const off = await manifest.offThread
      logger.debug('the reconcile worker: %s', off.phases)
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
  return reconcileHere(root, manifest, invalid, sink, logger)
}

/** {@link reconcileRoot} on this thread (`helper`: a worker's port to share the stats with). */
async function reconcileHere(root: string, manifest: Manifest, invalid: Map<string, string>, sink: ReconcileSink, logger: StoreLogger, helper?: MessagePort): Promise<Reconciled> {
  const listedAt = Date.now()
  const at0 = performance.now()
  let at1 = at0
  const warn = (message: string) => logger.debug('%s', message)
  const { files, times, hashes } = await listFiles(root, invalid, helper, { hashes: manifest.digest !== undefined, memo: manifest.treeMemo, warn, walked: () => (at1 = performance.now()) })
  const at2 = performance.now()
  const prior = reconcileManifest(root, manifest, files, times, sink, listedAt, hashes)
  const ms = (x: number) => Math.round(x)
  logger.debug('the reconcile here%s: walk %d ms, stat %d ms, compare %d ms', helper ? ' (a worker stats a share)' : '', ms(at1 - at0), ms(at2 - at1), ms(performance.now() - at2))
  return { files, times, prior, offThread: false }
}

/** A reconcile under way in a worker thread. */
export interface OffThread {
  result: Promise<OffThreadReconcile>
  /**
   * Ends the worker if it is still running (its result is not wanted); its result then rejects with
   * {@link ReconcileCancelled}, unhandled by nobody, and a scan waiting for it ends without reconciling.
   */
  cancel(): void
  /**
   * This thread stats a share of the listing from now on, a chunk per event-loop turn (see list-files.ts,
   * statChunks), and reads the index's `digest` (its row, see walk.ts) for the worker while it lists: for a caller
   * that waits for the result and has nothing else to do meanwhile.
   */
  help(digest?: () => unknown[]): void
  /**
   * Takes the reconcile back if the worker has not begun it: this thread lists and compares, and the worker, once
   * started, reads the index's digest for it (sent back on the port returned) and stats a share of the listing,
   * posted on that port (closed by the caller when done: the worker then ends). Why: a one-shot command waits
   * ~80–100 ms for a worker to start, with nothing else to do; its heap ends with it, so the paths on this thread cost
   * nothing. Undefined when the worker has begun: see `help`.
   */
  lead(): MessagePort | undefined
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
  // Never through a link: the store does not open one either (index-cache.ts), so nothing of its target is read.
  let info: Stats | undefined
  try {
    info = lstatSync(file, { throwIfNoEntry: false })
  } catch {
    return undefined // not a path to a file at all (ENOTDIR: a file on the way), as there is none
  }
  if (!info?.isFile() || info.size < minBytes) return undefined
  // The worker's end of a channel on which it offers a share of its stats (see help); closed when it exits.
  const { port1: helper, port2: helping } = new MessageChannel()
  // Who reconciles: 0 undecided, 1 the worker, 2 this thread (see lead).
  const claim = new Int32Array(new SharedArrayBuffer(4))
  const workerData = {
    root,
    file,
    sql: `SELECT ${MANIFEST_COLUMNS} FROM doc`,
    racyMs: RACY_MS,
    listUrl: LIST_URL,
    walkUrl: WALK_URL,
    digestUrl: DIGEST_URL,
    helper,
    claim,
    memo: treeMemoFile(file),
    fromSource: FROM_SOURCE,
  }
  let worker: Worker
  try {
    worker = new Worker(WORKER, { eval: true, workerData, transferList: [helper], stdout: false, stderr: false })
  } catch (error) {
    helper.close()
    helping.close()
    logger?.debug('no reconcile worker: %s', (error as Error).message)
    return undefined
  }
  let cancelled = false
  let over = false
  const result = new Promise<OffThreadReconcile>((resolve, reject) => {
    let answer: OffThreadReconcile | { error: string } | undefined
    worker.once('message', (message: OffThreadReconcile | { error: string }) => (answer = message))
    worker.once('error', reject)
    // Settled once the worker is gone, so that its heap is too.
    worker.once('exit', (code) => {
      helping.close()
      over = true
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
    help(digest) {
      if (helping.listenerCount('message')) return
      helping.on('message', (job: PostedStats) => statChunks(receivedStats(job), (next) => setImmediate(() => over || next())))
      if (digest)
        setImmediate(() => {
          try {
            if (!over) helping.postMessage(digest())
          } catch (error) {
            logger?.debug('no digest for the reconcile worker: %s', (error as Error).message)
          }
        })
    },
    lead() {
      if (over || Atomics.compareExchange(claim, 0, 0, 2) !== 0) return undefined
      result.catch(() => {}) // the worker ends without one
      // Only a helper now: the process need not wait for its thread to wind down (~10–15 ms) before it exits.
      worker.unref()
      return helping
    },
  }
}
