/**
 * A writer waits for another connection's write lock by trying again every 0.25 ms, not through SQLite's busy
 * handler, whose sleeps grow to 100 ms between tries (the soak's longest event-loop blocks; bench/lock-wait.bench.mjs
 * measures both). What this holds: the wait ends with the lock once the holder commits, it gives up with SQLite's own
 * BUSY error at its timeout, and the connection keeps its busy timeout for every other statement. The holder is a
 * real second connection in a worker thread.
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import { beginImmediate, isBusy } from '../../src/search/write-cycle.js'

/** A worker holding the file's write lock, until `release()` or for `holdMs`; `held` resolves once it has it. */
function holder(file: string, holdMs = -1) {
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(
    `const { DatabaseSync } = require('node:sqlite'); const { parentPort, workerData } = require('node:worker_threads')
     const db = new DatabaseSync(workerData.file); db.exec('BEGIN IMMEDIATE'); db.exec("INSERT INTO t VALUES ('held')")
     parentPort.postMessage('held')
     Atomics.wait(workerData.flag, 0, 0, workerData.holdMs < 0 ? Infinity : workerData.holdMs)
     db.exec('COMMIT'); db.close()`,
    { eval: true, workerData: { file, flag, holdMs } },
  )
  return {
    held: new Promise((resolve) => worker.once('message', resolve)),
    exited: new Promise((resolve) => worker.once('exit', resolve)),
    release: () => {
      Atomics.store(flag, 0, 1)
      Atomics.notify(flag, 0)
    },
  }
}

function file(timeoutMs = 10_000): { path: string; db: DatabaseSync } {
  const path = join(mkdtempSync(join(tmpdir(), 'dsh-ks-lock-')), 'index.sqlite')
  const db = new DatabaseSync(path)
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${timeoutMs}; CREATE TABLE t (x TEXT)`)
  return { path, db }
}

const rows = (db: DatabaseSync) => (db.prepare('SELECT x FROM t ORDER BY rowid').all() as Array<{ x: string }>).map((r) => r.x)

describe('waiting for the write lock', () => {
  it('waits while another connection holds the lock and takes it once that one commits', async () => {
    const { path, db } = file()
    const other = holder(path, 40)
    await other.held
    // This thread is held here until the worker commits (its own 40 ms wait): a wait that did not wait would throw.
    beginImmediate(db, 10_000)
    db.exec("INSERT INTO t VALUES ('mine')")
    db.exec('COMMIT')
    await other.exited
    expect(rows(db)).toEqual(['held', 'mine'])
    expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 10_000 })
  })

  it("gives up at its timeout with SQLite's BUSY error, leaving the connection's own timeout as it was", async () => {
    const { path, db } = file(7_000)
    const other = holder(path)
    await other.held
    let error: unknown
    try {
      beginImmediate(db, 50)
    } catch (caught) {
      error = caught
    }
    expect(isBusy(error)).toBe(true)
    expect(db.isTransaction).toBe(false)
    expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 7_000 })
    other.release()
    await other.exited
    beginImmediate(db, 50)
    expect(db.isTransaction).toBe(true)
    db.exec('COMMIT')
    expect(rows(db)).toEqual(['held'])
  })
})
