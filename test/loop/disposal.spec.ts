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
import { cycle, grown, settle, snapshot, warmedUp } from '../harness/disposal.ts'

let loop: Loop | undefined
let handles: HandleTracker | undefined
afterEach(async () => {
  handles?.stop()
  await loop?.dispose()
  loop = undefined
})

/**
 * Cycles per row: the store row opens a root (SQLite, watchers, a checkpoint worker) each time, so fewer here; the
 * 1,000 store cycles run in bench/disposal.bench.mjs, which fails the same way when anything counted grew.
 */
const CYCLES = 1000
const STORE_CYCLES = 150
/** Only a guard against a hang: 150 store cycles took 112 s with the machine's two cores busy, and more at load 20. */
const TIMEOUT_MS = 600_000

/** The test runner's own timers (its module loader's RPC calls) are not the rows'. */
const RUNNER = /node_modules\/\.pnpm\/(vitest|vite-node)@/

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
      // One cycle first: modules load lazily (the redaction backstop, the HTML worker's code) on first use. The store's
      // warm-up is over before the first count (under load it ran on past the cycles: a timer counted as capture's).
      await cycle(loop.ctx, plugin, config, 1)
      await warmedUp(loop.ctx)
      handles = trackHandles({ stacks: !!process.env.DISPOSAL_STACKS, ignore: RUNNER })
      const before = snapshot(loop.ctx, handles)
      await cycle(loop.ctx, plugin, config, CYCLES)
      if (process.env.DISPOSAL_STACKS) console.log(handles.stacks().join('\n---\n'))
      expect(grown(snapshot(loop.ctx, handles), before)).toEqual([])
    },
    TIMEOUT_MS,
  )

  it(
    'the store row leaves nothing behind (no watcher, worker, timer or listener of any opened root)',
    async () => {
      loop = await createLoop(() => ({ text: 'unused' }), [])
      await settle()
      const root = rootWithSources(mkdtempDir())
      await cycle(loop.ctx, knowledge, { root }, 1)
      handles = trackHandles({ stacks: !!process.env.DISPOSAL_STACKS, ignore: RUNNER })
      const before = snapshot(loop.ctx, handles)
      await cycle(loop.ctx, knowledge, { root }, STORE_CYCLES)
      if (process.env.DISPOSAL_STACKS) console.log(handles.stacks().join('\n---\n'))
      expect(grown(snapshot(loop.ctx, handles), before)).toEqual([])
    },
    TIMEOUT_MS,
  )
})

function mkdtempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dsh-ks-dispose-'))
}
