/**
 * The index's write cycle: one transaction per event-loop turn, and FTS5 segment merging in the background. Writes
 * open a transaction that is committed on the next turn (or by {@link WriteCycle.flush}); once enough documents were
 * written, merging runs a few milliseconds per turn until FTS5 reports nothing left to merge.
 * @module dsh-knowledge-sync/search/write-cycle
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { CHECKPOINT_BACKSTOP_PAGES, type CheckpointOptions, Checkpointer } from './checkpointer.js'
import { BUSY_TIMEOUT_MS } from './index-file.js'

/** Background merging starts after this many writes, and does this many pages of work per event-loop turn. */
export const MERGE_AFTER = 256
export const MERGE_STEP_PAGES = 200
/**
 * When a background merge flattens the index into one segment: when the segments beside the largest hold more than
 * this share of it (a bulk load, a build or a merge another process cut short). Otherwise it takes only the levels
 * FTS5 counts as crowded (`usermerge`, 4 segments on one level): work in proportion to what was written, and a whole
 * rewrite only once a tenth more has been written. It used to flatten every time, which rewrote the whole index every
 * 256 writes (at 100k documents 14k pages, ~1 s), and a process that exited during such a rewrite left it to the next
 * one's writes (FTS5's inline merging finishes a merge begun): a start that re-indexed 1,000 changed files of 100k
 * then spent 0.6 s in its deletes.
 */
export const FLATTEN_SHARE = 0.1

/** What the cycle drives. */
export interface WriteCycleHost {
  readonly db: DatabaseSync
  stmt(sql: string): StatementSync
  /**
   * A file other processes write too: transactions take the write lock as they begin (`BEGIN IMMEDIATE`), so a
   * transaction never reads a state another process changes before it commits; `began` then catches up with what they
   * committed (./shared-file.ts) before the first write.
   */
  readonly shared: boolean
  began(): void
}

/**
 * How many times a write transaction is begun again when the wait for the lock gave up (another process held it past
 * BUSY_TIMEOUT_MS, see ./index-file.ts and {@link beginImmediate}): then the write fails with SQLite's error.
 */
export const BEGIN_ATTEMPTS = 3

/** How often a writer tries the file's write lock again while another process holds it. */
const LOCK_POLL_MS = 0.25
const pause = new Int32Array(new SharedArrayBuffer(4))

/**
 * `BEGIN IMMEDIATE` on `db`, trying again every {@link LOCK_POLL_MS} for up to `timeoutMs` while another process holds
 * the write lock. Why not SQLite's busy handler: it sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms between
 * tries, so a writer waiting behind another process's short transactions (a few ms each, one after another) slept up
 * to 100 ms past their end, with the event loop held: beside another process writing 20 rounds, p99 79 ms and max
 * 129 ms of waiting for holds of at most 6 ms; polling, p99 5–7 ms and max 6–8 ms. The soak's longest event-loop
 * blocks were these waits (bench/blocks.mjs, issue 24). The connection's own timeout is put back for its other
 * statements.
 */
export function beginImmediate(db: DatabaseSync, timeoutMs: number): void {
  const { timeout } = db.prepare('PRAGMA busy_timeout').get() as { timeout: number }
  db.exec('PRAGMA busy_timeout = 0')
  try {
    const end = performance.now() + timeoutMs
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE')
        return
      } catch (error) {
        if (!isBusy(error) || performance.now() >= end) throw error
        Atomics.wait(pause, 0, 0, LOCK_POLL_MS)
      }
    }
  } finally {
    db.exec(`PRAGMA busy_timeout = ${Number(timeout)}`)
  }
}

/** SQLITE_BUSY or SQLITE_LOCKED, whatever the extended code. */
export function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode
  return code !== undefined && ((code & 0xff) === 5 || (code & 0xff) === 6)
}

/**
 * The cycle of this process holding each shared file's write lock (by path). Why: SQLite's busy handler waits
 * synchronously, so a second connection of the same process (two stores on one root: the MCP server beside a
 * command, tests) would wait for a transaction that commits only on a later turn of the very event loop it blocks.
 * It commits that transaction first instead.
 */
const holders = new Map<string, WriteCycle>()

