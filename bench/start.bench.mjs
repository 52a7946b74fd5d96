/**
 * Start-up and tail-latency benchmark of the store with its persisted index (issue 14), against the in-memory
 * rebuild measured in the same run, over generated rounds written as files (bench/.data/, gitignored).
 *
 *   node bench/start.bench.mjs                       # 1000 and 10000 documents (a couple of minutes)
 *   node bench/start.bench.mjs 100000 300000         # the large points (many minutes; run them once)
 *   node bench/start.bench.mjs 10000 --tails         # also idle/burst tail latency and freshness at that size
 *   node bench/start.bench.mjs 300000 --no-memory    # skip the in-memory baseline (at 300k it takes minutes)
 *
 * Build first (`node scripts/build.mjs`): it measures lib/ as shipped, and the CLI as a user runs it. Each phase runs
 * in a fresh child process (start times exclude module loading; the CLI rows are end to end):
 * - memory: today's start without the cache (walk + read + parse + index every file): the baseline;
 * - rebuild: the cache deleted, start builds it; reuse: nothing changed; changed: 1% of files rewritten;
 * - search p50/p99/max over the search bench's query mix, add (store.write → found by a search), RSS growth after GC;
 * - cli: `dsh-knowledge search` as fresh processes, wall time end to end;
 * - tails (--tails): search p99/max idle and while another process captures 100 rounds/s into the same root, GC
 *   pauses and background merge steps seen during the searches, and the write → searchable and → on-disk times of
 *   100 rounds.
 * Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/start
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { PerformanceObserver } from 'node:perf_hooks'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data')
const lib = (p) => import(pathToFileURL(join(root, 'lib', p)).href)
const BIN = join(root, 'lib/cli/bin.js')
// The cache file's name as the store names it (it changes with the file's format).
const { CACHE_FILE } = await lib('knowledge/index-cache/index-cache.js')

const pct = (s, p) => (s.length ? s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] : NaN)
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const mb = (bytes) => bytes / 1048576
const gcRss = () => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().rss
}
const corpus = (size) => join(data, `rounds-${size}`)
const cacheDir = (size) => join(corpus(size), '.knowledge', 'cache')

async function openStore(size, options = {}) {
  const { KnowledgeStore } = await lib('knowledge/store.js')
  const { createRedactor } = await lib('redact/redactor.js')
  return new KnowledgeStore({ root: corpus(size), redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, ...options })
}

/** The search bench's query mix (written by bench/search.bench.mjs), else a small fixed one. */
function queries(size) {
  const file = join(data, `queries-${size}.json`)
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'))
  return ['ERR_PNPM_FETCH_404', 'TS2345', 'pod keeps restarting out of memory', '安装依赖失败', 'the tests fail in CI', 'docker', 'cache', 'SQLITE_BUSY'].map((q) => ({ q, filter: {} }))
}

function searchMix(store, size, passes = 3) {
  const times = []
  for (let pass = 0; pass < passes; pass++) {
    for (const q of queries(size)) {
      const t = performance.now()
      store.search(q.q, { ...q.filter, limit: 10 })
      times.push(performance.now() - t)
    }
  }
  return stats(times)
}

const draft = (k, marker) => ({
  kind: 'raw',
  title: `Bench round ${k}`,
  cwd: '/home/dev/projects/shop-api',
  session: `session-bench${String(k % 7).padStart(4, '0')}-0000-4000-8000-000000000000`,
  turn: 1000 + k,
  sections: [
    { heading: 'Question', text: `Why does job ${k} fail?` },
    { heading: 'Answer', text: `The culprit was ${marker} in the retry path; the pool size was too small.` },
  ],
})

/** A word no generated round holds, one token to the tokenizer (letters only), so finding it is a cheap search. */
const marker = (phase, k) => `zqx${phase}${[...String(k).padStart(3, '0')].map((c) => 'abcdefghij'[c]).join('')}w`

/**
 * Writes a round and looks for it as another caller in this process would, without slowing the write down: on every
 * event-loop turn a point lookup of its id (microseconds), and once the index holds it one search that must return
 * it as the top hit (`searchable`, that search included); then waits for the write to finish (`onDisk`: the file
 * fsync'd and renamed, its revision recorded). Both from the call to `store.write`.
 */
