/**
 * The background warm-up's turns (see {@link StoreIndex.warmUp}): steps run a few milliseconds per event-loop turn,
 * each until it says it is done, so that a long-lived store fills what it loads lazily without holding the loop.
 * @module dsh-knowledge-sync/knowledge/view/warm-up
 */
import type { StoreLogger } from '../store-types.js'

/** The longest one warm-up slice keeps the event loop. */
const WARM_SLICE_MS = 4

/** One step: works until `deadline` (a `performance.now()` time), true once it has nothing left to do. */
export type WarmStep = (deadline: number) => boolean

export class WarmUp {
  private timer?: NodeJS.Timeout
  /** Resolves once the warm-up is over: run to its end, stopped by a failure, or cut short by {@link stop}. */
  done: Promise<void> = Promise.resolve()
  private finish = (): void => {}

  constructor(private readonly logger: StoreLogger) {}

  /** Runs `steps` in order, in slices of {@link WARM_SLICE_MS} on later turns. */
  run(steps: WarmStep[]): void {
    this.done = new Promise((resolve) => (this.finish = resolve))
    const turn = (): void => {
      const deadline = performance.now() + WARM_SLICE_MS
      try {
        while (steps.length && performance.now() < deadline) if (steps[0](deadline)) steps.shift()
      } catch (error) {
        // Only ever a head start: a failure here (the index closing) ends the warm-up, never the process.
        this.logger.debug('warm-up stopped: %s', (error as Error).message)
        steps.length = 0
      }
      this.timer = steps.length ? setTimeout(turn, 0).unref() : undefined
      if (!this.timer) this.finish()
    }
    this.timer = setTimeout(turn, 0).unref()
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.finish()
  }
}
