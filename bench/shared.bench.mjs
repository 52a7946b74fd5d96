/**
 * One index file shared by every process on a root (issue 30, items 1, 3 and 5), over generated rounds written as
 * files (bench/.data/, gitignored). Every phase runs in a fresh child process; numbers are printed, not asserted.
 *
 *   node bench/shared.bench.mjs 10000 100000              # the scale curve at these sizes
 *   node bench/shared.bench.mjs 1000000 --no-memory       # the million point (long; no in-memory baseline)
 *   node bench/shared.bench.mjs --tails [--base <lib dir>] 10000 100000      # item 4: search tails after the warm-up and the merge, 3 runs each (alternating with an earlier build's copy)
 *   node bench/shared.bench.mjs --ready [runs] 100000    # a watching start: waiting for the check of every file, or checking it behind
 *   node bench/shared.bench.mjs --writers [seconds]       # two writers at 100 rounds/s each + a watching reader
 *                                                         # + fresh processes starting meanwhile
 *
 * Curve, per size: `rebuild` (no cache: a fresh clone; its progress lines, time, disk), `reuse` (start, RSS growth,
 * search p50/p99/max over the query mix), `second` (a second process started while a first one has the file open:
 * ready time and RSS growth) against `memory` (the same second process as before this change: a private in-memory
 * build from every file, measured in the same run), `changed` (1% of the files rewritten, then a start), `cli` (a
 * fresh `dsh-knowledge search`, end to end).
 * Writers: two processes capture 100 rounds/s each into one root while a third, watching, looks for each round as soon
 * as its writer says it is written (cross-process visibility p50/p99/max); then errors, lost and duplicated documents,
 * and the shared cache compared with a rebuild (same ids, same top-10 rankings for a fixed query set).
 * Build first (`node scripts/build.mjs`): it measures lib/ as shipped.
 * @module dsh-knowledge-sync/bench/shared
 */
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data')
// `--tails --base <lib dir>`: the tails' children alternate between lib/ and that copy of an earlier build (BENCH_LIB).
const lib = (p) => import(pathToFileURL(join(process.env.BENCH_LIB ?? join(root, 'lib'), p)).href)
const BIN = join(root, 'lib/cli/bin.js')
const QUERIES = ['ERR_PNPM_FETCH_404', 'TS2345', 'pod keeps restarting out of memory', '安装依赖失败', 'the tests fail in CI', 'docker', 'cache', 'SQLITE_BUSY', 'vite hmr', 'lockfile']

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
const now = () => performance.timeOrigin + performance.now()
const corpus = (size) => join(data, `rounds-${size}`)
const cacheDir = (dir) => join(dir, '.knowledge', 'cache')
const diskMb = (dir) => (existsSync(dir) ? mb(readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0)) : 0)

async function openStore(dir, options = {}) {
  const { KnowledgeStore } = await lib('knowledge/store.js')
  const { createRedactor } = await lib('redact/redactor.js')
  return new KnowledgeStore({ root: dir, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, ...options })
}

function searchMix(store, passes = 3) {
  const times = []
  for (let pass = 0; pass < passes; pass++) {
    for (const q of QUERIES) {
      const t = performance.now()
      store.search(q, { limit: 10 })
      times.push(performance.now() - t)
    }
  }
  return stats(times)
}

const round = (tag, k) => ({
  kind: 'raw',
  title: `Shared bench round ${tag} ${k}`,
  cwd: '/home/dev/projects/shop-api',
  session: `session-${tag}${String(k % 5).padStart(4, '0')}-0000-4000-8000-000000000000`,
  turn: 1 + k,
  sections: [
    { heading: 'Question', text: `Why does job ${k} of ${tag} fail?` },
    { heading: 'Answer', text: `The culprit was zqx${tag}${[...String(k)].map((c) => 'abcdefghij'[c]).join('')}w in the retry path.` },
  ],
})
const markerOf = (d) => d.sections[1].text.match(/zqx\w+/)[0]

// ------------------------------------------------------------------------------------------------ children

