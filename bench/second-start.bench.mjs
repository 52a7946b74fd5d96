/**
 * A second process's start beside a first one that has the shared index open (issue 30: ready in ≤ 1.5 s with
 * ≤ 50 MB RSS growth at 100k documents), for two builds of lib/ in the same run: the children alternate between them
 * on the same root, so that the machine's load weighs on both alike. Per child: ready time, RSS and heap growth after
 * a full collection (as `second` in bench/shared.bench.mjs), then the search mix: the first pass's p50 (SQLite's page
 * cache still cold) and the p50/p99 of the later ones (`--passes`, default 5). The corpus and its index
 * are bench/shared.bench.mjs's (bench/.data/rounds-<size>, built on first use). The second process watches the root as
 * dsh's does (so it may start on the first one's freshness stamp, knowledge/index-cache/watch-stamp.ts); `--no-watch`
 * starts it without a watcher (it then checks every file). The table says how each build's start checked freshness.
 *
 *   node bench/second-start.bench.mjs --base <lib dir> [--runs 3] [--passes 5] [--no-watch] 10000 100000    # <lib dir>: a copy of lib/ before a change
 *
 * Build first (`node scripts/build.mjs`): the other build is lib/.
 * @module dsh-knowledge-sync/bench/second-start
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const QUERIES = ['ERR_PNPM_FETCH_404', 'TS2345', 'pod keeps restarting out of memory', '安装依赖失败', 'the tests fail in CI', 'docker', 'cache', 'SQLITE_BUSY', 'vite hmr', 'lockfile']
const mb = (bytes) => bytes / 1048576
const gcMemory = () => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage()
}
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

async function openStore(lib, dir, options = {}) {
  const { KnowledgeStore } = await import(pathToFileURL(join(lib, 'knowledge/store.js')).href)
  const { createRedactor } = await import(pathToFileURL(join(lib, 'redact/redactor.js')).href)
  return new KnowledgeStore({ root: dir, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, ...options })
}

if (process.argv[2] === '--child') {
  const [phase, lib, dir, passes = '5', watch = 'watch'] = process.argv.slice(3)
  setInterval(() => {}, 1000)
  if (phase === 'hold') {
    const store = await openStore(lib, dir, { watch: true })
    await store.start()
    process.stdout.write('ready\n')
    await new Promise((r) => process.stdin.on('end', r).resume())
    await store.close()
    process.exit(0)
  }
  const before = gcMemory()
  let freshness = ''
  const logger = {
    info() {},
    warn() {},
    debug: (format, ...args) => format.startsWith('indexed') && (freshness = /freshness (\w+)/.exec(format.replace(/%[sd]/g, () => String(args.shift())))?.[1] ?? ''),
  }
  const store = await openStore(lib, dir, { watch: watch === 'watch', logger })
  const t = performance.now()
  await store.start()
  const start = performance.now() - t
  const after = gcMemory()
  // The first pass meets SQLite's page cache cold; the later ones show the steady state.
  const first = []
  const later = []
  for (let pass = 0; pass < Number(passes); pass++) {
    for (const q of QUERIES) {
      const s = performance.now()
      store.search(q, { limit: 10 })
      ;(pass ? later : first).push(performance.now() - s)
    }
  }
  first.sort((a, b) => a - b)
  later.sort((a, b) => a - b)
  const out = { start, rss: mb(after.rss - before.rss), heap: mb(after.heapUsed - before.heapUsed), docs: store.size, freshness, first: pct(first, 0.5), p50: pct(later, 0.5), p99: pct(later, 0.99) }
  await store.close()
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`)
  process.exit(0)
}

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback)
const base = opt('--base')
if (!base) throw new Error('--base <lib dir> is required')
const builds = { before: resolve(base), after: join(dirname(here), 'lib') }
const runs = Number(opt('--runs', 3))
const passes = Number(opt('--passes', 5))
const sizes = args.filter((a, i) => /^\d+$/.test(a) && !['--runs', '--passes'].includes(args[i - 1])).map(Number)
const load = () => readFileSync('/proc/loadavg', 'utf8').trim()
const child = (lib, dir) => {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', 'second', lib, dir, String(passes), args.includes('--no-watch') ? 'no-watch' : 'watch'],
    { encoding: 'utf8' },
  )
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '))
  if (!line) throw new Error(`child failed: ${r.stderr}`)
  return JSON.parse(line.slice(7))
}
const f = (x) => (x >= 100 ? String(Math.round(x)) : x.toFixed(1))

console.log(`# second process start — ${new Date().toISOString()}, load ${load()}; before: ${builds.before}, after: ${builds.after}`)
for (const size of sizes) {
  const dir = join(here, '.data', `rounds-${size}`)
  if (!existsSync(join(dir, '.manifest.json'))) writeRounds(dir, size)
  // The first process (the current build) builds the index if there is none, and holds it open.
  const first = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', 'hold', builds.after, dir], { stdio: ['pipe', 'pipe', 'inherit'] })
  await new Promise((r) => createInterface({ input: first.stdout }).on('line', (l) => l === 'ready' && r()))
  const results = { before: [], after: [] }
  for (let k = 0; k < runs; k++) for (const name of k % 2 ? ['after', 'before'] : ['before', 'after']) results[name].push(child(builds[name], dir))
  first.stdin.end()
  await new Promise((r) => first.on('exit', r))
  console.log(`\n## ${size.toLocaleString('en')} documents, ${runs} runs each, alternating (load after: ${load()})`)
  console.log(`| build | freshness | ready (median) | RSS growth (median; min–max) | heap growth | first pass p50 | passes 2–${passes} p50 / p99 (median) |`)
  console.log('|---|---|---|---|---|---|---|')
  for (const [name, rs] of Object.entries(results)) {
    const rss = rs.map((r) => r.rss)
    console.log(
      `| ${name} | ${[...new Set(rs.map((r) => r.freshness))].join(', ')} | ${f(median(rs.map((r) => r.start)))} ms | +${f(median(rss))} MB (${f(Math.min(...rss))}–${f(Math.max(...rss))}) | +${f(median(rs.map((r) => r.heap)))} MB | ${f(median(rs.map((r) => r.first)))} ms | ${f(median(rs.map((r) => r.p50)))} / ${f(median(rs.map((r) => r.p99)))} ms |`,
    )
  }
  const ratio = (key) => median(results.before.map((r) => r[key])) / median(results.after.map((r) => r[key]))
  console.log(
    `before/after: ready ${ratio('start').toFixed(2)}×, RSS growth ${ratio('rss').toFixed(2)}×, first pass ${ratio('first').toFixed(2)}×, later p50 ${ratio('p50').toFixed(2)}×, p99 ${ratio('p99').toFixed(2)}×`,
  )
}
