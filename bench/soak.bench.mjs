/**
 * Soak benchmark (issue 24): one process with the rows as dsh composes them, run for many rounds, printing what a
 * process that is never restarted accumulates, and the slope of each measure.
 *
 *   node --expose-gc bench/soak.bench.mjs                          # 3,000 rounds, a line every 150 (a few minutes)
 *   node --expose-gc bench/soak.bench.mjs --rounds 100000 --every 2500 --fresh   # the long run (hours)
 *
 * Options: --rounds N; --every N (rounds per printed step); --per-minute N (rounds in one simulated minute, 10);
 * --sync-minutes N (a sync every N simulated minutes, 5); --no-writers (no other process writing to the root);
 * --fresh (at the end, a fresh process opens the same root: the memory the index itself holds, to compare with);
 * --snapshot-at N,M (heap snapshots after a full GC at those rounds, into a temporary folder; compare two by constructor
 * and retaining path); --hold (at the end, stay idle with every row still composed until SIGUSR2: for
 * bench/native-trim.sh, which asks glibc what of the native memory is free but kept).
 *
 * Build first (`node scripts/build.mjs`): the rows are loaded from lib/ as shipped, into the real harness core
 * (test/harness/loop.ts: AgentLoop, SessionStore, SystemPrompt, ToolRuntime, LLM runtime, a scripted model) with
 * every row of cordis.patch.yml: knowledge (redaction and its secretlint backstop on), capture (from the real
 * session events), note, recall, http (on a webServer service over a real loopback server), sync. Each round is one
 * turn: most answer with a finding; every 10th searches first, every 25th reads a hit, every 50th records a note.
 * A session is closed after 20 rounds and a new one begins (as tabs come and go). Meanwhile the page polls its
 * routes (revision every round, the list every 5, stats and recent rounds every 20, a token minted by POST every 200), asks for
 * the health summary every 100 rounds and runs a sampled probe every 1,000; a sync against a loopback server whose
 * page changes runs every few simulated minutes; another process writes 20 rounds into the same root every 10
 * simulated minutes as `dsh-knowledge capture` does (trusting this process's freshness stamp, keeping the local
 * history). Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/soak
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8'
import { trackHandles } from '../test/harness/handles.ts'
import * as hostWeb from '../test/harness/host-web.ts'
import { createLoop } from '../test/harness/loop.ts'
import { startWebServer } from '../test/harness/web-server.ts'

const here = import.meta.dirname
const project = join(here, '..')
const lib = (p) => import(pathToFileURL(join(project, 'lib', p)).href)

const argv = process.argv.slice(2)
const opt = (name, fallback) => {
  const at = argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(argv[at + 1])
}
const ROUNDS = opt('rounds', 3000)
const EVERY = opt('every', Math.max(1, Math.round(ROUNDS / 20)))
const PER_MINUTE = opt('per-minute', 10)
const SYNC_MINUTES = opt('sync-minutes', 5)
const WRITERS = !argv.includes('--no-writers')
const FRESH = argv.includes('--fresh')
// --idle SECONDS (with --fresh): both processes then wait that long doing nothing, as dsh does between a person's
// turns, and their RSS is read again without forcing anything: V8's memory reducer, which runs once allocation has
// been low for ~8 s, gives its pooled pages back by itself. 0: not measured.
const IDLE_S = opt('idle', 30)
// --blocks FILE: every time the event loop was held 25 ms or more, when it ended (µs of the monotonic clock a
// --cpu-prof profile's sample times use) and how long; bench/blocks.mjs then says what the profile ran meanwhile.
const BLOCKS = argv.includes('--blocks') ? argv[argv.indexOf('--blocks') + 1] : undefined
const SNAPSHOT_AT = new Set(
  String(argv[argv.indexOf('--snapshot-at') + 1] ?? '')
    .split(',')
    .filter(Boolean)
    .map(Number),
)
const SNAPSHOT_DIR = argv.includes('--snapshot-at') ? mkdtempSync(join(tmpdir(), 'dsh-ks-soak-heap-')) : ''
if (!globalThis.gc) console.warn('(run with --expose-gc: heap and RSS are read after a full GC only then)')

// ---------------------------------------------------------------- the setting
const { ALLOW_HOSTS_ENV } = await lib('sync/fetcher.js')
process.env[ALLOW_HOSTS_ENV] = '127.0.0.1'
let upstreamEdition = 0
const upstream = await startWebServer({
  '/vendor': (_req, res) => {
    const body = `# Vendor limits\n\nEdition ${upstreamEdition}: the limit is ${100 + upstreamEdition} requests per minute.\n`
    res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  },
})
const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-soak-')), 'kb')
mkdirSync(root, { recursive: true })
writeFileSync(join(root, 'vendor.md'), '---\nid: vendor\ntitle: Vendor limits\n---\nOur summary.\n<!-- upstream:start name="limits" -->\n<!-- upstream:end -->\n')
writeFileSync(join(root, 'sources.yml'), `sources:\n  - { name: vendor, type: http, url: "${upstream.url}/vendor", target: { file: vendor.md, section: limits } }\n`)

const roundOf = (prompt) => Number(/^R(\d+):/.exec(prompt)?.[1] ?? -1)
const code = (k) => `ERR_SOAK_${k % 97}`
const finding = (k) =>
  `The cause was a stale lockfile: build ${k} resolved esbuild 0.19 because pnpm-lock.yaml pinned it (${code(k)}). ` +
  `Regenerated the lockfile with pnpm@10 and set BUILD_TOKEN=build_${k}_abcdefghijklmnopqrst in CI; the build passes now.`
let readable = 'vendor'
const script = (request) => {
  const k = roundOf(request.prompt)
  if (k < 0) return { text: 'ok' }
  if (request.step === 0 && k % 10 === 0) return { toolCalls: [{ name: 'knowledge_search', arguments: { query: `${code(k)} lockfile` } }] }
  if (request.step === 0 && k % 25 === 5) return { toolCalls: [{ name: 'knowledge_read', arguments: { id: readable } }] }
  if (request.step === 0 && k % 50 === 7) return { toolCalls: [{ name: 'knowledge_note', arguments: { title: `Lockfile pin ${k}`, finding: finding(k), tags: ['pnpm'] } }] }
  return { text: finding(k) }
}

const rows = [
  [hostWeb],
  [await lib('knowledge/index.js'), { root }],
  [await lib('capture/index.js'), {}],
  [await lib('note/index.js'), {}],
  [await lib('recall/index.js'), { sameWorkspaceOnly: false }],
  [await lib('http/index.js'), {}],
  [await lib('sync/index.js'), {}],
]
const loop = await createLoop(script, rows)
const ctx = loop.ctx
const store = ctx.knowledge
const web = ctx.get('webServer')

// ---------------------------------------------------------------- the page, the health probe, other processes
const page = {
  token: '',
  async get(path) {
    const res = await fetch(`${web.url}/knowledge${path}`)
    const body = await res.json()
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`)
    return body
  },
  async post(path, body = {}) {
    const res = await fetch(`${web.url}/knowledge${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: web.url, 'x-knowledge-token': page.token },
      body: JSON.stringify(body),
    })
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`)
    return res.json()
  },
}
const writers = new Set()
let othersDone = 0
/** Rounds the other processes have written (each records its outcome in the same ledger). */
const writtenByOthers = () => othersDone * 20
function otherProcess(n) {
  const child = spawn(process.execPath, [join(project, 'test/harness/write-many.ts'), root, `session-${(0xe0000000 + n).toString(16)}-0000-4000-8000-000000000000`, '20', 'trust', 'history'], {
    stdio: 'ignore',
  })
  const done = new Promise((resolve) => child.on('exit', resolve))
  writers.add(done)
  done.then((code) => {
    // Only a writer that finished wrote its 20 rounds: counting a failed one made the next step wait forever for
    // rounds never written (a writer started while lib/ was being rebuilt).
    if (code === 0) othersDone++
    else console.warn(`another process (writer ${n}) exited with ${code}: its rounds are not counted`)
    writers.delete(done)
  })
}