/** Transaction batching and background merging for one index. */
export class WriteCycle {
  private inTx = false
  private closed = false
  /** Documents written since the last merge decision (see {@link nextMerge}), and the background merge state. */
  private mergeDebt = 0
  private merging = false
  /** A flattening merge was begun and the index is not one segment again yet (see {@link nextMerge}). */
  private flattening = false
  private bulkDepth = 0
  private settled: Array<() => void> = []
  private checkpointer?: Checkpointer

  constructor(private readonly host: WriteCycleHost) {}

  /** One more document written (merging starts after {@link MERGE_AFTER}). */
  wrote(): void {
    this.mergeDebt++
  }

  /**
   * Writes run inside a transaction that is opened on the first write and committed once the code that wrote has run
   * (or by {@link flush}). FTS5 turns its pending terms into a segment once per commit, so 10k upserts in a loop (or
   * interleaved with synchronous file reads) cost one commit, not 10k. Searches on this connection see uncommitted
   * writes, so a document is searchable as soon as `upsert` returns. A file other processes share is committed as
   * soon as the synchronous code that wrote has returned (a microtask): its write lock blocks every other process's
   * writer, which waits with its event loop held. Committed on the next turn instead (as an in-memory index still is),
   * a capture beside dsh held it 20–98 ms on its first write (whatever else that turn ran, up to its I/O), in the soak.
   */
  begin(): void {
    if (this.inTx || this.closed) return
    if (this.host.shared) this.beginShared()
    else this.host.db.exec('BEGIN')
    this.inTx = true
    const commit = () => {
      try {
        this.flush()
      } catch {
        // Nothing to report to: the next write opens a fresh transaction; an in-memory COMMIT does not fail in practice.
      }
    }
    if (this.host.shared) queueMicrotask(commit)
    else setImmediate(commit)
  }

  /** Commits what another cycle of this process holds open on the same file (see {@link holders}). */
  private takeTurn(): void {
    const path = this.host.db.location()
    const holder = path ? holders.get(path) : undefined
    if (holder && holder !== this) holder.flush()
  }

  /** Takes the file's write lock (waiting for another process's turn, a bounded number of times) and catches up. */
  private beginShared(): void {
    this.takeTurn()
    for (let attempt = 1; ; attempt++) {
      try {
        beginImmediate(this.host.db, BUSY_TIMEOUT_MS)
        break
      } catch (error) {
        if (!isBusy(error) || attempt >= BEGIN_ATTEMPTS) throw error
      }
    }
    try {
      this.host.began()
    } catch (error) {
      this.host.db.exec('ROLLBACK')
      throw error
    }
    const path = this.host.db.location()
    if (path) holders.set(path, this)
  }

  /** A write transaction is open on this connection (its reads are current: no other process can commit). */
  get open(): boolean {
    return this.inTx
  }

  /** Commits pending writes now (they are committed on the next event-loop turn anyway). */
  flush(): void {
    if (!this.inTx || this.closed) return
    this.inTx = false
    const path = this.host.shared ? this.host.db.location() : null
    if (path && holders.get(path) === this) holders.delete(path)
    try {
      this.host.db.exec('COMMIT')
    } catch (err) {
      try {
        this.host.db.exec('ROLLBACK')
      } catch {
        /* already rolled back */
      }
      throw err
    } finally {
      if (this.mergeDebt >= MERGE_AFTER) this.scheduleMerge()
      else this.wake()
    }
  }

  /**
   * After a bulk load FTS5 holds many small segments, and every query reads each of them (queries run about twice as
   * fast once merged). Merging is done in the background, a few milliseconds per event-loop turn, so neither the load
   * nor a search ever waits for it. Into one segment only when much lies outside the largest (see {@link FLATTEN_SHARE}).
   */
  private scheduleMerge(): void {
    if (this.merging || this.closed || this.bulkDepth > 0) return
    this.merging = true
    const changes = this.host.stmt('SELECT total_changes() AS n')
    let merge = this.nextMerge()
    const step = (): void => {
      let more = false
      if (!this.closed) {
        try {
          const before = (changes.get() as { n: number }).n
          if (this.host.shared && !this.inTx) this.takeTurn()
          merge.run()
          // FTS5's documented signal: fewer than two changes means there was nothing left to merge.
          more = (changes.get() as { n: number }).n - before >= 2
        } catch {
          more = false
        }
      }
      if (more) {
        // Under steady writes a merge may run for as long as they do: what it does is decided again every MERGE_AFTER.
        merge = this.mergeDebt >= MERGE_AFTER ? this.nextMerge() : this.levels()
        setImmediate(step)
      } else {
        this.merging = false
        this.wake()
      }
    }
    setImmediate(step)
  }

