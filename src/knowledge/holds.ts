/**
 * The promises that keep a {@link KnowledgeStore} open ({@link KnowledgeStore.hold}), and the bounded wait for them
 * that `close` starts with.
 * @module dsh-knowledge-sync/knowledge/holds
 */

export class Holds {
  private readonly pending = new Set<Promise<unknown>>()

  /** How many holds have not settled yet. */
  get size(): number {
    return this.pending.size
  }

  /** Keeps `done` until it settles. */
  add(done: Promise<unknown>): void {
    this.pending.add(done)
    void done.then(
      () => this.pending.delete(done),
      () => this.pending.delete(done),
    )
  }

  /** Resolves once every hold has settled, or after `ms`, whichever comes first (at once when there are none). */
  async settle(ms: number): Promise<void> {
    if (!this.pending.size) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.pending]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ms)
      }),
    ])
    clearTimeout(timer)
  }
}