// ---------------------------------------------------------------- measures
const handles = trackHandles()
const lag = monitorEventLoopDelay({ resolution: 10 })
lag.enable()
const blocks = []
let blockTick = process.hrtime.bigint()
const blockTimer = BLOCKS
  ? setInterval(() => {
      const now = process.hrtime.bigint()
      const held = Number(now - blockTick) / 1e6 - 5
      if (held >= 25) blocks.push({ end: Number(now / 1000n), ms: held, rounds: roundNow })
      blockTick = now
    }, 5)
  : undefined
let roundNow = 0
const { CACHE_DIR, CACHE_FILE } = await lib('knowledge/index-cache/index-cache.js')
const indexFile = join(root, CACHE_DIR, CACHE_FILE)
const walFile = `${indexFile}-wal`
const size = (file) => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
/** Waits until capture has an outcome for every round asked so far: a step measures a settled process, not a backlog. */
async function settled(rounds) {
  for (;;) {
    const s = await store.ledger.stats()
    const seen = s.kept + s.dropped + s.failed + Object.values(s.unanswered).reduce((a, b) => a + b, 0)
    if (seen >= rounds) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
/**
 * Where the resident memory is (Linux): anonymous vs file-backed pages (smaps_rollup), the part of the anonymous pages
 * V8's heap holds (its physical size), what is left of them (native: malloc's arenas, SQLite, thread stacks), and of
 * that the main malloc arena (the `[heap]` mapping). RSS that grows outside the JavaScript heap is found here.
 */
function residency() {
  const kB = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
  let rollup = ''
  let smaps = ''
  try {
    rollup = readFileSync('/proc/self/smaps_rollup', 'utf8')
    smaps = readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return { anonKB: 0, fileKB: 0, v8KB: 0, pagesKB: 0, nativeKB: 0, brkKB: 0 }
  }
  const at = smaps.indexOf('[heap]')
  const anonKB = kB(rollup, 'Anonymous')
  const v8KB = getHeapStatistics().total_physical_size / 1024
  // Mappings of exactly 256 KiB are V8's pages, of any isolate in the process (malloc's own mappings carry a header,
  // never that size): beside v8KB, they tell the main isolate's pages from the workers'.
  let pagesKB = 0
  for (const m of smaps.matchAll(/^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ 0 *\n(?:(?![0-9a-f]+-)[^\n]*\n)*?Anonymous:\s+(\d+) kB/gm))
    if (Number.parseInt(m[2], 16) - Number.parseInt(m[1], 16) === 256 * 1024) pagesKB += Number(m[3])
  return { anonKB, fileKB: kB(rollup, 'Rss') - anonKB, v8KB, pagesKB, nativeKB: anonKB - v8KB, brkKB: at < 0 ? 0 : kB(smaps.slice(at), 'Rss') }
}
/** The physical heap of the index's checkpoint worker (an isolate of its own, outside getHeapStatistics()). */
async function workerHeapKB() {
  const worker = store.indexed.index.cycle?.checkpointer?.worker
  // Not running yet (it starts with the first write) or any more (it ended; the owner checkpoints again): 0.
  return worker ? ((await worker.getHeapStatistics().catch(() => undefined))?.total_physical_size ?? 0) / 1024 : 0
}
/** Whether this process still has the root's index file open after it was removed from the folder. */
let unlinkedSeen = false
function indexUnlinked() {
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === `${indexFile} (deleted)`) return true
    } catch {
      /* closed meanwhile */
    }
  }
  return false
}
/** The columns of a step: key, label, divisor, decimals, and the unit of its slope (none: no slope printed). */
const COLUMNS = [
  ['rounds', 'rounds', 1, 0],
  ['docs', 'docs', 1, 0, 'documents'],
  ['rssKB', 'rss MB', 1024, 1, 'KB'],
  ['heapKB', 'heap MB', 1024, 1, 'KB'],
  ['externalKB', 'ext MB', 1024, 1, 'KB'],
  ['fds', 'fds', 1, 0, 'fds'],
  ['active', 'active', 1, 0, 'resources'],
  ['timers', 'timers', 1, 0, 'timers'],
  ['watchers', 'watchers', 1, 0, 'watchers'],
  ['workers', 'workers', 1, 0, 'workers'],
  ['walKB', 'wal MB', 1024, 1, 'KB'],
  ['lagP99ms', 'lag p99', 1, 1, 'ms'],
  ['lagMaxMs', 'lag max', 1, 1],
  ['perfEntries', 'perf', 1, 0, 'entries'],
  ['anonKB', 'anon MB', 1024, 1, 'KB'],
  ['fileKB', 'file MB', 1024, 1, 'KB'],
  ['v8KB', 'v8 MB', 1024, 1, 'KB'],
  ['nativeKB', 'natv MB', 1024, 1, 'KB'],
  ['brkKB', 'brk MB', 1024, 1, 'KB'],
  ['pagesKB', 'pages MB', 1024, 1, 'KB'],
  ['workerKB', 'wrkr MB', 1024, 1, 'KB'],
  ['floorKB', 'floor MB', 1024, 1, 'KB'],
]
const steps = []
async function measure(rounds) {
  // The loop's delays are read before this step's own forced collections block it, and the monitor is reset only
  // after it has recorded that block (its timer fires once the block ends): the bench's collections, which grow with
  // the heap, are nobody's lag. Before, they were counted in the next step's maximum.
  const lagP99ms = lag.percentile(99) / 1e6
  const lagMaxMs = lag.max / 1e6
  globalThis.gc?.()
  globalThis.gc?.()
  const mem = process.memoryUsage()
  const made = handles.counts()
  const active = process.getActiveResourcesInfo()
  const row = {
    rounds,
    docs: store.size,
    rssKB: mem.rss / 1024,
    heapKB: mem.heapUsed / 1024,
    externalKB: (mem.external + mem.arrayBuffers) / 1024,
    fds: readdirSync('/proc/self/fd').length,
    active: active.length,
    timers: made.Timeout ?? 0,
    watchers: (made.FSEVENTWRAP ?? 0) + (made.STATWATCHER ?? 0),
    workers: made.WORKER ?? 0,
    walKB: size(walFile) / 1024,
    lagP99ms,
    lagMaxMs,
    perfEntries: performance.getEntries().length,
    ...residency(),
    workerKB: await workerHeapKB(),
    floorKB: 0,
  }
  // V8 keeps the pages its heap no longer uses mapped and resident, for reuse (a pool the size of the largest transient
  // peak since the last release); only a last-resort collection (what a low-memory notification runs) gives them back.
  // RSS after it is what this process needs; the difference is that pool.
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  row.floorKB = process.memoryUsage().rss / 1024
  await new Promise((resolve) => setTimeout(resolve, 25))
  lag.reset()
  if (!unlinkedSeen && indexUnlinked()) {
    unlinkedSeen = true
    console.warn(`round ${rounds}: the index file this process writes was removed from the cache folder (another process replaced it)`)
  }
  steps.push(row)
  if (steps.length === 1) console.log(COLUMNS.map(([, label]) => label.padStart(8)).join(' '))
  console.log(COLUMNS.map(([key, , per, digits]) => (row[key] / per).toFixed(digits).padStart(8)).join(' '))
}
/** Least-squares slope of `key` against rounds, per 1,000 rounds, over the steps after the first (the warm-up). */
function slope(key, from = 1) {
  const pts = steps.slice(from)
  if (pts.length < 2) return NaN
  const mx = pts.reduce((s, p) => s + p.rounds, 0) / pts.length
  const my = pts.reduce((s, p) => s + p[key], 0) / pts.length
  const num = pts.reduce((s, p) => s + (p.rounds - mx) * (p[key] - my), 0)
  const den = pts.reduce((s, p) => s + (p.rounds - mx) ** 2, 0)
  return (num / den) * 1000
}

