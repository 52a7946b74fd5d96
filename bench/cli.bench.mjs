/**
 * A fresh `dsh-knowledge search`, end to end (issue 30, item 2), and where its time goes: against baselines measured
 * in the same run, turn by turn (A B C D A B C D …, so a machine that slows down slows all of them):
 * - `node -e ''`: a Node process's start and exit;
 * - `--help`: that plus the CLI's entry modules;
 * - search, nobody watching (a few runs first): the full freshness check (every document file stat'ed against the
 *   index's manifest);
 * - then with a watching owner live (`dsh-knowledge watch`, holding the index), in turn: search with
 *   the stamp switched off (DSH_KNOWLEDGE_FRESHNESS=walk: the full check, as before), and search trusting the
 *   owner's freshness stamp (knowledge/index-cache/watch-stamp.ts).
 * Each search runs with DSH_KNOWLEDGE_DEBUG=1, whose lines split it: process start + CLI load, store open (module
 * load, opening the index, freshness), query, output; the index line says whether the walk was skipped.
 *
 *   node bench/cli.bench.mjs [sizes=10000] [--runs N] [--vs OTHER_LIB]   (after `pnpm run build`: it runs lib/cli/bin.js)
 * `--vs OTHER_LIB`: another build's lib/ (say a copy of the previous commit's, kept inside the checkout so that its
 * packages resolve): each search row runs both builds in turn, and the ratio this/other is printed pair by pair.
 * Corpora are generated rounds under bench/.data/ (gitignored); the first search of a size builds its index.
 * Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/cli
 */
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const BIN = join(root, 'lib/cli/bin.js')
const QUERIES = ['ERR_PNPM_FETCH_404', 'TS2345', 'pod keeps restarting out of memory', '安装依赖失败', 'the tests fail in CI', 'docker', 'cache', 'SQLITE_BUSY']
const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string' }, vs: { type: 'string' } } })
const OTHER = values.vs ? join(values.vs, 'cli/bin.js') : undefined
const sizes = positionals.length ? positionals.map(Number) : [10_000]
const runs = Number(values.runs ?? 9)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN
}
const f = (ms) => (Number.isFinite(ms) ? `${ms >= 100 ? Math.round(ms) : ms.toFixed(1)} ms` : '—')