const PHASES = {
  async rebuild(dir) {
    rmSync(cacheDir(dir), { recursive: true, force: true })
    const progress = []
    const rss0 = gcRss()
    const store = await openStore(dir, { logger: { info: (f, ...a) => /so far/.test(f) && progress.push(a[1]), warn() {}, debug() {} } })
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const rss = mb(gcRss() - rss0)
    await store.close()
    return { start, docs: store.size, rss, progress: progress.length, lastProgress: progress.at(-1) ?? 0, disk: diskMb(cacheDir(dir)) }
  },
  async reuse(dir, mode = 'cache') {
    const rss0 = gcRss()
    const store = await openStore(dir, mode === 'memory' ? { cache: false } : {})
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    const rss = mb(gcRss() - rss0)
    const search = searchMix(store)
    const docs = store.size
    await store.close()
    return { start, rss, docs, search }
  },
  /**
   * A watching start as dsh's, nobody else on the root: ready (start resolved), then the query mix while the check
   * of the files may still run, then the check's end (KnowledgeStore's indexed.checked). The parent sets
   * DSH_KNOWLEDGE_FRESHNESS: `walk` (the start waits for the check, as before the check behind) or `behind`.
   */
  async ready(dir) {
    const rss0 = gcRss()
    const heap0 = process.memoryUsage().heapUsed
    const store = await openStore(dir, { watch: true })
    const t = performance.now()
    await store.start()
    const ready = performance.now() - t
    let checkedAt
    store.indexed.checked.then(() => (checkedAt = performance.now() - t))
    await new Promise((resolve) => setImmediate(resolve)) // a check that is already over says so now
    const during = searchMix(store, 1)
    await store.indexed.checked
    const checked = checkedAt ?? performance.now() - t
    // Both arms measured as a process that has settled: checked and warmed (the path table, the folded log).
    await store.indexed.warmed
    const rss = mb(gcRss() - rss0)
    const heap = mb(process.memoryUsage().heapUsed - heap0)
    const docs = store.size
    await store.close()
    return { ready, checked, during, rss, heap, docs }
  },
  /** Item 4's tails: a store as dsh keeps one (watching), after its warm-up and its background merge, 10 passes of the mix. */
  async tails(dir) {
    const store = await openStore(dir, { watch: true })
    await store.start()
    await store.indexed.warmed
    await store.indexed.index.settle()
    const search = searchMix(store, 10)
    await store.close()
    return { search }
  },
  async changed(dir) {
    const paths = JSON.parse(readFileSync(join(dir, '.manifest.json'), 'utf8')).paths
    const originals = new Map()
    for (let i = 0; i < paths.length; i += 100) {
      const file = join(dir, paths[i])
      const text = readFileSync(file, 'utf8')
      originals.set(file, text)
      writeFileSync(file, `${text}\nEdited by hand: the retry budget is now 5.\n`)
    }
    const store = await openStore(dir)
    const t = performance.now()
    await store.start()
    const start = performance.now() - t
    await store.close()
    for (const [file, text] of originals) writeFileSync(file, text)
    const again = await openStore(dir)
    await again.start()
    await again.close()
    return { start, changedFiles: originals.size }
  },
  /** Starts a store over the root and closes it: a dsh process coming up while others write. */
  async start(dir) {
    const store = await openStore(dir)
    await store.start()
    await store.close()
    return {}
  },
  /** Holds a store open on the root (watching, as dsh does) until stdin closes. */
  async hold(dir) {
    const store = await openStore(dir, { watch: true })
    await store.start()
    process.stdout.write('ready\n')
    await new Promise((resolve) => process.stdin.on('end', resolve).resume())
    await store.close()
    return {}
  },
  /** Captures `rate` rounds/s for `seconds`; prints `W <marker> <time>` once each is written. */
  async writer(dir, tag, rate, seconds) {
    const store = await openStore(dir, { watch: true })
    await store.start()
    let errors = 0
    const total = Number(rate) * Number(seconds)
    const t0 = now()
    for (let k = 0; k < total; k++) {
      const due = t0 + (k * 1000) / Number(rate)
      if (due > now()) await new Promise((r) => setTimeout(r, due - now()))
      const d = round(tag, k)
      try {
        await store.write(d)
        process.stdout.write(`W ${markerOf(d)} ${now()}\n`)
      } catch (error) {
        errors++
        process.stderr.write(`write failed: ${error.message}\n`)
      }
    }
    await store.close()
    return { errors, written: total - errors }
  },
  /** Watches the root; for every marker read on stdin, searches each turn until found; prints `F <marker> <time>`. */
  async watcher(dir) {
    const store = await openStore(dir, { watch: true })
    await store.start()
    const pending = new Set()
    let open = true
    createInterface({ input: process.stdin })
      .on('line', (m) => pending.add(m))
      .on('close', () => (open = false))
    process.stdout.write('ready\n')
    while (open || pending.size) {
      for (const m of pending) {
        if (store.search(m, { limit: 1 }).length) {
          pending.delete(m)
          process.stdout.write(`F ${m} ${now()}\n`)
        }
      }
      await new Promise((r) => setImmediate(r))
      if (!open && pending.size) await new Promise((r) => setTimeout(r, 5))
    }
    await store.close()
    return {}
  },
}