// ---------------------------------------------------------------- the run
const sessionOf = (k) => `session-${(0xa0000000 + Math.floor(k / 20)).toString(16)}-0000-4000-8000-000000000000`
const t0 = performance.now()
page.token = (await page.post('/token')).token
let syncs = 0
let probes = 0
let failures = 0
await measure(0)
for (let k = 1; k <= ROUNDS; k++) {
  roundNow = k
  const session = sessionOf(k)
  if (k > 1 && sessionOf(k - 1) !== session) await loop.close(sessionOf(k - 1))
  await loop.ask(`R${k}: why does build ${k} resolve the old esbuild (${code(k)})?`, { session, cwd: '/home/dev/shop-api' })
  loop.adapter.requests.length = 0 // the scripted model's log is the harness's, not the product's
  try {
    await page.get('/revision')
    if (k % 5 === 0) await page.get('/documents?limit=50')
    if (k % 20 === 0) await Promise.all([page.get('/stats'), page.get('/rounds?limit=50')])
    if (k % 200 === 0) page.token = (await page.post('/token')).token
    if (k % 100 === 0) await page.get('/health')
    if (k % 1000 === 0) probes += (await page.post('/health/run')) ? 1 : 0
    if (k % 25 === 0) readable = store.search('lockfile', { limit: 1 })[0]?.id ?? readable
  } catch (error) {
    failures++
    if (failures <= 5) console.warn(`round ${k}: ${error.message}`)
  }
  const minute = Math.floor(k / PER_MINUTE)
  if (k % PER_MINUTE === 0 && minute % SYNC_MINUTES === 0) {
    upstreamEdition++
    await ctx.knowledgeSync.run()
    syncs++
  }
  if (WRITERS && k % PER_MINUTE === 0 && minute % 10 === 0) otherProcess(minute)
  if (k % EVERY === 0) {
    await settled(k + writtenByOthers())
    await measure(k)
  }
  if (SNAPSHOT_AT.has(k)) {
    await settled(k + writtenByOthers())
    globalThis.gc?.()
    console.log(`heap snapshot: ${writeHeapSnapshot(join(SNAPSHOT_DIR, `round-${k}.heapsnapshot`))}`)
  }
}
await Promise.all(writers)
if (BLOCKS) {
  clearInterval(blockTimer)
  writeFileSync(BLOCKS, JSON.stringify(blocks))
  console.log(`${blocks.length} blocks of 25 ms or more written to ${BLOCKS}`)
}
await store.flush()
const seconds = (performance.now() - t0) / 1000

