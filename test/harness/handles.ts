/**
 * Plain TypeScript that Node 22 runs with type stripping (the soak bench imports it).
 *
 * Counts the lasting resources a process holds, unref'd ones included (`process.getActiveResourcesInfo()` leaves
 * out unref'd timers and workers, which is how the rows make theirs): every timer, interval, file watcher, worker
 * thread, socket and child process created after {@link trackHandles} and not yet destroyed, by async-hooks type.
 */
import { createHook } from 'node:async_hooks'

/** async_hooks resource types that outlive the call that made them. */
const LASTING = new Set(['Timeout', 'FSEVENTWRAP', 'STATWATCHER', 'WORKER', 'MESSAGEPORT', 'TCPWRAP', 'TCPSERVERWRAP', 'PIPEWRAP', 'PIPESERVERWRAP', 'PROCESSWRAP', 'SIGNALWRAP', 'UDPWRAP'])

export interface HandleTracker {
  /** Live resources by type (types with none are left out). */
  counts(): Record<string, number>
  /** Where each live resource was made (only with `{ stacks: true }`: for finding a leak, not for measuring). */
  stacks(): string[]
  stop(): void
}

/**
 * `ignore`: resources made where the stack matches are not counted (the test runner's own RPC timers, say);
 * `stacks`: keep where each was made.
 */
export function trackHandles(options: { stacks?: boolean; ignore?: RegExp } = {}): HandleTracker {
  const live = new Map<number, string>()
  const where = new Map<number, string>()
  const hook = createHook({
    init(id, type) {
      if (!LASTING.has(type)) return
      if (!options.stacks && !options.ignore) return void live.set(id, type)
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 40
      const stack = new Error().stack ?? ''
      Error.stackTraceLimit = limit
      if (options.ignore?.test(stack)) return
      live.set(id, type)
      if (options.stacks) where.set(id, `${type}\n${stack.split('\n').slice(2).join('\n')}`)
    },
    destroy(id) {
      live.delete(id)
      where.delete(id)
    },
  }).enable()
  return {
    counts() {
      const out: Record<string, number> = {}
      for (const type of live.values()) out[type] = (out[type] ?? 0) + 1
      return out
    },
    stacks: () => [...where.values()],
    stop: () => void hook.disable(),
  }
}
