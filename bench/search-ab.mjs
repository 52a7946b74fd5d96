/**
 * Search latency of two checkouts in one process: this one's `src/` against another's (a `git worktree` of main),
 * each bundled on its own, both indexes built over the same generated rounds, the search bench's query mix run
 * interleaved query by query (the order alternating per pass), so both sides see the same machine load.
 *
 *   node bench/search.bench.mjs 10000            # writes the corpus and the query mix under bench/.data/ (once)
 *   git worktree add --detach /tmp/main-wt main && ln -s "$PWD/node_modules" /tmp/main-wt/node_modules
 *   node bench/search-ab.mjs 10000 /tmp/main-wt/src [passes]
 *
 * Prints p50/p99/max per side and per query kind, and the ratios (this / other). Not part of the test suite.
 * @module dsh-knowledge-sync/bench/search-ab
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data')
const [sizeArg, otherArg, passesArg] = process.argv.slice(2)
const size = Number(sizeArg ?? 10000)
const passes = Number(passesArg ?? 3)
if (!otherArg) {
  console.error('usage: node bench/search-ab.mjs <size> <other checkout src/> [passes]')
  process.exit(2)
}

async function bundle(src) {
  const { buildSync } = await import(pathToFileURL(join(root, 'node_modules/esbuild/lib/main.js')).href)
  const dir = join(data, 'lib', `ab-${createHash('sha256').update(src).digest('hex').slice(0, 8)}`)
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, 'entry.ts')
  const at = (p) => JSON.stringify(join(src, p))
  writeFileSync(
    entry,
    `export { SearchIndex } from ${at('search/search-index.js')}\nexport { parseDocument } from ${at('knowledge/documents/document.js')}\nexport { deriveTables, packageDataFile, TABLES_FILE, writeTables } from ${at('search/expand/cedict.js')}\n`,
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
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}

const dir = join(data, `rounds-${size}`)
const queriesFile = join(data, `queries-${size}.json`)
if (!existsSync(join(dir, '.manifest.json')) || !existsSync(queriesFile)) {
  console.error(`no corpus for ${size}: run node bench/search.bench.mjs ${size} first`)
  process.exit(2)
}
const { paths } = JSON.parse(readFileSync(join(dir, '.manifest.json'), 'utf8'))
const queries = JSON.parse(readFileSync(queriesFile, 'utf8'))
const sides = { this: await bundle(join(root, 'src')), other: await bundle(resolve(otherArg)) }
const indexes = {}
for (const [name, lib] of Object.entries(sides)) {
  const index = new lib.SearchIndex({})
  const t = performance.now()
  for (const rel of paths) {
    const { meta, body } = lib.parseDocument(readFileSync(join(dir, rel), 'utf8'), rel, basename(rel, '.md'), 0)
    index.upsert({ id: meta.id, path: rel, meta, body, mtimeMs: 0 })
  }
  index.flush()
  await index.settle()
  console.log(`${name}: indexed ${index.size} documents in ${Math.round(performance.now() - t)} ms`)
  // The first expanded query loads the tables; not part of the comparison.
  index.search('超時 graceful shutdown', { limit: 10 })
  indexes[name] = index
}
const times = { this: [], other: [] }
const kinds = { this: {}, other: {} }
const chars = { this: 0, other: 0 }
for (let pass = 0; pass < passes; pass++) {
  for (const q of queries) {
    for (const name of pass % 2 ? ['other', 'this'] : ['this', 'other']) {
      const t0 = performance.now()
      const hits = indexes[name].search(q.q, { ...q.filter, limit: 10 })
      const dt = performance.now() - t0
      times[name].push(dt)
      ;(kinds[name][q.kind] ??= []).push(dt)
      if (pass === 0) chars[name] += JSON.stringify(hits).length
    }
  }
}
const f = (v) => `${v.toFixed(2)} ms`
const a = stats(times.this)
const b = stats(times.other)
console.log(`${size} documents, ${queries.length} queries × ${passes} passes, interleaved; this = ${join(root, 'src')}, other = ${resolve(otherArg)}`)
console.log(`  search p50  this ${f(a.p50)}  other ${f(b.p50)}  ×${(a.p50 / b.p50).toFixed(2)}`)
console.log(`  search p99  this ${f(a.p99)}  other ${f(b.p99)}  ×${(a.p99 / b.p99).toFixed(2)}`)
console.log(`  search max  this ${f(a.max)}  other ${f(b.max)}  ×${(a.max / b.max).toFixed(2)}`)
for (const kind of Object.keys(kinds.this)) {
  const x = stats(kinds.this[kind])
  const y = stats(kinds.other[kind])
  console.log(`  ${kind.padEnd(8)} p50 ${f(x.p50)} / ${f(y.p50)} (×${(x.p50 / y.p50).toFixed(2)}), p99 ${f(x.p99)} / ${f(y.p99)} (×${(x.p99 / y.p99).toFixed(2)})`)
}
console.log(`  hit lists (JSON characters, all queries, first pass): this ${chars.this}, other ${chars.other} (×${(chars.this / chars.other).toFixed(3)})`)
for (const index of Object.values(indexes)) index.close()
