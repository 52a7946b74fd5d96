/**
 * Work other rows ask the store to wait for before it closes (queued rounds, distill calls): dsh disposes every row
 * at once on exit, so without a hold a row's shutdown work would meet a closed store.
 * @module dsh-knowledge-sync/knowledge/holds
 */

/** The pending holds on one store; a settled hold leaves the set by itself. */
export class Holds {
  private readonly pending = new Set<Promise<unknown>>()

  /** Holds the store open until `done` settles. */
  add(done: Promise<unknown>): void {
    this.pending.add(done)
    void done.then(() => this.pending.delete(done), () => this.pending.delete(done))
  }

  /** Resolves when every hold has settled, or after `timeoutMs`, whichever comes first. */
  async settled(timeoutMs: number): Promise<void> {
    if (!this.pending.size) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs) })])
    clearTimeout(timer)
  }
}