console.log(
  `\n${ROUNDS} rounds in ${seconds.toFixed(0)} s (${((seconds * 1000) / ROUNDS).toFixed(1)} ms a round); ${syncs} syncs, ${probes} health probes, ${failures} failed page calls; ${store.size} documents`,
)
console.log('slope per 1,000 rounds (least squares over the steps after the first):')
for (const [key, , , , unit] of COLUMNS.filter((c) => c[4]))
  console.log(`  ${key.padEnd(12)} ${slope(key).toFixed(2).padStart(10)} ${unit}   (second half: ${slope(key, Math.floor(steps.length / 2)).toFixed(2)})`)

{
  // How much of the native memory is SQLite's page cache and lookaside on this process's index connection: released by
  // shrink_memory (the cache refills as searches need it).
  const index = store.indexed.index
  const before = residency()
  index.db.exec('PRAGMA shrink_memory')
  globalThis.gc?.()
  const after = residency()
  console.log(
    `index connection: ${index.statements.size} cached statements; PRAGMA shrink_memory released ${((before.nativeKB - after.nativeKB) / 1024).toFixed(1)} MB native (${(before.nativeKB / 1024).toFixed(1)} -> ${(after.nativeKB / 1024).toFixed(1)} MB)`,
  )
}

// The page's routes and a sync, as the end-of-run measurements below take them one at a time.
const pageAndSync = [
  ['GET /revision', () => page.get('/revision')],
  ['GET /documents', () => page.get('/documents?limit=50')],
  ['GET /stats', () => page.get('/stats')],
  ['GET /rounds', () => page.get('/rounds?limit=50')],
  ['GET /health', () => page.get('/health')],
  ['POST /health/run', () => page.post('/health/run')],
  ['sync', () => ctx.knowledgeSync.run()],
]
/** `measure(name, fn)` for each operation, one after another. */
const each = async (operations, measure) => {
  const out = []
  for (const [name, fn] of operations) out.push(await measure(name, fn))
  return out
}

