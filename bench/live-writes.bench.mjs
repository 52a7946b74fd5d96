/**
 * Live writes into a large index, this checkout's `src/` against another's (a `git worktree`), in one run: what a
 * long-lived dsh pays to keep capturing rounds into a base of N documents. Each side opens its own copy of the
 * corpus's index file, merges it flat first (as an owner's start leaves it), then writes W documents one per
 * event-loop turn (each its own commit, as captured rounds are), waits for its background merging, and runs the
 * search bench's query mix. Printed per side: wall and CPU time, bytes written by system calls (`wchar` of
 * /proc/self/io: SQLite's pages, WAL included), per-write latency (upsert and its commit) p50/p99/max, FTS5 segments
 * left, search p50/p99/max; then the ratios (this / other). Sides run A B B A.
 *
 *   node bench/search.bench.mjs 100000           # the corpus, its query mix and its index file (once)
 *   git worktree add --detach /tmp/main-wt main && ln -s "$PWD/node_modules" /tmp/main-wt/node_modules
 *   node bench/live-writes.bench.mjs 100000 /tmp/main-wt/src [writes]
 *   LW_BARE_OTHER=1 node bench/live-writes.bench.mjs …   (the other side's file without the stored stamp hash, see side())
 *   LW_SLOWEST=1 …   (each side's five slowest writes, by index)
 *
 * Not part of the test suite.
 * @module dsh-knowledge-sync/bench/live-writes
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { DatabaseSync } from 'node:sqlite'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data')
const [sizeArg, otherArg, writesArg] = process.argv.slice(2)
const size = Number(sizeArg ?? 100000)
const writes = Number(writesArg ?? 2000)
if (!otherArg) {
  console.error('usage: node bench/live-writes.bench.mjs <size> <other checkout src/> [writes]')
  process.exit(2)
}
const indexFile = join(data, `rounds-${size}`, '.knowledge', 'cache', 'index-v4.sqlite')
const queriesFile = join(data, `queries-${size}.json`)
if (!existsSync(indexFile) || !existsSync(queriesFile)) {
  console.error(`no index for ${size}: run node bench/search.bench.mjs ${size} first`)
  process.exit(2)
}
const queries = JSON.parse(readFileSync(queriesFile, 'utf8'))

async function bundle(src) {
  const { buildSync } = await import(pathToFileURL(join(root, 'node_modules/esbuild/lib/main.js')).href)
  const dir = join(data, 'lib', `lw-${createHash('sha256').update(src).digest('hex').slice(0, 8)}`)
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, 'entry.ts')
  const at = (p) => JSON.stringify(join(src, p))
  writeFileSync(
    entry,
    `export { SearchIndex } from ${at('search/search-index.js')}\nexport { openIndexFile } from ${at('search/index-file.js')}\nexport { deriveTables, packageDataFile, TABLES_FILE, writeTables } from ${at('search/expand/cedict.js')}\n`,
  )
  const out = join(dir, 'lib.mjs')
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: out, packages: 'external', logLevel: 'warning' })
  const lib = await import(pathToFileURL(out).href)
  const tables = join(dir, lib.TABLES_FILE)
  if (!existsSync(tables)) lib.writeTables(lib.deriveTables(lib.packageDataFile()), tables)
  return lib
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const wchar = () => Number(/wchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0)
const turn = () => new Promise((resolve) => setImmediate(resolve))
const segments = (file) => {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db.prepare('SELECT count(DISTINCT segid) AS n FROM fts_idx').get().n
  } finally {
    db.close()
  }
}

function round(i) {
  const created = new Date(Date.UTC(2027, 0, 1) + i * 60_000).toISOString()
  const id = `live-${i}`
  return {
    id,
    path: `live/${id}.md`,
    meta: {
      id,
      title: `pnpm install fails after the lockfile change ${i}`,
      kind: 'raw',
      created,
      cwd: '/home/dev/projects/shop-web',
      tools: ['bash'],
      tags: [],
      session: `live-${i >> 5}`,
      turn: i & 31,
    },
    body: `The install failed with ERR_PNPM_FETCH_404 on @scope/pkg-${i % 300}. The lockfile was regenerated and the retry budget raised to ${i % 7}; word${i % 997} and esbuild ${i % 40} were involved.`,
    mtimeMs: Date.parse(created),
  }
}

async function side(name, lib) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-live-writes-'))
  const file = join(dir, 'index.sqlite')
  copyFileSync(indexFile, file)
  // LW_BARE_OTHER=1: the other side's copy as a build before the stored stamp hash left it (no column, trigger or
  // digest indexes), so that their cost on each write is in the ratios (session 39).
  if (name === 'other' && process.env.LW_BARE_OTHER === '1') {
    const db = new DatabaseSync(file)
    db.exec('DROP TRIGGER IF EXISTS doc_stamp_stale; DROP INDEX IF EXISTS doc_stamps; DROP INDEX IF EXISTS doc_racy')
    if (db.prepare("SELECT 1 FROM pragma_table_info('doc') WHERE name = 'stamp_hash'").get()) db.exec('ALTER TABLE doc DROP COLUMN stamp_hash')
    db.close()
  }
  const index = new lib.SearchIndex({}, lib.openIndexFile(file))
  try {
    index.mergeLeftovers()
    await index.settle()
    const flat = segments(file)
    const latency = []
    const cpu0 = process.cpuUsage()
    const io0 = wchar()
    const t0 = performance.now()
    for (let i = 0; i < writes; i++) {
      const t = performance.now()
      index.upsert(round(i))
      index.flush()
      latency.push(performance.now() - t)
      await turn()
    }
    await index.settle()
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const written = wchar() - io0
    const left = segments(file)
    for (const q of queries.slice(0, 100)) index.search(q.q, { ...q.filter, limit: 10 })
    const search = []
    for (const q of queries) {
      const t = performance.now()
      index.search(q.q, { ...q.filter, limit: 10 })
      search.push(performance.now() - t)
    }
    if (process.env.LW_SLOWEST === '1')
      console.log(
        name,
        'slowest writes (index: ms):',
        latency
          .map((ms, i) => [i, ms])
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5)
          .map(([i, ms]) => `${i}: ${ms.toFixed(1)}`)
          .join(', '),
      )
    return { name, wall, cpu: (cpu.user + cpu.system) / 1000, written, write: stats(latency), flat, left, search: stats(search) }
  } finally {
    index.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const mine = await bundle(join(root, 'src'))
const other = await bundle(otherArg)
const runs = { this: [], other: [] }
const order = (process.env.SIDES ?? 'this,other,other,this').split(',')
for (const name of order) {
  const r = await side(name, name === 'this' ? mine : other)
  runs[name].push(r)
  const f = (v) => v.toFixed(1)
  console.log(
    `${name.padEnd(5)} ${writes} writes: wall ${f(r.wall)} ms, cpu ${f(r.cpu)} ms, written ${f(r.written / 2 ** 20)} MB; write p50/p99/max ${f(r.write.p50)}/${f(r.write.p99)}/${f(r.write.max)} ms; segments ${r.flat} -> ${r.left}; search p50/p99/max ${f(r.search.p50)}/${f(r.search.p99)}/${f(r.search.max)} ms`,
  )
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ratio = (key) => median(runs.this.map(key)) / median(runs.other.map(key))
console.log(
  `\nratios this/other (median of each side's runs): cpu ×${ratio((r) => r.cpu).toFixed(2)}, written ×${ratio((r) => r.written).toFixed(2)}, wall ×${ratio((r) => r.wall).toFixed(2)}, write p99 ×${ratio((r) => r.write.p99).toFixed(2)}, write max ×${ratio((r) => r.write.max).toFixed(2)}, search p50 ×${ratio((r) => r.search.p50).toFixed(2)}, search p99 ×${ratio((r) => r.search.p99).toFixed(2)}`,
)