  /**
   * FTS5's 'merge' command for the next step: a negative page count begins merging every segment there is into one,
   * a positive one merges crowded levels and goes on with a merge begun. A flattening is begun once, and not again
   * until it is done (the largest segment holds the index again): each negative step takes in the segments written
   * since, so under steady writes repeating it rewrote everything, again and again.
   */
  private nextMerge(): StatementSync {
    this.mergeDebt = 0
    const due = this.flattenDue()
    if (!due) this.flattening = false
    if (!due || this.flattening) return this.levels()
    this.flattening = true
    return this.host.stmt(`INSERT INTO fts (fts, rank) VALUES ('merge', -${MERGE_STEP_PAGES})`)
  }

  private levels(): StatementSync {
    return this.host.stmt(`INSERT INTO fts (fts, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`)
  }

  /** The segments beside the largest hold more than {@link FLATTEN_SHARE} of the index. */
  private flattenDue(): boolean {
    try {
      // Rows of FTS5's b-tree index per segment: one per leaf page (2,500 rows at 100k documents).
      const { top, total } = this.host.stmt('SELECT max(n) AS top, sum(n) AS total FROM (SELECT count(*) AS n FROM fts_idx GROUP BY segid)').get() as { top: number | null; total: number | null }
      return total !== null && top !== null && total - top > FLATTEN_SHARE * total
    } catch {
      return false // the merge step meets the same failure, and stops
    }
  }

  private wake(): void {
    if (this.inTx || this.merging) return
    const waiting = this.settled
    this.settled = []
    for (const resolve of waiting) resolve()
  }

  /**
   * Holds background merging while a bulk load (the store's start-up scan) commits slice after slice: merging the
   * growing segments after every slice would redo the same work many times. Merging starts when the last hold ends.
   */
  holdMerges(): () => void {
    this.bulkDepth++
    let released = false
    return () => {
      if (released) return
      released = true
      if (--this.bulkDepth === 0 && this.mergeDebt >= MERGE_AFTER) this.scheduleMerge()
    }
  }

  /** Merges in the background what an earlier process left unmerged (one that exited or was killed first). */
  mergeLeftovers(): void {
    this.scheduleMerge()
  }

  /** Resolves once pending writes are committed and background segment merging is done (for benches and tests). */
  settle(): Promise<void> {
    if (!this.inTx && !this.merging) return Promise.resolve()
    return new Promise((resolve) => this.settled.push(resolve))
  }

  /** From now on, WAL checkpoints run in a worker thread rather than inside a COMMIT here (see ./checkpointer.ts). */
  checkpointInBackground(options?: CheckpointOptions): Checkpointer {
    if (!this.checkpointer) {
      // Not 0: the backstop for bursts the worker cannot keep up with (see CHECKPOINT_BACKSTOP_PAGES).
      this.host.db.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_BACKSTOP_PAGES}`)
      this.checkpointer = new Checkpointer(this.host.db.location() as string, options, () => {
        // The worker is gone: SQLite checkpoints at its default again, as in a short-lived process.
        if (!this.closed) this.host.db.exec('PRAGMA wal_autocheckpoint = 1000')
      })
    }
    return this.checkpointer
  }

  /** Resolves once the checkpoint worker, if one ran, has exited (after {@link close}). */
  stopped: Promise<void> = Promise.resolve()

  /** Commits what is pending and stops: later writes and merge steps do nothing. */
  close(): void {
    if (this.closed) return
    this.flush()
    if (this.checkpointer) this.stopped = this.checkpointer.stop()
    this.closed = true
    this.wake()
  }
}
