/**
 * A profile reload disposes and re-applies rows; dsh web may do that many times in one process (issue 24). Each row,
 * applied and disposed again and again in the real harness, must leave no event listener, store or settings
 * listener, route, tool, timer, watcher, worker or handle behind. Counted from the harness's own registries and
 * `process.getActiveResourcesInfo()` before and after, never timed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import * as note from '../../src/note/index.js'
import * as recall from '../../src/recall/index.js'
import * as http from '../../src/http/index.js'
import * as sync from '../../src/sync/index.js'
import * as hostWeb from '../harness/host-web.ts'
import { trackHandles, type HandleTracker } from '../harness/handles.ts'
import { createLoop, type Loop } from '../harness/loop.ts'

let loop: Loop | undefined
let handles: HandleTracker | undefined
afterEach(async () => {
  handles?.stop()
  await loop?.dispose()
  loop = undefined
})

/** Cycles per row: the store row opens a root (SQLite, watchers, a checkpoint worker) each time, so fewer. */
const CYCLES = 1000
const STORE_CYCLES = 150

/** The test runner's own timers (its module loader's RPC calls) are not the rows'. */
const RUNNER = /node_modules\/\.pnpm\/(vitest|vite-node)@/

const settle = async () => {
  for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve))
}

/** Handles that outlive a call: transient fs/immediate requests are left out (they come and go with any I/O). */
const LASTING = /^(Timeout|FSEventWrap|StatWatcher|MessagePort|Worker|TCPServerWrap|TCPSocketWrap|PipeWrap|ProcessWrap|SignalWrap|UDPWrap)$/

function snapshot(ctx: any) {
  // Ref'd resources as Node reports them, and every lasting one (unref'd timers and workers too) the tracker saw made.
  const resources: Record<string, number> = {}
  for (const r of process.getActiveResourcesInfo()) if (LASTING.test(r)) resources[r] = (resources[r] ?? 0) + 1
  const made = handles?.counts()
  const hooks = Object.entries(ctx.events._hooks as Record<string, unknown[]>)
    .map(([name, list]) => [name, list.length] as const)
    .filter(([, n]) => n > 0)
  const store = ctx.get('knowledge') as any
  return {
    resources,
    made,
    hooks: Object.fromEntries(hooks),
    process: Object.fromEntries(process.eventNames().map((e) => [String(e), process.listenerCount(e)])),
    storeListeners: store?.listeners.size,
    settingsListeners: store?.settings.listeners.size,
    settingsRows: store?.settings.rows.size,
    routes: (ctx.get('webServer') as hostWeb.HostWebServer | undefined)?.routes.size,
    tools: ['knowledge_search', 'knowledge_read', 'knowledge_note', 'knowledge_supersede', 'knowledge_retire', 'knowledge_check', 'knowledge_curate'].filter((t) => ctx.tools.get(t)),
  }
}

async function cycle(ctx: any, plugin: unknown, config: unknown, times: number): Promise<void> {
  for (let k = 0; k < times; k++) {
    const fiber = ctx.plugin(plugin, config)
    await fiber
    await fiber.dispose()
  }
  await settle()
}

function rootWithSources(dir: string): string {
  const root = join(dir, 'kb')
  mkdirSync(root, { recursive: true })
  // Discovery roots make the sync row offer its tool, so the tool's registration is cycled too.
  writeFileSync(join(root, 'sources.yml'), 'sources: []\nroots:\n  - { name: docs, url: "http://127.0.0.1:9/docs/" }\n')
  return root
}

describe('disposing and re-applying each row', () => {
  it.each([
    ['capture', capture, {}],
    ['note', note, {}],
    ['recall', recall, {}],
    ['http', http, {}],
    ['sync (both timers on)', sync, { onStart: true, intervalMinutes: 5 }],
  ])(
    '%s leaves nothing behind',
    async (_label, plugin, config) => {
      loop = await createLoop(() => ({ text: 'unused' }), [[hostWeb], [knowledge, { root: rootWithSources(mkdtempDir()) }]])
      // One cycle first: modules load lazily (the redaction backstop, the HTML worker's code) on first use.
      await cycle(loop.ctx, plugin, config, 1)
      handles = trackHandles({ stacks: !!process.env.DISPOSAL_STACKS, ignore: RUNNER })
      const before = snapshot(loop.ctx)
      await cycle(loop.ctx, plugin, config, CYCLES)
      if (process.env.DISPOSAL_STACKS) console.log(handles.stacks().join('\n---\n'))
      expectNothingAdded(snapshot(loop.ctx), before)
    },
    120_000,
  )

  it('the store row leaves nothing behind (no watcher, worker, timer or listener of any opened root)', async () => {
    loop = await createLoop(() => ({ text: 'unused' }), [])
    await settle()
    const root = rootWithSources(mkdtempDir())
    await cycle(loop.ctx, knowledge, { root }, 1)
    handles = trackHandles({ stacks: !!process.env.DISPOSAL_STACKS, ignore: RUNNER })
    const before = snapshot(loop.ctx)
    await cycle(loop.ctx, knowledge, { root }, STORE_CYCLES)
    if (process.env.DISPOSAL_STACKS) console.log(handles.stacks().join('\n---\n'))
    expectNothingAdded(snapshot(loop.ctx), before)
  }, 120_000)
})

/**
 * What the cycles left: nothing counted may be above its count before them. A count may be below it: a timer that
 * was pending when the first snapshot was taken (a module's one-shot, loaded by the warm-up cycle) may have fired
 * since, which is not something the rows left behind.
 */
function expectNothingAdded(after: unknown, before: unknown, path = 'snapshot'): void {
  if (typeof after === 'number' || typeof before === 'number') {
    expect(Number(after ?? 0), path).toBeLessThanOrEqual(Number(before ?? 0))
    return
  }
  if (Array.isArray(after) || Array.isArray(before)) {
    expect(after, path).toEqual(before)
    return
  }
  const a = (after ?? {}) as Record<string, unknown>
  const b = (before ?? {}) as Record<string, unknown>
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) expectNothingAdded(a[key], b[key], `${path}.${key}`)
}

function mkdtempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dsh-ks-dispose-'))
}