if (process.argv[2] === '--child') {
  const [phase, ...args] = process.argv.slice(3)
  // A store's close waits for its checkpoint worker, which never keeps a process alive by itself.
  setInterval(() => {}, 1000)
  const out = await PHASES[phase](...args)
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`)
  process.exit(0)
}

// ------------------------------------------------------------------------------------------------ parent

function child(phase, ...args) {
  return childOf(undefined, phase, ...args)
}

/** A child phase run on the build in `libDir` (undefined: lib/), with `env` on top of this process's. */
function childOf(libDir, phase, ...args) {
  return childWith(libDir ? { BENCH_LIB: libDir } : {}, phase, ...args)
}

function childWith(env, phase, ...args) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', phase, ...args.map(String)], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '))
  if (!line) throw new Error(`${phase} failed: ${r.stderr}`)
  return JSON.parse(line.slice(7))
}

/** A child kept running (hold, writer, watcher), with its output lines. */
function running(phase, ...args) {
  const proc = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', phase, ...args.map(String)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: proc.stdout })
  const ready = new Promise((resolve) => lines.on('line', (l) => l === 'ready' && resolve()))
  const result = new Promise((resolve) => lines.on('line', (l) => l.startsWith('RESULT ') && resolve(JSON.parse(l.slice(7)))))
  return { proc, lines, ready, result }
}

function cli(dir, runs = 5) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    const r = spawnSync(process.execPath, [BIN, 'search', QUERIES[i % QUERIES.length], '--root', dir, '--limit', '5'], { encoding: 'utf8' })
    times.push(performance.now() - t)
    if (r.status !== 0) throw new Error(`cli failed: ${r.stderr}`)
  }
  return stats(times)
}

const f = (x, unit = 'ms') => (Number.isFinite(x) ? `${x >= 100 ? Math.round(x) : x.toFixed(1)} ${unit}` : '—')

async function curve(sizes, { memory }) {
  for (const size of sizes) {
    const dir = corpus(size)
    if (!existsSync(join(dir, '.manifest.json'))) writeRounds(dir, size)
    console.log(`\n## ${size.toLocaleString('en')} documents (load: ${readFileSync('/proc/loadavg', 'utf8').trim()})`)
    const rebuild = child('rebuild', dir)
    console.log(
      `rebuild (fresh clone): ${f(rebuild.start)}, ${rebuild.docs} docs, ${rebuild.progress} progress lines (last: ${rebuild.lastProgress}), disk ${f(rebuild.disk, 'MB')}, RSS +${f(rebuild.rss, 'MB')}`,
    )
    const reuse = child('reuse', dir)
    console.log(`reuse: start ${f(reuse.start)}, RSS +${f(reuse.rss, 'MB')}, search p50/p99/max ${f(reuse.search.p50)} / ${f(reuse.search.p99)} / ${f(reuse.search.max)}`)
    const first = running('hold', dir)
    await first.ready
    const second = child('reuse', dir)
    const baseline = memory ? child('reuse', dir, 'memory') : undefined
    first.proc.stdin.end()
    await first.result
    console.log(
      `second process (first one open): ready ${f(second.start)}, RSS +${f(second.rss, 'MB')}` +
        (baseline
          ? `; private in-memory build (before): ${f(baseline.start)}, RSS +${f(baseline.rss, 'MB')} → ${(baseline.start / second.start).toFixed(1)}× faster, ${(baseline.rss / Math.max(second.rss, 1)).toFixed(1)}× less memory`
          : ''),
    )
    const changed = child('changed', dir)
    console.log(`1% changed (${changed.changedFiles} files): ready ${f(changed.start)} (${(changed.start / reuse.start).toFixed(2)}× the unchanged start)`)
    const c = cli(dir, size >= 1_000_000 ? 3 : 5)
    console.log(`cli search (fresh process, end to end): p50 ${f(c.p50)}, max ${f(c.max)}`)
    if (process.argv.includes('--clean')) rmSync(dir, { recursive: true, force: true })
  }
}