async function writeAndFind(store, d) {
  const word = d.sections[1].text.match(/zqx\w+/)[0]
  const { id } = await store.prepare(d, { dryRun: true })
  const t = performance.now()
  const writing = store.write(d)
  let done = false
  void writing.then(
    () => (done = true),
    () => (done = true),
  )
  while (!store.get(id) && !done) await new Promise((r) => setImmediate(r))
  if (store.search(word, { limit: 1 })[0]?.id !== id) throw new Error(`round ${id} not searchable after its write`)
  const searchable = performance.now() - t
  const written = await writing
  return { searchable, onDisk: performance.now() - t, written }
}

// ------------------------------------------------------------------------------------------------ children

const PHASES = {
  /** Today's start without a cache: the baseline. */
  async memory(size) {
    const rss0 = gcRss()
    const store = await openStore(size, { cache: false })
    const c = process.cpuUsage()
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const cu = process.cpuUsage(c)
    const out = { start, cpu: (cu.user + cu.system) / 1000, docs: store.size, rss: mb(gcRss() - rss0) }
    await store.close()
    return out
  },
  async rebuild(size) {
    rmSync(cacheDir(size), { recursive: true, force: true })
    const rss0 = gcRss()
    const store = await openStore(size)
    const c = process.cpuUsage()
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const cu = process.cpuUsage(c)
    const rss = mb(gcRss() - rss0)
    const tc = performance.now()
    await store.close()
    return { start, cpu: (cu.user + cu.system) / 1000, close: performance.now() - tc, docs: store.size, rss, file: mb(statSync(join(cacheDir(size), CACHE_FILE)).size) }
  },
  async reuse(size) {
    const lines = []
    const rss0 = gcRss()
    const store = await openStore(size, { logger: { info: (f) => lines.push(f), warn: (f) => lines.push(f), debug() {} } })
    const c = process.cpuUsage()
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const cu = process.cpuUsage(c)
    const cpu = (cu.user + cu.system) / 1000
    const rss = mb(gcRss() - rss0)
    const search = searchMix(store, size)
    const adds = []
    for (let k = 0; k < 20; k++) {
      const { searchable, written } = await writeAndFind(store, draft(k, marker('s', k)))
      adds.push(searchable)
      rmSync(join(corpus(size), written.path))
    }
    const rssAfter = mb(gcRss() - rss0)
    const docs = store.size - adds.length
    await store.close()
    // The added rounds' files are gone: let a start drop them from the cache (not timed), so later phases see the corpus.
    const again = await openStore(size)
    await again.start()
    await again.close()
    return { start, cpu, docs, rss, rssAfter, search, add: stats(adds), logged: lines.length }
  },
  async changed(size) {
    const paths = JSON.parse(readFileSync(join(corpus(size), '.manifest.json'), 'utf8')).paths
    const step = 100
    const originals = new Map()
    for (let i = 0; i < paths.length; i += step) {
      const file = join(corpus(size), paths[i])
      const text = readFileSync(file, 'utf8')
      originals.set(file, text)
      writeFileSync(file, `${text}\nEdited by hand: the retry budget is now 5.\n`)
    }
    const store = await openStore(size)
    const c = process.cpuUsage()
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const cu = process.cpuUsage(c)
    await store.close()
    for (const [file, text] of originals) writeFileSync(file, text)
    // Put the cache back in step with the restored files (not timed).
    const again = await openStore(size)
    await again.start()
    await again.close()
    return { start, cpu: (cu.user + cu.system) / 1000, changedFiles: originals.size }
  },
  async tails(size) {
    const { KnowledgeStore } = await lib('knowledge/store.js')
    const { createRedactor } = await lib('redact/redactor.js')
    const plans = {}
    const store = new KnowledgeStore({
      root: corpus(size),
      redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }),
      watch: true,
      index: {
        onPlan: (p) => {
          plans[p] = (plans[p] ?? 0) + 1
        },
      },
    })
    await store.start()
    await new Promise((r) => setTimeout(r, 500))
    const gcs = []
    const obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcs.push({ at: e.startTime, ms: e.duration })
    })
    obs.observe({ entryTypes: ['gc'] })
    const one = (q) => {
      const c = process.cpuUsage()
      const t = performance.now()
      store.search(q.q, { ...q.filter, limit: 10 })
      const ms = performance.now() - t
      const cu = process.cpuUsage(c)
      // CPU time of the process during the search: wall ≫ CPU means the search waited for a core (shared machine).
      return { at: t, ms, cpu: (cu.user + cu.system) / 1000, q: q.q }
    }
    const timed = (passes) => {
      const rows = []
      for (let pass = 0; pass < passes; pass++) for (const q of queries(size)) rows.push(one(q))
      return rows
    }
    const idle = timed(3)
    // Rounds written by this process while nothing else happens: write → searchable, and → on disk.
    const quiet = { fresh: [], durable: [] }
    for (let k = 0; k < 50; k++) {
      const { searchable, onDisk } = await writeAndFind(store, draft(300 + k, marker('q', k)))
      quiet.fresh.push(searchable)
      quiet.durable.push(onDisk)
    }
    // Burst: another process captures 100 rounds/s into the same root for ~4 s; this process's watcher indexes them.
    const writer = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--writer', String(size)], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise((resolve) =>
      writer.stdout.on('data', (d) => {
        if (String(d).includes('burst')) resolve()
      }),
    )
    const burst = []
    const before = store.size
    // Another process's round → indexed here: the watcher's event (debounced 30 ms: editors write in steps), the
    // read, the upsert; from the file's ctime (its rename into place, after the writer's fsync; one clock: the same
    // machine) to this process's `written` event.
    const crossed = []
    const off = store.onChange((change) => {
      if (change.type !== 'written' || !change.path.startsWith('burst/')) return
      try {
        crossed.push(Date.now() - statSync(join(corpus(size), change.path)).ctimeMs)
      } catch {
        /* removed meanwhile */
      }
    })
    const deadline = performance.now() + 4000
    // One search per event-loop turn, as requests arrive in a process that also runs its watcher.
    const mix = queries(size)
    for (let i = 0; performance.now() < deadline; i++) {
      burst.push(one(mix[i % mix.length]))
      await new Promise((r) => setImmediate(r))
    }
    await new Promise((r) => writer.on('close', r))
    await new Promise((r) => setTimeout(r, 300))
    const picked = store.size - before
    off()
    // Fresh rounds written by this process: write → searchable, and → on disk.
    const fresh = []
    const durable = []
    for (let k = 0; k < 100; k++) {
      const { searchable, onDisk } = await writeAndFind(store, draft(500 + k, marker('f', k)))
      fresh.push(searchable)
      durable.push(onDisk)
    }
    obs.disconnect()
    const gcDuring = (rows) => rows.filter((r) => gcs.some((g) => g.at < r.at + r.ms && g.at + g.ms > r.at))
    const slow = (rows) => rows.filter((r) => r.ms > 5)
    const explain = (rows) => ({
      slow: slow(rows).length,
      slowWithGc: gcDuring(slow(rows)).length,
      slowest: [...rows]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 3)
        .map((r) => `${r.q.slice(0, 28)} ${r.ms.toFixed(1)}ms`),
    })
    await store.close()
    // Remove what the burst and the fresh rounds added, so the corpus stays the generated one.
    rmSync(join(corpus(size), 'burst'), { recursive: true, force: true })
    for (const dir of ['session-bench0000', 'session-bench0001', 'session-bench0002', 'session-bench0003', 'session-bench0004', 'session-bench0005', 'session-bench0006']) {
      rmSync(join(corpus(size), `${dir}-0000-4000-8000-000000000000`), { recursive: true, force: true })
    }
    return {
      idle: stats(idle.map((r) => r.ms)),
      burst: stats(burst.map((r) => r.ms)),
      picked,
      crossed: stats(crossed),
      fresh: stats(fresh),
      durable: stats(durable),
      quietFresh: stats(quiet.fresh),
      quietDurable: stats(quiet.durable),
      plans,
      idleCpu: stats(idle.map((r) => r.cpu)),
      burstCpu: stats(burst.map((r) => r.cpu)),
      load: (await import('node:os')).loadavg()[0],
      gcMax: Math.max(0, ...gcs.map((g) => g.ms)),
      idleWhy: explain(idle),
      burstWhy: explain(burst),
    }
  },
}

