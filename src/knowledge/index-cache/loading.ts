/**
 * A table filled from a stream of rows, either all at once when first needed or a slice at a time in the background.
 * Why: a start that reuses a persisted index of 100k documents reads none of them; the tables built from the index
 * (which file holds which id, who owns an id prefix) are then filled after the start, a few milliseconds per
 * event-loop turn, so neither the start nor the first write pays ~0.1 s each for them.
 *
 * A reader never sees a half-filled table: every access first completes the load (`step(Infinity)`), and every
 * change to the table happens after that, so the table is the stream's rows plus the changes made since.
 * @module dsh-knowledge-sync/knowledge/index-cache/loading
 */

/** Rows checked between two looks at the clock. */
const ROWS_PER_CHECK = 256

/** The load of one table from a stream of rows. */
export class Loading<Row> {
  private rows?: Iterator<Row>
  private done = false

  /** `idle`: nothing read yet; `loading`: part read (a stream is open); `done`. */
  get state(): 'idle' | 'loading' | 'done' {
    return this.done ? 'done' : this.rows ? 'loading' : 'idle'
  }

  /** `source` gives undefined while there is nothing to load from yet (no index opened): the load waits for it. */
  constructor(
    private readonly source: () => Iterable<Row> | undefined,
    private readonly add: (row: Row) => void,
  ) {}

  /**
   * Adds rows until the stream ends or `deadline` (performance.now()) passes; true once everything is loaded. A
   * stream that fails (its index closed) ends the load with what was read: the table stays usable.
   */
  step(deadline: number): boolean {
    if (this.done) return true
    try {
      if (!this.rows) {
        const rows = this.source()
        if (!rows) return true
        this.rows = rows[Symbol.iterator]()
      }
      for (let n = 1; ; n++) {
        const next = this.rows.next()
        if (next.done) break
        this.add(next.value)
        if (n % ROWS_PER_CHECK === 0 && performance.now() > deadline) return false
      }
    } catch {
      /* the index is gone (closing): keep what was read */
    }
    this.done = true
    this.rows = undefined
    return true
  }
}