async function writers(seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-shared-'))
  writeRounds(dir, 1000)
  child('rebuild', dir)
  console.log(`\n## two writers, 100 rounds/s each for ${seconds} s, one watching reader (load: ${readFileSync('/proc/loadavg', 'utf8').trim()})`)
  const watcher = running('watcher', dir)
  await watcher.ready
  const written = new Map()
  const seen = []
  watcher.lines.on('line', (l) => {
    const [tag, m, t] = l.split(' ')
    if (tag === 'F') seen.push(Number(t) - written.get(m))
  })
  const ws = ['a', 'b'].map((tag) => running('writer', dir, tag, 100, seconds))
  // Fresh processes back to back while the writers write, a store's start and a CLI search in turn: each start
  // reconciles the shared file with a listing of the root that rounds written meanwhile are missing from (such a round
  // must not be dropped).
  let writing = true
  let starts = 0
  const starter = (async () => {
    while (writing) {
      const argv = starts % 2 ? [BIN, 'search', QUERIES[starts % QUERIES.length], '--root', dir, '--limit', '5'] : [fileURLToPath(import.meta.url), '--child', 'start', dir]
      await new Promise((resolve, reject) =>
        spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...argv], { stdio: 'ignore' }).on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`${argv[1]} exited with ${code}`)),
        ),
      )
      starts++
    }
  })()
  for (const w of ws) {
    w.lines.on('line', (l) => {
      const [tag, m, t] = l.split(' ')
      if (tag !== 'W') return
      written.set(m, Number(t))
      watcher.proc.stdin.write(`${m}\n`)
    })
  }
  const results = await Promise.all(ws.map((w) => w.result))
  writing = false
  await starter
  watcher.proc.stdin.end()
  await watcher.result
  const errors = results.reduce((n, r) => n + r.errors, 0)
  const vis = stats(seen)
  console.log(
    `written ${results.reduce((n, r) => n + r.written, 0)}, errors ${errors}; visible in the reader: p50 ${f(vis.p50)}, p99 ${f(vis.p99)}, max ${f(vis.max)} (${vis.n} of ${written.size}); ${starts} process starts meanwhile (stores and CLI searches)`,
  )
  // The shared cache against a rebuild from the files. Ids straight from the shared file, before any other start
  // (whose reconcile would put a dropped round back); a listing pages at most MAX_WINDOW.
  const files = JSON.parse(readFileSync(join(dir, '.manifest.json'), 'utf8')).paths.length + written.size
  const { DatabaseSync } = await import('node:sqlite')
  const db = new DatabaseSync(join(cacheDir(dir), 'index-v4.sqlite'), { readOnly: true })
  const a = db
    .prepare('SELECT id FROM doc')
    .all()
    .map((r) => r.id)
  db.close()
  const cached = await openStore(dir)
  await cached.start()
  const fresh = await openStore(dir, { cache: false })
  await fresh.start()
  const b = { length: fresh.size }
  const same = a.length === fresh.size && new Set(a).size === a.length && a.every((id) => fresh.get(id) !== undefined)
  // Ties are ordered by commit order in the shared file and by file time in a rebuild: compared as score groups.
  const groups = (s, q) => {
    const by = new Map()
    for (const h of s.search(q, { limit: 10 })) by.set(h.score.toFixed(6), [...(by.get(h.score.toFixed(6)) ?? []), h.id].sort())
    const out = [...by]
    if (out.length) out[out.length - 1] = [out[out.length - 1][0]]
    return JSON.stringify(out)
  }
  const rankings = QUERIES.filter((q) => groups(cached, q) === groups(fresh, q)).length
  console.log(
    `files ${files}, cache ${a.length} docs (${a.length - new Set(a).size} duplicated, ${files - a.length} lost), rebuild ${b.length}; same ids: ${same}; same top-10 for ${rankings}/${QUERIES.length} queries`,
  )
  await cached.close()
  await fresh.close()
  rmSync(dir, { recursive: true, force: true })
}

