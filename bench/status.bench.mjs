/**
 * What status costs the search index (issue 11), measured in one run against a baseline: the search index as it was
 * before relations (`src/search` of the commit named by BASE, default the branch point 2e5956e, extracted with
 * `git archive`), over the same generated corpus and query mix, against the current index over the same corpus with
 * 10 % superseded and 5 % retired documents. Each engine is measured three times, alternating, and the best of the
 * runs is kept (the machine is shared). Prints cold-index time, search p50/p99/max (default filter: retired left
 * out; and `status: 'all'`), count() (the pointer's number) and list(), with ratios against the baseline.
 *
 *   node bench/status.bench.mjs            # 10000 documents
 *   node bench/status.bench.mjs 100000
 *
 * Not part of the test suite; the numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/status
 */
import { execSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { generateRounds, rng } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data', 'status')
const size = Number(process.argv[2] ?? 10_000)

const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const fmt = (v) => `${v.toFixed(3)} ms`
const ratio = (a, b) => `×${(a / b).toFixed(2)}`

const BASE = process.env.BASE ?? '2e5956e'

/** Bundles `SearchIndex` from `srcDir` (the working tree's src, or the baseline's) into one ES module. */
async function load(srcDir, name) {
  const { buildSync } = await import(pathToFileURL(join(root, 'node_modules/esbuild/lib/main.js')).href)
  mkdirSync(data, { recursive: true })
  const entry = join(data, `${name}-entry.ts`)
  writeFileSync(entry, `export { SearchIndex } from ${JSON.stringify(join(srcDir, 'search/search-index.ts'))}\n`)
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: join(data, `${name}.mjs`), packages: 'external', logLevel: 'warning' })
  return (await import(pathToFileURL(join(data, `${name}.mjs`)).href)).SearchIndex
}

async function engines() {
  const baseDir = join(data, 'base')
  rmSync(baseDir, { recursive: true, force: true })
  mkdirSync(baseDir, { recursive: true })
  execSync(`git archive ${BASE} src | tar -x -C ${JSON.stringify(baseDir)}`, { cwd: root })
  return { baseline: await load(join(baseDir, 'src'), 'base'), current: await load(join(root, 'src'), 'current') }
}

function docsOf(rounds, withStatus) {
  const r = rng(99)
  return rounds.map((d, i) => {
    const meta = { ...d.meta }
    if (withStatus) {
      const x = r()
      if (x < 0.1) Object.assign(meta, { status: 'superseded', superseded_by: rounds[(i + 1) % rounds.length].meta.id })
      else if (x < 0.15) Object.assign(meta, { status: 'retired', retired: { at: meta.created, reason: 'bench' } })
    }
    return { id: meta.id, path: d.relPath, meta, body: d.body, mtimeMs: 1 }
  })
}

function queries(rounds) {
  const r = rng(4242)
  const out = []
  for (let k = 0; k < 300; k++) {
    const d = rounds[Math.floor(r() * rounds.length)]
    const words = d.meta.title.split(/\s+/).filter((w) => w.length > 3)
    out.push(words.slice(0, 2 + Math.floor(r() * 2)).join(' ') || d.meta.title)
  }
  return out
}

function measure(index, qs, filter) {
  for (const q of qs.slice(0, 30)) index.search(q, filter) // warm the statement cache
  const times = []
  for (const q of qs) {
    const t = performance.now()
    index.search(q, filter)
    times.push(performance.now() - t)
  }
  return summary(times)
}

function timeIt(fn, n = 200) {
  const times = []
  for (let k = 0; k < n; k++) {
    const t = performance.now()
    fn()
    times.push(performance.now() - t)
  }
  return summary(times)
}

const { baseline, current } = await engines()
const rounds = generateRounds(size)
const qs = queries(rounds)

async function run(SearchIndex, withStatus) {
  const docs = docsOf(rounds, withStatus)
  const index = new SearchIndex()
  const t = performance.now()
  index.upsertMany(docs)
  const cold = performance.now() - t
  await index.settle()
  const out = {
    cold,
    search: measure(index, qs, {}),
    searchAll: measure(index, qs, { status: 'all' }),
    count: timeIt(() => index.count()),
    countScope: timeIt(() => index.count({ scope: '/home/dev/projects/shop-api' })),
    list: timeIt(() => index.list({ limit: 50 }), 100),
    visible: index.count(),
  }
  index.close()
  return out
}
/** The better (lower) of two runs, field by field. */

