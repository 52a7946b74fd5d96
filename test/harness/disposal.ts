/**
 * Plain TypeScript that Node 22 runs with type stripping (the disposal spec and bench/disposal.bench.mjs import it).
 *
 * What a row can leave behind when it is applied and disposed (issue 24): lasting resources (Node's ref'd ones and
 * every one the tracker saw made, unref'd timers and workers included), the harness's event hooks, process
 * listeners, the store's change and settings listeners and published rows, web routes, tools. Counted, never timed.
 */
import type { HandleTracker } from './handles.ts'
import type { HostWebServer } from './host-web.ts'

/** Handles that outlive a call: transient fs/immediate requests are left out (they come and go with any I/O). */
const LASTING = /^(Timeout|FSEventWrap|StatWatcher|MessagePort|Worker|TCPServerWrap|TCPSocketWrap|PipeWrap|ProcessWrap|SignalWrap|UDPWrap)$/
const TOOLS = ['knowledge_search', 'knowledge_read', 'knowledge_note', 'knowledge_supersede', 'knowledge_retire', 'knowledge_check', 'knowledge_curate']

export async function settle(): Promise<void> {
  for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * Resolves once the store row's background warm-up is over: each of its slices is a new timer, so a snapshot taken
 * while it still runs (a busy machine stretches it past the cycles) counts a timer the rows under test never made.
 */
export async function warmedUp(ctx: any): Promise<void> {
  const store = ctx.get('knowledge') as any
  await store?.start()
  await store?.indexed.warmed
}

/** Everything counted, as one nested object of numbers (and the list of tools offered). */
export function snapshot(ctx: any, handles?: HandleTracker): Record<string, unknown> {
  const resources: Record<string, number> = {}
  for (const r of process.getActiveResourcesInfo()) if (LASTING.test(r)) resources[r] = (resources[r] ?? 0) + 1
  const hooks = Object.entries(ctx.events._hooks as Record<string, unknown[]>)
    .map(([name, list]) => [name, list.length] as const)
    .filter(([, n]) => n > 0)
  const store = ctx.get('knowledge') as any
  return {
    resources,
    made: handles?.counts(),
    hooks: Object.fromEntries(hooks),
    process: Object.fromEntries(process.eventNames().map((e) => [String(e), process.listenerCount(e)])),
    storeListeners: store?.listeners.size,
    settingsListeners: store?.settings.listeners.size,
    settingsRows: store?.settings.rows.size,
    routes: (ctx.get('webServer') as HostWebServer | undefined)?.routes.size,
    tools: TOOLS.filter((t) => ctx.tools.get(t)),
  }
}

/** Applies and disposes `plugin` `times` times in `ctx`, as a profile reload does. */
export async function cycle(ctx: any, plugin: unknown, config: unknown, times: number): Promise<void> {
  for (let k = 0; k < times; k++) {
    const fiber = ctx.plugin(plugin, config)
    await fiber
    await fiber.dispose()
  }
  await settle()
}

/**
 * What the cycles added: every count above its count before them, as `path: before → after` ([] when nothing grew).
 * A count may be below it: a timer that was pending at the first snapshot (a module's one-shot, loaded by the warm-up
 * cycle) may have fired since, which is not something the rows left behind. Lists must be equal.
 */
export function grown(after: unknown, before: unknown, path = 'snapshot'): string[] {
  if (typeof after === 'number' || typeof before === 'number') return Number(after ?? 0) > Number(before ?? 0) ? [`${path}: ${Number(before ?? 0)} → ${Number(after ?? 0)}`] : []
  if (Array.isArray(after) || Array.isArray(before)) return JSON.stringify(after) === JSON.stringify(before) ? [] : [`${path}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`]
  const a = (after ?? {}) as Record<string, unknown>
  const b = (before ?? {}) as Record<string, unknown>
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) => grown(a[key], b[key], `${path}.${key}`))
}
