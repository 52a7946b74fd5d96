/**
 * Disposal benchmark (issue 24): each row applied and disposed N times in one process, as profile reloads do, in the
 * real harness core; after every quarter it prints what is counted (lasting resources made and not destroyed,
 * Node's ref'd resources, event hooks, store and settings listeners, routes, tools), and at the end it fails (exit
 * code 1) when any count grew over the cycles. The store row opens its root each time (SQLite, watchers, the
 * checkpoint worker), which is why its 1,000 cycles run here rather than in test/loop/disposal.spec.ts (150).
 *
 *   node scripts/build.mjs && node --expose-gc bench/disposal.bench.mjs                 # 1,000 cycles of every row
 *   node --expose-gc bench/disposal.bench.mjs --cycles 200 --rows knowledge,http
 * @module dsh-knowledge-sync/bench/disposal
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { cycle, grown, settle, snapshot, warmedUp } from '../test/harness/disposal.ts'
import { trackHandles } from '../test/harness/handles.ts'
import * as hostWeb from '../test/harness/host-web.ts'
import { createLoop } from '../test/harness/loop.ts'

const project = join(import.meta.dirname, '..')
const lib = (p) => import(pathToFileURL(join(project, 'lib', p)).href)
const argv = process.argv.slice(2)
const arg = (name, fallback) => {
  const at = argv.indexOf(`--${name}`)
  return at === -1 ? fallback : argv[at + 1]
}
const CYCLES = Number(arg('cycles', 1000))
const ONLY = arg('rows', '').split(',').filter(Boolean)

function rootWithSources() {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-dispose-bench-')), 'kb')
  mkdirSync(root, { recursive: true })
  // Discovery roots make the sync row offer its tool, so the tool's registration is cycled too.
  writeFileSync(join(root, 'sources.yml'), 'sources: []\nroots:\n  - { name: docs, url: "http://127.0.0.1:9/docs/" }\n')
  return root
}

const rows = [
  ['knowledge', await lib('knowledge/index.js'), (root) => ({ root }), false],
  ['capture', await lib('capture/index.js'), () => ({}), true],
  ['note', await lib('note/index.js'), () => ({}), true],
  ['recall', await lib('recall/index.js'), () => ({}), true],
  ['http', await lib('http/index.js'), () => ({}), true],
  ['sync', await lib('sync/index.js'), () => ({ onStart: true, intervalMinutes: 5 }), true],
].filter(([name]) => !ONLY.length || ONLY.includes(name))

let failed = 0
for (const [name, plugin, configOf, onStore] of rows) {
  const root = rootWithSources()
  const knowledge = await lib('knowledge/index.js')
  const loop = await createLoop(() => ({ text: 'unused' }), onStore ? [[hostWeb], [knowledge, { root }]] : [[hostWeb]])
  await settle()
  const config = configOf(root)
  // One cycle first: modules load lazily (the redaction backstop, the HTML worker's code) on first use.
  await cycle(loop.ctx, plugin, config, 1)
  // The store's background warm-up is over first: its slices are timers the rows under test never made.
  if (onStore) await warmedUp(loop.ctx)
  const handles = trackHandles()
  const before = snapshot(loop.ctx, handles)
  const t0 = performance.now()
  const quarter = Math.max(1, Math.round(CYCLES / 4))
  for (let done = 0; done < CYCLES; ) {
    const n = Math.min(quarter, CYCLES - done)
    await cycle(loop.ctx, plugin, config, n)
    done += n
    globalThis.gc?.()
    const now = snapshot(loop.ctx, handles)
    const mem = process.memoryUsage()
    console.log(
      `${name.padEnd(10)} ${String(done).padStart(5)} cycles  made ${JSON.stringify(now.made)}  ref'd ${JSON.stringify(now.resources)}  hooks ${Object.values(now.hooks).reduce((a, b) => a + b, 0)}  store listeners ${now.storeListeners ?? '-'}  routes ${now.routes ?? '-'}  heap ${(mem.heapUsed / 2 ** 20).toFixed(1)} MB  rss ${(mem.rss / 2 ** 20).toFixed(1)} MB`,
    )
  }
  const seconds = (performance.now() - t0) / 1000
  const growth = grown(snapshot(loop.ctx, handles), before)
  console.log(`${name}: ${CYCLES} cycles in ${seconds.toFixed(1)} s (${((seconds * 1000) / CYCLES).toFixed(1)} ms a cycle): ${growth.length ? `GREW ${growth.join('; ')}` : 'nothing counted grew'}`)
  if (growth.length) failed++
  handles.stop()
  await loop.dispose()
}
if (failed) {
  console.error(`${failed} row(s) left something behind`)
  process.exitCode = 1
}