/** The other process of the burst: a real store on the same root writing 100 rounds/s for 4 s. */
async function writer(size) {
  const store = await openStore(size)
  await store.start()
  process.stdout.write('burst\n')
  const t0 = performance.now()
  for (let k = 0; k < 400; k++) {
    const due = t0 + k * 10
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    await store.write({ ...draft(k, `zqxBurst${k}`), session: 'burst', turn: k + 1 })
  }
  await store.close()
}

// ------------------------------------------------------------------------------------------------ parent

function child(phase, size) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', phase, String(size)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return JSON.parse(out.trim().split('\n').pop())
}

/** `dsh-knowledge search` as a user runs it: a fresh process, wall time from spawn to exit. */
function cli(size, runs = size > 100_000 ? 3 : 5) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    const r = spawnSync(process.execPath, [BIN, 'search', i % 2 ? 'ERR_PNPM_FETCH_404 lockfile' : 'pod keeps restarting out of memory', '--root', corpus(size), '--limit', '5'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    times.push(performance.now() - t)
    if (r.status !== 0 || r.stderr) throw new Error(`cli failed: ${r.stderr}`)
  }
  return stats(times)
}

const f = (x, unit = 'ms') => (Number.isFinite(x) ? `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)} ${unit}` : '—')
const ratio = (ours, base) => (Number.isFinite(ours) && Number.isFinite(base) && ours > 0 ? `${(base / ours).toFixed(base / ours >= 10 ? 0 : 1)}×` : '—')

