/**
 * The health probe at size (issue 30, item 6): a full probe (one search per document) and a sampled one, against the
 * probe's previous loop measured in the same run on the same store: (a) each document read from its file (a revision
 * check each) and searched, a turn for the event loop per document; (b) `probeHealth` as it is (the indexed body, a
 * turn every few milliseconds). Both search the same queries with the same filter, so their recall@5 must agree up to
 * documents whose link targets or comments held probe words (printed).
 *
 *   node bench/health.bench.mjs [count=10000] [--sample N] [--root DIR]   (after `pnpm run build`: it loads lib/)
 * @module dsh-knowledge-sync/bench/health
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const { values, positionals } = parseArgs({ allowPositionals: true, options: { sample: { type: 'string' }, root: { type: 'string' } } })
const count = Number(positionals[0] ?? 10_000)
const sample = values.sample ? Number(values.sample) : undefined
const root = values.root ?? join(import.meta.dirname, '.data', `rounds-${count}`)
const lib = (path) => import(pathToFileURL(join(import.meta.dirname, '..', 'lib', path)).href)
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')
const { activeDocuments, probeHealth, probeQuery } = await lib('knowledge/reports/health.js')

writeRounds(root, count)
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()

async function previousLoop() {
  const t = performance.now()
  // The probe's own documents (a single list call here had returned only the first 1,000).
  const all = activeDocuments(store)
  const step = sample && all.length > sample ? all.length / sample : 1
  const docs = step === 1 ? all : Array.from({ length: sample }, (_, k) => all[Math.floor(k * step)])
  let found = 0
  for (const meta of docs) {
    await new Promise((resolve) => setImmediate(resolve))
    const doc = await store.read(meta.id)
    if (!doc) continue
    const query = probeQuery(meta.title, doc.body)
    const hits = query ? store.search(query, { limit: 5, scope: meta.cwd || undefined }) : []
    if (hits.some((h) => h.id === meta.id)) found++
  }
  return { ms: performance.now() - t, recall: found / docs.length, probed: docs.length }
}

// Warm-up: the first searches load expansion's tables and SQLite's pages for both.
await probeHealth(store, { sample: 200, record: false })
const rounds = []
for (let k = 0; k < 2; k++) {
  const a = await previousLoop()
  const t = performance.now()
  const report = await probeHealth(store, { sample, record: false })
  rounds.push({ a, b: { ms: performance.now() - t, recall: report.recallAt5, probed: report.probed } })
}
await store.close()
console.log(`${count} documents, probe of ${rounds[0].b.probed} (${sample ? `sample ${sample}` : 'full'})`)
for (const { a, b } of rounds) {
  console.log(
    `  (a) previous loop ${(a.ms / 1000).toFixed(2)} s, recall@5 ${a.recall.toFixed(3)}; (b) probeHealth ${(b.ms / 1000).toFixed(2)} s, recall@5 ${b.recall.toFixed(3)}; (a)/(b) ×${(a.ms / b.ms).toFixed(2)}`,
  )
}
