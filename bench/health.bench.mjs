/**
 * The health probe at size (issue 30, item 6): a full probe (one search per document) and a sampled one, in the
 * store's thread (a) against worker threads (b), measured in the same run on the same store. Their reports must be
 * the same (recall@5, MRR, unfindable, near-duplicates): the bench says so, or prints what differs.
 *
 *   node bench/health.bench.mjs [count=10000] [--sample N] [--threads N] [--root DIR]   (after `pnpm run build`: it loads lib/)
 * @module dsh-knowledge-sync/bench/health
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const { values, positionals } = parseArgs({ allowPositionals: true, options: { sample: { type: 'string' }, threads: { type: 'string' }, root: { type: 'string' } } })
const count = Number(positionals[0] ?? 10_000)
const sample = values.sample ? Number(values.sample) : undefined
const threads = values.threads ? Number(values.threads) : undefined
const root = values.root ?? join(import.meta.dirname, '.data', `rounds-${count}`)
const lib = (path) => import(pathToFileURL(join(import.meta.dirname, '..', 'lib', path)).href)
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')
const { probeHealth } = await lib('knowledge/reports/health.js')

writeRounds(root, count)
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()

const measured = (r) => JSON.stringify([r.probed, r.recallAt5, r.mrr, r.unfindableTotal, r.unfindable, r.nearDuplicatesTotal, r.nearDuplicates])
async function probe(options) {
  const t = performance.now()
  let lagMax = 0
  let last = performance.now()
  const lag = setInterval(() => {
    lagMax = Math.max(lagMax, performance.now() - last - 10)
    last = performance.now()
  }, 10)
  const report = await probeHealth(store, { sample, record: false, ...options })
  clearInterval(lag)
  return { ms: performance.now() - t, report, lagMax }
}

// Warm-up: the first searches load expansion's tables and SQLite's pages.
await probeHealth(store, { sample: 200, record: false, threads: 0 })
const rounds = []
for (let k = 0; k < 2; k++) rounds.push({ a: await probe({ threads: 0 }), b: await probe({ threads }) })
await store.close()
console.log(`${count} documents, probe of ${rounds[0].a.report.probed} (${sample ? `sample ${sample}` : 'full'})`)
for (const { a, b } of rounds) {
  const same = measured(a.report) === measured(b.report)
  console.log(
    `  (a) one thread ${(a.ms / 1000).toFixed(2)} s (loop lag max ${a.lagMax.toFixed(0)} ms); (b) workers ${(b.ms / 1000).toFixed(2)} s (lag max ${b.lagMax.toFixed(0)} ms); (a)/(b) ×${(a.ms / b.ms).toFixed(2)}; recall@5 ${a.report.recallAt5}/${b.report.recallAt5}, MRR ${a.report.mrr}/${b.report.mrr}, ${same ? 'reports identical' : 'REPORTS DIFFER'}`,
  )
  if (!same) console.log(`    (a) ${measured(a.report).slice(0, 400)}\n    (b) ${measured(b.report).slice(0, 400)}`)
}