{
  // Which operation leaves the pool behind: from an empty pool (a last-resort collection), one operation, then two
  // ordinary collections; the 256 KiB pages left resident beyond V8's physical heap are that operation's transient peak.
  const pooled = async (name, fn) => {
    globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' })
    const before = residency()
    await fn()
    globalThis.gc?.()
    globalThis.gc?.()
    const after = residency()
    return `${name} ${((after.pagesKB - before.pagesKB - (after.v8KB - before.v8KB)) / 1024).toFixed(1)} MB`
  }
  const session = sessionOf(ROUNDS + 40)
  const peaks = [
    await pooled('search', () => store.search('lockfile esbuild', { limit: 10 })),
    await pooled('round', async () => {
      await loop.ask(`R${ROUNDS + 40}: why does build ${ROUNDS + 40} resolve the old esbuild?`, { session, cwd: '/home/dev/shop-api' })
      await settled(ROUNDS + 1 + writtenByOthers())
    }),
    ...(await each(pageAndSync, pooled)),
    await pooled('20 rounds from another process', async () => {
      otherProcess(99999)
      await Promise.all(writers)
      await settled(ROUNDS + 1 + writtenByOthers())
    }),
  ]
  await loop.close(session)
  console.log(`pages left pooled by one operation on ${store.size} documents: ${peaks.join('; ')}`)
}

