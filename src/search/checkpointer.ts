/**
 * WAL checkpoints of a file-backed index, off the main thread. node:sqlite is synchronous, and SQLite's automatic
 * checkpoint runs inside whichever COMMIT fills the WAL: it copies the WAL into the main file and fsyncs it, 10–15 ms
 * on this machine's disk and over a second while another process fsyncs too (measured: a write that became
 * searchable after 1.1 s). A long-lived store moves the automatic checkpoint up to a backstop only a burst reaches,
 * and lets this worker thread, with its own connection, run PASSIVE checkpoints when the WAL has grown: they never
 * wait for, nor block, the owner's reads and writes. The WAL file keeps its size; SQLite reuses it from the start once it is checkpointed.
 * @module dsh-knowledge-sync/search/checkpointer
 */
import { Worker } from 'node:worker_threads'

/** Checkpoint once the WAL holds this many bytes (SQLite's automatic default is 1000 pages: 8 MB at our page size). */
export const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024
/**
 * SQLite's own checkpoint stays on as a backstop, at this many pages (16 MB at our page size, 4× the worker's
 * threshold). Why: a PASSIVE checkpoint running while the owner keeps committing (a burst of writes, the watcher
 * indexing a `git pull`) never catches up, and the WAL only starts over after a checkpoint that did; with the
 * automatic checkpoint off it grew without bound (100 MB after 600 rounds written in a row). Only a burst reaches it.
 */
export const CHECKPOINT_BACKSTOP_PAGES = 2000
/** How often the worker looks at the WAL's size (one `stat`). */
export const CHECKPOINT_EVERY_MS = 500

// Evaluated in the worker (a script or a module alike, see ../knowledge/disk/worker-code.ts): no file to resolve from
// lib/ or src/. It prints SQLite's ExperimentalWarning no more than the main thread does (see cli/bin.ts), and nothing
// else is silenced.
const WORKER = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads')
const { statSync } = process.getBuiltinModule('node:fs')
const emit = process.emitWarning
process.emitWarning = (warning, ...rest) => /^SQLite is an experimental feature/.test(String(warning)) ? undefined : emit.call(process, warning, ...rest)
const { DatabaseSync } = process.getBuiltinModule('node:sqlite')
const { path, walBytes, everyMs } = workerData
let db
const look = () => {
  let size = 0
  try { size = statSync(path + '-wal').size } catch { return }
  if (size < walBytes) return
  try {
    db ??= new DatabaseSync(path)
    const row = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()
    if (row && row.log > 0 && row.checkpointed === row.log) parentPort.postMessage('checkpointed')
  } catch {}
}
const timer = setInterval(look, everyMs)
parentPort.on('message', (m) => {
  if (m === 'now') look()
  if (m !== 'stop') return
  clearInterval(timer)
  try { db?.close() } catch {}
  parentPort.close()
})
`

/** When the worker checkpoints: once the WAL holds `walBytes`, looked at every `everyMs`. */
export interface CheckpointOptions {
  walBytes?: number
  everyMs?: number
}

/** The checkpoint worker of one index file. */
export class Checkpointer {
  private readonly worker: Worker
  private readonly listeners = new Set<() => void>()

  private stopping = false

  /** `lost`: the worker ended without being asked to (it failed): the owner checkpoints by itself again. */
  constructor(path: string, { walBytes = CHECKPOINT_WAL_BYTES, everyMs = CHECKPOINT_EVERY_MS }: CheckpointOptions = {}, lost: () => void = () => {}) {
    this.worker = new Worker(WORKER, { eval: true, workerData: { path, walBytes, everyMs }, stdout: false, stderr: false })
    // Never what keeps a process alive.
    this.worker.unref()
    this.worker.on('error', () => {})
    this.worker.on('exit', () => {
      if (!this.stopping) lost()
    })
    this.worker.on('message', () => {
      for (const listener of this.listeners) listener()
    })
  }

  /** Calls `listener` after each checkpoint that emptied the WAL (tests). */
  onCheckpoint(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Asks the worker to look at the WAL now rather than at its next tick. */
  poke(): void {
    this.worker.postMessage('now')
  }

  /** Stops the worker; resolves once its connection is closed (so a following checkpoint does not meet it). */
  stop(): Promise<void> {
    this.stopping = true
    // Waited for, so it must keep the process alive until it exits: unref'd, a process with nothing else to do
    // exited with the close still pending (a script's `await store.close()` never returned).
    this.worker.ref()
    return new Promise((resolve) => {
      // A worker stuck in a checkpoint is ended rather than waited for: the WAL stays valid either way.
      const stuck = setTimeout(() => void this.worker.terminate(), 2000).unref()
      this.worker.once('exit', () => {
        clearTimeout(stuck)
        resolve()
      })
      this.worker.postMessage('stop')
    })
  }
}