async function main() {
  const argv = process.argv.slice(2)
  if (argv[0] === '--child') {
    const result = await PHASES[argv[1]](Number(argv[2]))
    process.stdout.write('\n' + JSON.stringify(result) + '\n')
    return
  }
  if (argv[0] === '--writer') return writer(Number(argv[1]))
  if (!existsSync(BIN)) throw new Error('build first: node scripts/build.mjs')
  const sizes = argv.filter((a) => /^\d+$/.test(a)).map(Number)
  const tails = argv.includes('--tails')
  const noMemory = argv.includes('--no-memory')
  const os = await import('node:os')
  console.log(
    `node ${process.version}, ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; bench/start.bench.mjs ${argv.join(' ')}`,
  )
  const curve = []
  for (const size of sizes.length ? sizes : [1000, 10_000]) {
    const t = performance.now()
    writeRounds(corpus(size), size)
    console.log(`\n[${size}] corpus ready (${Math.round(performance.now() - t)} ms)`)
    // Files indexed within 2 s of being written are "racy" (their content is checked at the next start, by design):
    // a corpus written just now would make the first reuse read its newest files again.
    const age = Date.now() - statSync(join(corpus(size), '.manifest.json')).mtimeMs
    if (age < 2500) await new Promise((resolve) => setTimeout(resolve, 2500 - age))
    const memory = noMemory ? undefined : child('memory', size)
    const rebuild = child('rebuild', size)
    const reuse = child('reuse', size)
    const cliRuns = cli(size)
    const changed = child('changed', size)
    console.log(`=== ${size.toLocaleString('en')} documents (${reuse.docs} indexed; cache file ${f(rebuild.file, 'MB')}) ===`)
    if (memory) console.log(`  start, in memory (no cache; baseline)     ${f(memory.start).padStart(10)} (CPU ${f(memory.cpu)})   RSS growth ${f(memory.rss, 'MB')}`)
    console.log(
      `  start, building the cache                 ${f(rebuild.start).padStart(10)} (CPU ${f(rebuild.cpu)})   RSS growth ${f(rebuild.rss, 'MB')}` +
        (memory ? `   (${(rebuild.start / memory.start).toFixed(2)}× the baseline's time)` : '') +
        `; close ${f(rebuild.close)}`,
    )
    console.log(
      `  start, cache reused, nothing changed      ${f(reuse.start).padStart(10)} (CPU ${f(reuse.cpu)})   RSS growth ${f(reuse.rss, 'MB')}   ${ratio(reuse.start, rebuild.start)} faster than the rebuild` +
        (memory ? `, ${ratio(reuse.start, memory.start)} than the baseline` : ''),
    )
    console.log(`  start, cache reused, 1% changed (${changed.changedFiles} files) ${f(changed.start).padStart(8)} (CPU ${f(changed.cpu)})`)
    console.log(`  dsh-knowledge search, fresh process       p50 ${f(cliRuns.p50)}, max ${f(cliRuns.max)} (${cliRuns.n} runs, end to end)`)
    console.log(`  search (query mix, 3 passes)              p50 ${f(reuse.search.p50)}, p99 ${f(reuse.search.p99)}, max ${f(reuse.search.max)}`)
    console.log(`  add (store.write → searchable)            p50 ${f(reuse.add.p50)}, max ${f(reuse.add.max)}; RSS growth after searches and adds ${f(reuse.rssAfter, 'MB')}`)
    curve.push({ size, memory, rebuild, reuse, changed, cli: cliRuns })
    if (tails) {
      const tl = child('tails', size)
      console.log(
        `  tails: search idle p50 ${f(tl.idle.p50)}, p99 ${f(tl.idle.p99)}, max ${f(tl.idle.max)}; during a 100 rounds/s capture burst from another process p50 ${f(tl.burst.p50)}, p99 ${f(tl.burst.p99)}, max ${f(tl.burst.max)} (${(tl.burst.p99 / tl.idle.p99).toFixed(1)}× idle p99; ${tl.picked} rounds picked up by the watcher)`,
      )
      console.log(
        `    the same searches in CPU time (what they cost, without waiting for a core; load average ${tl.load.toFixed(1)} on ${os.cpus().length} cores): idle p50 ${f(tl.idleCpu.p50)}, p99 ${f(tl.idleCpu.p99)}, max ${f(tl.idleCpu.max)}; burst p50 ${f(tl.burstCpu.p50)}, p99 ${f(tl.burstCpu.p99)}, max ${f(tl.burstCpu.max)}`,
      )
      console.log(
        `    write → searchable, idle (50 rounds): p50 ${f(tl.quietFresh.p50)}, p99 ${f(tl.quietFresh.p99)}, max ${f(tl.quietFresh.max)}; → on disk (fsync'd): p50 ${f(tl.quietDurable.p50)}, max ${f(tl.quietDurable.max)}`,
      )
      console.log(`    another process's round → indexed here (its watcher event is debounced 30 ms): p50 ${f(tl.crossed.p50)}, p99 ${f(tl.crossed.p99)}, max ${f(tl.crossed.max)}`)
      console.log(
        `    write → searchable, after the burst while its segments merge (100 rounds): p50 ${f(tl.fresh.p50)}, p99 ${f(tl.fresh.p99)}, max ${f(tl.fresh.max)}; → on disk (fsync'd): p50 ${f(tl.durable.p50)}, p99 ${f(tl.durable.p99)}, max ${f(tl.durable.max)}; longest GC pause ${f(tl.gcMax)}; plans ${JSON.stringify(tl.plans)}`,
      )
      console.log(
        `    searches over 5 ms: idle ${tl.idleWhy.slow} (${tl.idleWhy.slowWithGc} overlapping a GC), burst ${tl.burstWhy.slow} (${tl.burstWhy.slowWithGc} overlapping a GC); slowest idle: ${tl.idleWhy.slowest.join('; ')}; slowest in the burst: ${tl.burstWhy.slowest.join('; ')}`,
      )
    }
  }
  console.log('\nScale curve (README table):')
  console.log('| documents | start, no cache (CPU) | start, cache built (CPU) | start, cache reused (CPU) | 1% changed (CPU) | CLI search | search p50 / p99 | add p50 / max | RSS growth |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  const w = (x) => (x ? `${f(x.start)} (${f(x.cpu)})` : '—')
  for (const c of curve) {
    console.log(
      `| ${c.size.toLocaleString('en')} | ${w(c.memory)} | ${w(c.rebuild)} | ${w(c.reuse)} | ${w(c.changed)} | ${f(c.cli.p50)} | ${f(c.reuse.search.p50)} / ${f(c.reuse.search.p99)} | ${f(c.reuse.add.p50)} / ${f(c.reuse.add.max)} | ${f(c.reuse.rss, 'MB')} |`,
    )
  }
}

await main()