{
  // What holds the event loop at this size (the lag columns grow with the documents; which operation is it?): each
  // operation right after a write of this process (the caches a write clears are cold, as in the soak), three times;
  // the longest single block of the loop seen while it ran, and its wall time.
  let k = 0
  const write = () =>
    store.write({
      kind: 'raw',
      title: `Lag probe ${k}`,
      cwd: '/home/dev/shop-api',
      session: 'session-lagprobe-0000-4000-8000-000000000000',
      turn: ++k,
      sections: [
        { heading: 'Question', text: `Why does lag probe ${k} fail?` },
        { heading: 'Answer', text: `The lockfile pinned esbuild ${k}.` },
      ],
    })
  const held = async (name, fn) => {
    const worst = { block: 0, wall: 0 }
    for (let n = 0; n < 3; n++) {
      await write()
      await new Promise((resolve) => setImmediate(resolve))
      const monitor = monitorEventLoopDelay({ resolution: 1 })
      monitor.enable()
      const t = performance.now()
      await fn()
      worst.wall = Math.max(worst.wall, performance.now() - t)
      monitor.disable()
      worst.block = Math.max(worst.block, monitor.max / 1e6)
    }
    return `${name} ${worst.block.toFixed(0)} / ${worst.wall.toFixed(0)} ms`
  }
  const rows = [await held('search', () => store.search('lockfile esbuild', { limit: 10 })), ...(await each(pageAndSync, held))]
  console.log(`longest loop block / wall time of one operation after a write, worst of 3, on ${store.size} documents: ${rows.join('; ')}`)
}