/** One fresh process, wall time from spawn to exit, with its debug lines parsed. */
function timed(args, env = {}) {
  const t = performance.now()
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, ...env } })
  const wall = performance.now() - t
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`)
  const timings = /search timings: process start and CLI load ([\d.]+) ms, store open ([\d.]+) ms, query ([\d.]+) ms, output and close ([\d.]+) ms/.exec(r.stderr)
  const index = /indexed \d+ document\(s\) under .* in (\d+) ms \(index (\w+): .*freshness (.*)\)$/m.exec(r.stderr)
  return {
    wall,
    start: timings ? Number(timings[1]) : Number.NaN,
    open: timings ? Number(timings[2]) : Number.NaN,
    query: timings ? Number(timings[3]) : Number.NaN,
    output: timings ? Number(timings[4]) : Number.NaN,
    index: index ? Number(index[1]) : Number.NaN,
    mode: index?.[2],
    vouched: index ? index[3].startsWith('vouched') : false,
  }
}

/** A watching owner on `dir`: `dsh-knowledge watch`, as a person starts it; resolves once it vouches for the index. */
async function owner(dir) {
  const child = spawn(process.execPath, [BIN, 'watch', '--root', dir, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })
  const ready = await new Promise((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))))
  console.log(`dsh-knowledge watch ready in ${f(ready.readyMs)} (${ready.documents.toLocaleString('en')} documents)`)
  return child
}

for (const size of sizes) {
  const dir = join(here, '.data', `rounds-${size}`)
  if (!existsSync(join(dir, '.manifest.json'))) writeRounds(dir, size)
  const search = (k, bin = BIN) => [bin, 'search', QUERIES[k % QUERIES.length], '--root', dir, '--limit', '5']
  timed(search(0)) // builds or reconciles the index; warms the compile cache and the page cache
  if (OTHER) timed(search(0, OTHER))
  console.log(`\n## ${size.toLocaleString('en')} documents, ${runs} runs each, interleaved (load: ${readFileSync('/proc/loadavg', 'utf8').trim()})`)
  const rows = { node: [], help: [], walk: [], stamp: [], alone: [], otherWalk: [], otherStamp: [], otherAlone: [] }
  // Nobody watching: the full check, as a CLI run beside no dsh process does it (all runs when comparing builds).
  for (let k = 0; k < (OTHER ? runs : Math.min(runs, 3)); k++) {
    if (OTHER) rows.otherAlone.push(timed(search(k, OTHER), { DSH_KNOWLEDGE_DEBUG: '1' }))
    rows.alone.push(timed(search(k), { DSH_KNOWLEDGE_DEBUG: '1' }))
  }
  const live = await owner(dir)
  // The owner's background warm-up (a few seconds of CPU after it is ready, ~5 s per 100k documents) would otherwise be measured too.
  await new Promise((resolve) => setTimeout(resolve, Math.max(5000, size / 20)))
  for (let k = 0; k < runs; k++) {
    rows.node.push(timed(['-e', '']))
    rows.help.push(timed([BIN, '--help']))
    // The old path with the owner live: the stamp switched off (DSH_KNOWLEDGE_FRESHNESS=walk).
    if (OTHER) rows.otherWalk.push(timed(search(k, OTHER), { DSH_KNOWLEDGE_DEBUG: '1', DSH_KNOWLEDGE_FRESHNESS: 'walk' }))
    rows.walk.push(timed(search(k), { DSH_KNOWLEDGE_DEBUG: '1', DSH_KNOWLEDGE_FRESHNESS: 'walk' }))
    if (OTHER) rows.otherStamp.push(timed(search(k, OTHER), { DSH_KNOWLEDGE_DEBUG: '1' }))
    rows.stamp.push(timed(search(k), { DSH_KNOWLEDGE_DEBUG: '1' }))
  }
  const exited = new Promise((resolve) => live.once('exit', resolve))
  live.kill('SIGINT')
  await exited
  const m = (row, key) => median(rows[row].map((r) => r[key]))
  const line = (name, row) =>
    `${name.padEnd(28)} wall ${f(m(row, 'wall')).padStart(7)}` +
    (row !== 'node' && row !== 'help'
      ? ` = start+CLI load ${f(m(row, 'start'))}, store open ${f(m(row, 'open'))} (index+freshness ${f(m(row, 'index'))}), query ${f(m(row, 'query'))}, output ${f(m(row, 'output'))}; walk skipped ${rows[row].filter((r) => r.vouched).length}/${rows[row].length}`
      : '')
  console.log(line("node -e ''", 'node'))
  console.log(line('dsh-knowledge --help', 'help'))
  console.log(line('search, nobody watching', 'alone'))
  console.log(line('search, stamp off (walk)', 'walk'))
  console.log(line('search, owner vouches', 'stamp'))
  if (OTHER) {
    console.log(line('other: nobody watching', 'otherAlone'))
    console.log(line('other: stamp off (walk)', 'otherWalk'))
    console.log(line('other: owner vouches', 'otherStamp'))
    const pairs = (a, b, key) => median(rows[a].map((r, k) => r[key] / rows[b][k][key])).toFixed(2)
    for (const [name, a, b] of [
      ['nobody watching', 'alone', 'otherAlone'],
      ['stamp off (walk)', 'walk', 'otherWalk'],
      ['owner vouches', 'stamp', 'otherStamp'],
    ])
      console.log(`ratio this/other per pair, ${name}: wall ${pairs(a, b, 'wall')}, start+CLI load ${pairs(a, b, 'start')}, store open ${pairs(a, b, 'open')}, index+freshness ${pairs(a, b, 'index')}`)
  }
  const ratios = rows.stamp.map((r, k) => r.wall / rows.walk[k].wall)
  console.log(
    `ratio stamp/walk per pair: median ${median(ratios).toFixed(2)}; stamp − node start ${f(m('stamp', 'wall') - m('node', 'wall'))}, walk − node start ${f(m('walk', 'wall') - m('node', 'wall'))}`,
  )
}
