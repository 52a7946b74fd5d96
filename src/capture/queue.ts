/**
 * A serial work queue that runs outside the caller's stack (after `setImmediate`), so the agent loop never waits for
 * capture work, and that can be drained with a deadline at shutdown.
 * @module dsh-knowledge-sync/capture/queue
 */

/** The events of one turn, filed by the listener until `turn/end`. */
export interface OpenTurn {
  session: string
  /** The live session object (for its request header: the distill route). */
  handle?: { requestHeader?: () => { config?: { provider?: string; model?: string } } | undefined }
  cwd: string
  subagent: boolean
  events: unknown[]
}

export class CaptureQueue<T = OpenTurn> {
  private readonly items: T[] = []
  private running?: Promise<void>
  private scheduled = false

  constructor(
    private readonly work: (item: T) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get size(): number {
    return this.items.length + (this.running ? 1 : 0)
  }

  push(item: T): void {
    this.items.push(item)
    if (!this.scheduled && !this.running) {
      this.scheduled = true
      setImmediate(() => {
        this.scheduled = false
        this.running ??= this.run()
      })
    }
  }

  private async run(): Promise<void> {
    try {
      for (let item = this.items.shift(); item !== undefined; item = this.items.shift()) {
        try {
          await this.work(item)
        } catch (error) {
          this.onError(error)
        }
      }
    } finally {
      this.running = undefined
    }
  }

  /** Runs everything queued; resolves true when empty, false when `timeoutMs` passed first. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    while (this.items.length || this.running || this.scheduled) {
      this.running ??= this.run()
      const left = deadline - Date.now()
      if (left <= 0) return false
      let timer: NodeJS.Timeout | undefined
      const timedOut = await Promise.race([
        this.running.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), left)
        }),
      ])
      clearTimeout(timer)
      if (timedOut) return false
    }
    return true
  }
}