const min = (a, b) => (typeof a === 'number' ? Math.min(a, b) : Object.fromEntries(Object.keys(a).map((k) => [k, min(a[k], b[k])])))
const runs = { base: [], cur: [] }
for (let k = 0; k < 3; k++) {
  runs.base.push(await run(baseline, false))
  runs.cur.push(await run(current, true))
}
const results = { 'baseline (no status)': runs.base.reduce(min), 'with status': { ...runs.cur.reduce(min), visible: runs.cur[0].visible } }

const base = results['baseline (no status)']
const stat = results['with status']
console.log(`status bench, ${size} documents; baseline: src/search of ${BASE} (before relations); current: this tree with 10 % superseded, 5 % retired; node ${process.version}`)
console.log(`| | baseline (${BASE}) | current, with status | ratio |`)
console.log(`|---|---|---|---|`)
console.log(`| cold index | ${base.cold.toFixed(0)} ms | ${stat.cold.toFixed(0)} ms | ${ratio(stat.cold, base.cold)} |`)
for (const [label, key] of [
  ['search p50', 'p50'],
  ['search p99', 'p99'],
  ['search max', 'max'],
]) {
  console.log(`| ${label} (default filter) | ${fmt(base.search[key])} | ${fmt(stat.search[key])} | ${ratio(stat.search[key], base.search[key])} |`)
}
console.log(`| search p99 (status: all) | ${fmt(base.searchAll.p99)} | ${fmt(stat.searchAll.p99)} | ${ratio(stat.searchAll.p99, base.searchAll.p99)} |`)
console.log(`| count() p99 (pointer, no scope) | ${fmt(base.count.p99)} | ${fmt(stat.count.p99)} | ${ratio(stat.count.p99, base.count.p99)} |`)
console.log(
  `| count({scope}) p50 / p99 | ${fmt(base.countScope.p50)} / ${fmt(base.countScope.p99)} | ${fmt(stat.countScope.p50)} / ${fmt(stat.countScope.p99)} | ${ratio(stat.countScope.p50, base.countScope.p50)} / ${ratio(stat.countScope.p99, base.countScope.p99)} |`,
)
console.log(
  `| list(50) p50 / p99 | ${fmt(base.list.p50)} / ${fmt(base.list.p99)} | ${fmt(stat.list.p50)} / ${fmt(stat.list.p99)} | ${ratio(stat.list.p50, base.list.p50)} / ${ratio(stat.list.p99, base.list.p99)} |`,
)
console.log(`| visible documents | ${base.visible} | ${stat.visible} | |`)

// The cost of the status machinery alone: both engines over the very same documents (no statuses), search p50 as the
// median of seven alternating passes (p50 is the number a shared machine does not scramble).
{
  const docs = docsOf(rounds, false)
  const before = new baseline()
  const now = new current()
  before.upsertMany(docs)
  now.upsertMany(docs)
  await before.settle()
  await now.settle()
  const p50 = (index, filter) => {
    const times = []
    for (const q of qs) {
      const t = performance.now()
      index.search(q, filter)
      times.push(performance.now() - t)
    }
    return pct(
      times.sort((a, b) => a - b),
      0.5,
    )
  }
  for (const q of qs) {
    before.search(q)
    now.search(q)
  }
  const runsAB = { before: [], now: [], all: [] }
  for (let k = 0; k < 7; k++) {
    runsAB.before.push(p50(before, {}))
    runsAB.now.push(p50(now, {}))
    runsAB.all.push(p50(now, { status: 'all' }))
  }
  const median = (xs) =>
    pct(
      [...xs].sort((a, b) => a - b),
      0.5,
    )
  console.log(
    `\nsame ${size} documents, no statuses, search p50 (median of 7 alternating passes): before ${fmt(median(runsAB.before))}, ` +
      `now ${fmt(median(runsAB.now))} (${ratio(median(runsAB.now), median(runsAB.before))}), now with status: 'all' ${fmt(median(runsAB.all))} (${ratio(median(runsAB.all), median(runsAB.before))})`,
  )
  before.close()
  now.close()
}