const args = process.argv.slice(2)
if (!existsSync(BIN)) throw new Error('build first: node scripts/build.mjs')
console.log(`# shared index bench — ${new Date().toISOString()}, load ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
if (args.includes('--writers')) await writers(Number(args[args.indexOf('--writers') + 1]) || 60)
const sizes = args.filter((a, i) => /^\d+$/.test(a) && !['--writers', '--ready'].includes(args[i - 1])).map(Number)
if (args.includes('--ready')) {
  // A watching start with nobody to vouch: waiting for the check of every file (walk) against checking it behind, alternating.
  const runs = Number(args[args.indexOf('--ready') + 1]) || 3
  for (const size of sizes) {
    const dir = corpus(size)
    if (!existsSync(join(dir, '.manifest.json'))) writeRounds(dir, size)
    if (!existsSync(join(cacheDir(dir), 'index-v4.sqlite'))) child('rebuild', dir)
    const ratios = []
    for (let run = 1; run <= runs; run++) {
      const got = {}
      for (const mode of run % 2 ? ['walk', 'behind'] : ['behind', 'walk']) got[mode] = childWith({ DSH_KNOWLEDGE_FRESHNESS: mode }, 'ready', dir)
      for (const mode of ['walk', 'behind']) {
        const r = got[mode]
        console.log(
          `${size.toLocaleString('en')} docs, run ${run}, ${mode.padEnd(6)}: ready ${f(r.ready)}, checked ${f(r.checked)}, RSS +${f(r.rss, 'MB')} (heap +${f(r.heap, 'MB')}); first pass of the mix p50/max ${f(r.during.p50)} / ${f(r.during.max)} (load ${readFileSync('/proc/loadavg', 'utf8').trim().split(' ')[0]})`,
        )
      }
      ratios.push(got.walk.ready / got.behind.ready)
    }
    console.log(`${size.toLocaleString('en')} docs: ready walk/behind per run ${ratios.map((r) => r.toFixed(1)).join(', ')}×`)
  }
} else if (args.includes('--tails')) {
  // Item 4 alone: search p50/p99/max after the warm-up and the merge, in three fresh processes per size.
  for (const size of sizes) {
    const dir = corpus(size)
    if (!existsSync(join(dir, '.manifest.json'))) writeRounds(dir, size)
    if (!existsSync(join(cacheDir(dir), 'index-v4.sqlite'))) child('rebuild', dir)
    const base = args.includes('--base') ? resolve(args[args.indexOf('--base') + 1]) : undefined
    const p99 = { base: [], lib: [] }
    for (let run = 1; run <= 3; run++) {
      // With a base build, the two alternate (base first on odd runs), so that the machine's load weighs on both.
      for (const which of base ? (run % 2 ? ['base', 'lib'] : ['lib', 'base']) : ['lib']) {
        const { search } = childOf(which === 'base' ? base : undefined, 'tails', dir)
        p99[which].push(search.p99)
        console.log(
          `${size.toLocaleString('en')} docs, run ${run}${base ? ` ${which === 'base' ? 'base' : 'lib/'}` : ''} (load ${readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ')}): search p50/p99/max ${f(search.p50)} / ${f(search.p99)} / ${f(search.max)} over ${search.n}`,
        )
      }
    }
    if (base) console.log(`${size.toLocaleString('en')} docs: p99 base/lib per run ${p99.base.map((b, k) => (b / p99.lib[k]).toFixed(2)).join(', ')}×`)
  }
} else if (sizes.length) await curve(sizes, { memory: !args.includes('--no-memory') })