if (FRESH) {
  // What the index of this root holds in a process that only opens it: the growth a soak may show beyond it.
  const probe = `
    const { KnowledgeStore } = await import(${JSON.stringify(pathToFileURL(join(project, 'lib/knowledge/store.js')).href)})
    const { createRedactor } = await import(${JSON.stringify(pathToFileURL(join(project, 'lib/redact/redactor.js')).href)})
    const { readFileSync } = await import('node:fs')
    const { getHeapStatistics } = await import('node:v8')
    const parts = () => {
      const anon = Number(/^Anonymous:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? 0)
      const v8 = getHeapStatistics().total_physical_size / 1024
      return { anon, v8, native: anon - v8 }
    }
    gc(); gc(); const before = process.memoryUsage(); const beforeParts = parts()
    const store = new KnowledgeStore({ root: ${JSON.stringify(root)}, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: true })
    await store.start(); for (const q of ['lockfile', 'ERR_SOAK_3', 'esbuild pnpm']) store.search(q, { limit: 10 })
    // The background warm-up loads the path table and folds the revision log: a long-lived process holds both. Its
    // timers are unref'd: the interval keeps this probe alive meanwhile.
    const alive = setInterval(() => {}, 1000)
    await store.indexed.warmed; store.revisions.refresh()
    gc(); gc(); const after = process.memoryUsage(); const afterParts = parts()
    await new Promise((resolve) => setTimeout(resolve, ${IDLE_S * 1000})); const idle = process.memoryUsage().rss
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }); const floor = process.memoryUsage().rss
    console.log(JSON.stringify({ rssKB: (after.rss - before.rss) / 1024, heapKB: (after.heapUsed - before.heapUsed) / 1024, v8KB: afterParts.v8 - beforeParts.v8, nativeKB: afterParts.native - beforeParts.native, idleKB: (idle - before.rss) / 1024, floorKB: (floor - before.rss) / 1024, docs: store.size }))
    clearInterval(alive)
    await store.close()`
  // This process idles first, alone; then the probe runs while its loop stays free: it still vouches for the root's
  // freshness (the probe trusts its stamp). Held (spawnSync), its heartbeat stopped, the probe found it gone after
  // 10 s of its idle wait and checked every file: +287 MB in the probe at 122k documents, none of it the store's own.
  const idleKB = IDLE_S > 0 ? await new Promise((resolve) => setTimeout(() => resolve(process.memoryUsage().rss / 1024), IDLE_S * 1000)) : 0
  const out = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe], { stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.on('close', () => resolve({ stdout }))
  })
  const fresh = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}')
  const grown = { rssKB: steps.at(-1).rssKB - steps[1].rssKB, heapKB: steps.at(-1).heapKB - steps[1].heapKB }
  console.log(`fresh process on the same ${fresh.docs} documents: +${(fresh.rssKB / 1024).toFixed(1)} MB RSS, +${(fresh.heapKB / 1024).toFixed(1)} MB heap for the opened store`)
  console.log(`this process grew ${(grown.rssKB / 1024).toFixed(1)} MB RSS, ${(grown.heapKB / 1024).toFixed(1)} MB heap after its first step: ratio ${(grown.rssKB / fresh.rssKB).toFixed(2)} (RSS)`)
  const floor = (steps.at(-1).floorKB - steps[1].floorKB) / 1024
  console.log(
    `after a last-resort collection (V8's pool given back): fresh +${(fresh.floorKB / 1024).toFixed(1)} MB, this process grew ${floor.toFixed(1)} MB after its first step: ratio ${((floor * 1024) / fresh.floorKB).toFixed(2)}`,
  )
  if (IDLE_S > 0) {
    const idle = (idleKB - steps[1].rssKB) / 1024
    console.log(
      `after ${IDLE_S} s idle, nothing forced (V8's memory reducer): fresh +${(fresh.idleKB / 1024).toFixed(1)} MB, this process grew ${idle.toFixed(1)} MB after its first step: ratio ${((idle * 1024) / fresh.idleKB).toFixed(2)}`,
    )
  }
  const of = (key) => ((steps.at(-1)[key] - steps[1][key]) / 1024).toFixed(1)
  console.log(
    `of the resident memory: V8's heap +${(fresh.v8KB / 1024).toFixed(1)} MB fresh vs +${of('v8KB')} MB here; native (anonymous outside V8's heap) +${(fresh.nativeKB / 1024).toFixed(1)} MB fresh vs +${of('nativeKB')} MB here`,
  )
}

if (argv.includes('--hold')) {
  // Idle: no thread is inside malloc, so a debugger may call into it (bench/native-trim.sh).
  console.log(`holding: pid ${process.pid}, every row composed; kill -USR2 ${process.pid} to end`)
  await new Promise((resolve) => process.once('SIGUSR2', resolve))
}
handles.stop()
lag.disable()
await loop.dispose()
await upstream.close()
