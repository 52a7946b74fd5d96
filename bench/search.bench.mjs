/**
 * Search engine benchmark: the FTS5 SearchIndex against two baselines measured in the same run, over realistic
 * generated rounds written as files (bench/.data/, gitignored).
 *
 *   node bench/search.bench.mjs                # 1000, 10000 and 100000 documents
 *   node bench/search.bench.mjs 10000          # one size
 *   node bench/search.bench.mjs 100000 --wink-all   # also run wink-bm25 at 100k (minutes, GBs)
 *   node bench/search.bench.mjs --expand-off-all    # also the expansion-off baseline at 100k (on by default up to 10k)
 *
 * Per size and engine (each engine runs in its own child process, so RSS numbers do not mix):
 * - cold index: read every file + parseDocument + upsert (FTS5) / addDoc + consolidate (wink);
 * - new round searchable: write one new round file, then read + parse + upsert + search until it is the top hit;
 * - search p50/p99 over a mix of queries (identifiers, natural language, Chinese/Japanese, common words, filters),
 *   with query expansion on (the default); and on vs off in one more process holding both indexes, the queries
 *   interleaved (the overhead's ratio, fair under a shared machine's load); the first expanded query (which loads the
 *   CC-CEDICT tables and opencc-js) is timed apart;
 * - RSS growth after GC, and peak RSS.
 * Baselines: (a) grep-like: read every file per query and test the lowercased query terms as substrings (OR);
 * (b) wink-bm25-text-search 3.1.2 with wink-nlp-utils prep tasks, at 1k and 10k only (it cannot add a document after
 * consolidate(), so a new round means a full rebuild; at 100k a build takes minutes and >2 GB, so it is skipped).
 * Not part of the test suite; the numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/search
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, mkdirSync, existsSync, rmSync } from 'node:fs'
import { join, dirname, basename } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { generateRounds, generateRound, renderDocument, rng, writeRounds, WORKSPACES } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const data = join(here, '.data')
const libFile = join(data, 'lib', 'search-bench-lib.mjs')

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] : NaN)
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const mb = (bytes) => bytes / 1048576

/** Bundles the TypeScript sources the bench measures (SearchIndex, parseDocument) into one ES module. */
async function bundle() {
  const { buildSync } = await import(pathToFileURL(join(root, 'node_modules/esbuild/lib/main.js')).href)
  mkdirSync(dirname(libFile), { recursive: true })
  writeFileSync(
    join(data, 'lib', 'entry.ts'),
    `export { SearchIndex } from '../../../src/search/search-index.js'\nexport { createIndexFile } from '../../../src/search/index-file.js'\nexport { deriveTables, packageDataFile, TABLES_FILE, writeTables } from '../../../src/search/expand/cedict.js'\nexport { parseDocument, readSimpleFrontMatter, splitFrontMatter } from '../../../src/knowledge/documents/document.js'\nexport { KnowledgeStore } from '../../../src/knowledge/store.js'\nexport { createRedactor } from '../../../src/redact/redactor.js'\n`,
  )
  buildSync({ entryPoints: [join(data, 'lib', 'entry.ts')], bundle: true, platform: 'node', format: 'esm', outfile: libFile, packages: 'external', logLevel: 'warning' })
  // Query expansion loads CC-CEDICT tables from a file beside its module (the build writes lib/'s); the bundle gets its own.
  const lib = await import(pathToFileURL(libFile).href)
  const tables = join(dirname(libFile), lib.TABLES_FILE)
  if (!existsSync(tables)) lib.writeTables(lib.deriveTables(lib.packageDataFile()), tables)
}

// ------------------------------------------------------------------------------------------------ query mix

const IDENT_RES = [
  /\b(?:ERR|E)[A-Z0-9]*_[A-Z0-9_]+\b/g,
  /\bTS\d{4,5}\b/g,
  /\bE\d{5}\b/g,
  /\b[a-z]+(?:[A-Z][a-z]+)+\b/g,
  /\b[\w-]+@\d+\.\d+\.\d+\b/g,
  /\b(?:src|packages|apps|test|scripts|config|lib|infra)\/[\w./-]+\.\w+\b/g,
  /\b[a-z]+_[a-z]+(?:_[a-z]+)?\b/g,
]
const NATURAL = [
  (d) => `how did we fix ${d.code} when installing`,
  (d) => `why does ${d.svc} refuse connections on port ${d.port}`,
  (d) => `${d.fn} is slow under load`,
  (d) => `where do we read ${d.env} and what is the default`,
  (d) => `upgrade ${d.pkg} breaking changes named export`,
  () => 'pod keeps restarting out of memory',
  () => 'ci fails after bumping node version cache key',
  () => 'migration fails with duplicate key on unique index',
  () => 'route returns 403 for some users after deploy',
  (d) => `make ${d.fn} unit testable`,
  () => 'lockfile points at the internal registry mirror',
  () => 'test suite flaky because of shared global state',
]
const CJK = [
  '安装依赖失败',
  '构建速度太慢 缓存',
  '测试偶尔失败',
  '数据库连接泄漏',
  '内存占用过高',
  '接口返回超时 重试',
  '部署后页面空白',
  '权限校验不生效',
  '日志 乱码',
  '热更新不工作',
  'ビルドが失敗する',
  'テスト タイムアウト',
  'ログイン リダイレクト',
  'pnpm 镜像源',
  '连接池 release',
]
const COMMON = ['error', 'test', 'fix the build', 'install fails', 'timeout', 'docker', 'cache', 'slow', 'the tests fail in CI', 'memory', 'deploy', 'config', 'performance', 'database', 'upgrade']
const SINGLE = ['ERR_PNPM_FETCH_404', 'TS2345', 'EADDRINUSE', 'E11000', 'OOMKilled', 'CrashLoopBackOff', 'SQLITE_BUSY', 'ERR_MODULE_NOT_FOUND']

/** A deterministic query mix drawn from the corpus itself; planted queries carry the ids that contain all their parts. */
function buildQueries(docs) {
  const r = rng(4242)
  const pick = (list) => list[Math.floor(r() * list.length)]
  const queries = []
  const lowerTexts = docs.map((d) => d.text.toLowerCase())
  const planted = []
  for (let tries = 0; planted.length < 40 && tries < 2000; tries++) {
    const d = docs[Math.floor(r() * docs.length)]
    const found = new Set()
    for (const re of IDENT_RES) for (const m of d.body.match(re) ?? []) found.add(m)
    const idents = [...found]
    if (idents.length < 2) continue
    const a = pick(idents)
    const b = pick(idents)
    if (a === b) continue
    const q = `${a} ${b}`
    const parts = [a.toLowerCase(), b.toLowerCase()]
    const relevant = []
    for (let i = 0; i < docs.length; i++) if (parts.every((p) => lowerTexts[i].includes(p))) relevant.push(docs[i].meta.id)
    planted.push({ q, kind: 'planted', relevant })
  }
  queries.push(...planted)
  const slots = () => {
    const d = docs[Math.floor(r() * docs.length)].body
    const first = (re, fallback) => (d.match(re) ?? [fallback])[0]
    return {
      code: first(/\b(?:ERR|E)[A-Z0-9]*_[A-Z0-9_]+\b/, 'ERR_PNPM_FETCH_404'),
      fn: first(/\b[a-z]+(?:[A-Z][a-z]+)+\b/, 'loadUser'),
      env: first(/\b[A-Z0-9]+_(?:URL|PROXY|KEY|HOST|PORT|OPTIONS|TIMEOUT)\b/, 'DATABASE_URL'),
      pkg: pick(['react', 'vite', 'prisma', 'zod', 'express']),
      svc: pick(['redis', 'postgres', 'mongodb', 'the worker']),
      port: pick([3000, 5432, 6379, 27017]),
    }
  }
  for (let i = 0; i < 25; i++) queries.push({ q: NATURAL[i % NATURAL.length](slots()), kind: 'natural' })
  for (const q of CJK) queries.push({ q, kind: 'cjk' })
  for (const q of COMMON) queries.push({ q, kind: 'common' })
  for (const q of SINGLE) queries.push({ q, kind: 'ident' })
  queries.forEach((q, i) => {
    q.filter = {}
    if (i % 4 === 1) q.filter.scope = WORKSPACES[i % WORKSPACES.length]
    if (i % 7 === 3) q.filter.kind = 'note'
    if (i % 11 === 5) q.filter.tool = 'bash*'
  })
  return queries
}

// ------------------------------------------------------------------------------------------------ children

function gcRss() {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().rss
}

function loadCorpus(size) {
  const dir = join(data, `rounds-${size}`)
  const manifest = JSON.parse(readFileSync(join(dir, '.manifest.json'), 'utf8'))
  return { dir, paths: manifest.paths }
}

/** A new round for the write-to-searchable measurement, with a planted identifier nobody else has. */
function newRound(size, k) {
  const d = generateRound(rng(9000 + k), size + 1000 + k)
  const marker = `zqxMarker${k}Probe`
  const body = `${d.body}\nThe culprit was ${marker} in the retry path.\n`
  const meta = { ...d.meta, id: `new-${size}-${k}` }
  return { meta, body, text: renderDocument(meta, body), marker, relPath: `new/${meta.id}.md` }
}

/**
 * Reads and parses every corpus file the same way for each engine, timing the read, the parse and `add` (the engine's
 * own indexing of one document) apart.
 */
function readCorpus(dir, paths, parseDocument, add) {
  let read = 0,
    parse = 0,
    added = 0
  for (const rel of paths) {
    let t = performance.now()
    const text = readFileSync(join(dir, rel), 'utf8')
    read += performance.now() - t
    t = performance.now()
    const parsed = parseDocument(text, rel, basename(rel, '.md'), 0)
    parse += performance.now() - t
    t = performance.now()
    add(parsed, rel)
    added += performance.now() - t
  }
  return { read, parse, added }
}

async function childFts(size, file = false) {
  const { SearchIndex, createIndexFile, parseDocument, readSimpleFrontMatter, splitFrontMatter } = await import(pathToFileURL(libFile).href)
  const { dir, paths } = loadCorpus(size)
  // The generator mirrors formatDocument by hand: prove the store's fast front-matter path reads what it wrote.
  for (const rel of paths.slice(0, 50)) {
    if (!readSimpleFrontMatter(splitFrontMatter(readFileSync(join(dir, rel), 'utf8')).yaml)) throw new Error(`generated ${rel} is not in formatDocument's format`)
  }
  const queries = JSON.parse(readFileSync(join(data, `queries-${size}.json`), 'utf8'))
  const rss0 = gcRss()
  // BENCH_SCORE_BUDGET overrides the planner's score budget (for tuning runs).
  const plans = {}
  const onPlan = (plan) => {
    plans[plan] = (plans[plan] ?? 0) + 1
  }
  // BENCH_EXPAND=off: query expansion off (the baseline of the expansion-on line, measured in the same run).
  const expandOff = process.env.BENCH_EXPAND === 'off'
  const options = { onPlan, ...(process.env.BENCH_SCORE_BUDGET ? { scoreBudget: Number(process.env.BENCH_SCORE_BUDGET) } : {}), ...(expandOff ? { expand: false } : {}) }
  // `fts-file`: the same index backed by a file, as the store's persisted cache is (WAL, 8 MB page cache).
  const dbFile = join(data, `index-${size}.sqlite`)
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbFile + suffix, { force: true })
  const index = file ? new SearchIndex(options, createIndexFile(dbFile)) : new SearchIndex(options)
  const t0 = performance.now()
  const { read, parse, added: upsert } = readCorpus(dir, paths, parseDocument, ({ meta, body }, rel) => index.upsert({ id: meta.id, path: rel, meta, body, mtimeMs: 0 }))
  const t1 = performance.now()
  index.flush()
  const commit = performance.now() - t1
  const cold = performance.now() - t0
  // Segment merging runs in the background after a bulk load (the event loop stays free); wait for it here so the
  // measurements below see the steady state, and report how long it took.
  const t2 = performance.now()
  await index.settle()
  const merge = performance.now() - t2
  const rss1 = gcRss()
  // New rounds: written to disk, then read + parsed + indexed + found, one at a time (commit included).
  mkdirSync(join(dir, 'new'), { recursive: true })
  const fresh = [],
    upserts = []
  for (let k = 0; k < 40; k++) {
    const d = newRound(size, k)
    const file = join(dir, d.relPath)
    writeFileSync(file, d.text)
    const t = performance.now()
    const parsed = parseDocument(readFileSync(file, 'utf8'), d.relPath, d.meta.id, 0)
    const tu = performance.now()
    index.upsert({ id: parsed.meta.id, path: d.relPath, meta: parsed.meta, body: parsed.body, mtimeMs: 0 })
    index.flush()
    upserts.push(performance.now() - tu)
    const hit = index.search(d.marker, { limit: 1 })[0]
    fresh.push(performance.now() - t)
    if (hit?.id !== d.meta.id) throw new Error(`new round ${d.meta.id} not found first (got ${hit?.id})`)
    rmSync(file)
  }
  // The first query that needs query expansion's sources loads them (CC-CEDICT tables, opencc-js): timed apart.
  const tw = performance.now()
  index.search('超時 graceful shutdown', { limit: 10 })
  const expandLoad = performance.now() - tw
  const rssExpand = gcRss()
  // Search mix: three passes (the first with cold planning caches), every query with its filter.
  const times = [],
    byKind = {}
  for (const k of Object.keys(plans)) delete plans[k]
  let planted = 0,
    plantedN = 0,
    cjkAnswered = 0,
    cjkN = 0
  for (let pass = 0; pass < 3; pass++) {
    for (const q of queries) {
      const t = performance.now()
      const hits = index.search(q.q, { ...q.filter, limit: 10 })
      const dt = performance.now() - t
      times.push(dt)
      ;(byKind[q.kind] ??= []).push(dt)
      if (pass === 0 && q.kind === 'cjk' && !Object.keys(q.filter).length) {
        cjkN++
        if (hits.length) cjkAnswered++
      }
      if (pass === 0 && q.kind === 'planted' && !Object.keys(q.filter).length && q.relevant.length) {
        plantedN++
        const top = new Set(hits.slice(0, 5).map((h) => h.id))
        if (q.relevant.some((id) => top.has(id))) planted++
      }
    }
  }
  const rss2 = gcRss()
  return {
    engine: 'fts5',
    size: index.size,
    cold,
    read,
    parse,
    upsert,
    commit,
    merge,
    rssGrowth: mb(rss1 - rss0),
    rssAfterSearch: mb(rss2 - rss0),
    expandOff,
    expandLoad,
    expandRss: mb(rssExpand - rss1),
    peakRss: process.resourceUsage().maxRSS / 1024,
    fresh: stats(fresh),
    upsertOne: stats(upserts),
    search: stats(times),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, stats(v)])),
    plans,
    planted: plantedN ? planted / plantedN : NaN,
    cjk: `${cjkAnswered}/${cjkN}`,
  }
}

async function childWink(size) {
  const bm25 = (await import('wink-bm25-text-search')).default
  const nlp = (await import('wink-nlp-utils')).default
  const { parseDocument } = await import(pathToFileURL(libFile).href)
  const { dir, paths } = loadCorpus(size)
  const queries = JSON.parse(readFileSync(join(data, `queries-${size}.json`), 'utf8'))
  const prep = [nlp.string.lowerCase, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem, nlp.tokens.propagateNegations]
  const build = (docs) => {
    const engine = bm25()
    engine.defineConfig({ fldWeights: { title: 4, tags: 2, body: 1 }, ovFldNames: ['cwd', 'kind', 'tools'] })
    engine.definePrepTasks(prep)
    for (const d of docs) engine.addDoc({ title: d.title, tags: d.tags, body: d.body, cwd: d.cwd, kind: d.kind, tools: d.tools }, d.id)
    engine.consolidate()
    return engine
  }
  const rss0 = gcRss()
  const t0 = performance.now()
  const docs = []
  const { read, parse } = readCorpus(dir, paths, parseDocument, ({ meta, body }) =>
    docs.push({ id: meta.id, title: meta.title, tags: meta.tags.join(' '), body, cwd: meta.cwd, kind: meta.kind, tools: meta.tools.join(' ') }),
  )
  const tb = performance.now()
  let engine = build(docs)
  const index = performance.now() - tb
  const cold = performance.now() - t0
  const rss1 = gcRss()
  // A new round: wink cannot add after consolidate(), so it is a rebuild of everything plus the new document.
  const fresh = []
  for (let k = 0; k < (size <= 1000 ? 5 : 2); k++) {
    const d = newRound(size, k)
    const file = join(dir, d.relPath)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, d.text)
    const t = performance.now()
    const parsed = parseDocument(readFileSync(file, 'utf8'), d.relPath, d.meta.id, 0)
    docs.push({ id: parsed.meta.id, title: parsed.meta.title, tags: parsed.meta.tags.join(' '), body: parsed.body, cwd: parsed.meta.cwd, kind: parsed.meta.kind, tools: parsed.meta.tools.join(' ') })
    engine = build(docs)
    const hit = engine.search(d.marker, 1)[0]
    fresh.push(performance.now() - t)
    if (hit?.[0] !== d.meta.id) console.error(`wink: new round ${d.meta.id} not found first (got ${hit?.[0]})`)
    rmSync(file)
  }
  const scopeOk = (cwd, scope) => cwd === '' || cwd === scope || cwd.startsWith(scope + '/')
  const filterFn = (f) => (v) => (!f.scope || scopeOk(v.cwd, f.scope)) && (!f.kind || v.kind === f.kind) && (!f.tool || v.tools.split(' ').some((t) => t.startsWith(f.tool.replace('*', ''))))
  const times = [],
    byKind = {}
  let planted = 0,
    plantedN = 0,
    cjkAnswered = 0,
    cjkN = 0
  for (let pass = 0; pass < 3; pass++) {
    for (const q of queries) {
      const t = performance.now()
      const hits = Object.keys(q.filter).length ? engine.search(q.q, 10, filterFn(q.filter)) : engine.search(q.q, 10)
      const dt = performance.now() - t
      times.push(dt)
      ;(byKind[q.kind] ??= []).push(dt)
      if (pass === 0 && q.kind === 'cjk' && !Object.keys(q.filter).length) {
        cjkN++
        if (hits.length) cjkAnswered++
      }
      if (pass === 0 && q.kind === 'planted' && !Object.keys(q.filter).length && q.relevant.length) {
        plantedN++
        if (hits.slice(0, 5).some(([id]) => q.relevant.includes(id))) planted++
      }
    }
  }
  return {
    engine: 'wink',
    size: docs.length,
    cold,
    read,
    parse,
    upsert: index,
    rssGrowth: mb(rss1 - rss0),
    peakRss: process.resourceUsage().maxRSS / 1024,
    fresh: stats(fresh),
    search: stats(times),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, stats(v)])),
    planted: plantedN ? planted / plantedN : NaN,
    cjk: `${cjkAnswered}/${cjkN}`,
  }
}

async function childGrep(size) {
  const { dir, paths } = loadCorpus(size)
  const queries = JSON.parse(readFileSync(join(data, `queries-${size}.json`), 'utf8'))
  const budget = size <= 1000 ? queries.length : size <= 10000 ? 24 : 4
  // Spread the sample over the mix so every kind of query is represented.
  const sample = queries.filter((_, i) => i % Math.ceil(queries.length / budget) === 0).slice(0, budget)
  const rss0 = gcRss()
  const times = []
  let matches = 0
  for (const q of sample) {
    const terms = q.q
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t.length >= 2)
    const t = performance.now()
    let n = 0
    for (const rel of paths) {
      const text = readFileSync(join(dir, rel), 'utf8').toLowerCase()
      if (terms.some((term) => text.includes(term))) n++
    }
    times.push(performance.now() - t)
    matches += n
  }
  return { engine: 'grep', size: paths.length, queries: sample.length, search: stats(times), rssGrowth: mb(gcRss() - rss0), avgMatches: matches / sample.length }
}

/** The product's own cold start without its persisted index (bench/start.bench.mjs measures that): walk, read, parse, index every file. */
async function childStore(size) {
  const { KnowledgeStore, createRedactor } = await import(pathToFileURL(libFile).href)
  const { dir } = loadCorpus(size)
  const rss0 = gcRss()
  const store = new KnowledgeStore({ root: dir, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false })
  const t = performance.now()
  await store.start()
  const cold = performance.now() - t
  const result = { engine: 'store', size: store.size, cold, rssGrowth: mb(gcRss() - rss0), invalid: store.invalid.size }
  await store.close()
  return result
}

/**
 * Expansion on vs off in one process, the query mix interleaved query by query (so both see the same machine load):
 * the ratio the search line's expansion overhead is judged by. Two indexes of the corpus; RSS is not reported here.
 */
async function childExpandPair(size) {
  const { SearchIndex, parseDocument } = await import(pathToFileURL(libFile).href)
  const { dir, paths } = loadCorpus(size)
  const queries = JSON.parse(readFileSync(join(data, `queries-${size}.json`), 'utf8'))
  const on = new SearchIndex({}),
    off = new SearchIndex({ expand: false })
  readCorpus(dir, paths, parseDocument, ({ meta, body }, rel) => {
    const d = { id: meta.id, path: rel, meta, body, mtimeMs: 0 }
    on.upsert(d)
    off.upsert(d)
  })
  on.flush()
  off.flush()
  await on.settle()
  await off.settle()
  const tw = performance.now()
  on.search('超時 graceful shutdown', { limit: 10 })
  const load = performance.now() - tw
  const t = { on: [], off: [] },
    kinds = { on: {}, off: {} }
  for (let pass = 0; pass < 3; pass++) {
    for (const q of queries) {
      for (const [name, index] of pass % 2
        ? [
            ['off', off],
            ['on', on],
          ]
        : [
            ['on', on],
            ['off', off],
          ]) {
        const t0 = performance.now()
        index.search(q.q, { ...q.filter, limit: 10 })
        const dt = performance.now() - t0
        t[name].push(dt)
        ;(kinds[name][q.kind] ??= []).push(dt)
      }
    }
  }
  const by = (k) => Object.fromEntries(Object.entries(k).map(([kind, v]) => [kind, stats(v)]))
  return { on: stats(t.on), off: stats(t.off), onByKind: by(kinds.on), offByKind: by(kinds.off), load }
}

// ------------------------------------------------------------------------------------------------ parent

function runChild(engine, size, env = {}) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', engine, String(size)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  return JSON.parse(out.trim().split('\n').pop())
}

const f1 = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '—')
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && a > 0 ? `${(b / a).toFixed(b / a >= 10 ? 0 : 1)}×` : '—')

function report(size, fts, grep, wink, off) {
  const line = (label, ours, theirs, unit = 'ms') =>
    `  ${label.padEnd(34)} ${f1(ours).padStart(9)} ${unit.padEnd(3)}` + theirs.map(([name, v]) => `  ${name} ${f1(v).padStart(9)} ${unit.padEnd(3)} (${ratio(ours, v)})`).join('')
  console.log(`\n=== ${size.toLocaleString('en')} documents (${fts.size} after the new rounds) ===`)
  console.log(`  ${''.padEnd(34)} ${'fts5'.padStart(13)}    baselines (their value / ours)`)
  const w = wink ? [['wink', wink.cold]] : []
  console.log(line('cold index (read+parse+index)', fts.cold, w))
  console.log(
    `    of which read ${f1(fts.read)} ms, parseDocument ${f1(fts.parse)} ms, upsert ${f1(fts.upsert)} ms, commit ${f1(fts.commit)} ms` +
      (wink ? `; wink addDoc+consolidate ${f1(wink.upsert)} ms` : ''),
  )
  console.log(`    then background segment merging ${f1(fts.merge)} ms (event loop free; searches work meanwhile)`)
  console.log(line('new round searchable p50', fts.fresh.p50, [...(wink ? [['wink', wink.fresh.p50]] : []), ['grep', grep.search.p50]]))
  console.log(line('new round searchable max', fts.fresh.max, wink ? [['wink', wink.fresh.max]] : []))
  console.log(`    (fts5: read+parse+upsert+commit+search; upsert+commit alone p50 ${f1(fts.upsertOne.p50)} ms, max ${f1(fts.upsertOne.max)} ms; wink: full rebuild; grep: one scan)`)
  console.log(line('search p50', fts.search.p50, [...(wink ? [['wink', wink.search.p50]] : []), ['grep', grep.search.p50]]))
  console.log(line('search p99', fts.search.p99, [...(wink ? [['wink', wink.search.p99]] : []), ['grep', grep.search.p99]]))
  console.log(line('search max', fts.search.max, wink ? [['wink', wink.search.max]] : []))
  if (off) {
    console.log(line('search p50, expansion off', off.off.p50, [['expansion on', off.on.p50]]))
    console.log(line('search p99, expansion off', off.off.p99, [['expansion on', off.on.p99]]))
    console.log(
      `    (one process, both indexes, queries interleaved; p50/p99 by kind, off → on: ` +
        Object.keys(off.onByKind)
          .map((k) => `${k} ${f1(off.offByKind[k].p50)}/${f1(off.offByKind[k].p99)} → ${f1(off.onByKind[k].p50)}/${f1(off.onByKind[k].p99)}`)
          .join(', ') +
        ')',
    )
  }
  console.log(`    first expanded query (loads the CC-CEDICT tables and opencc-js): ${f1(fts.expandLoad)} ms, RSS +${f1(fts.expandRss)} MB`)
  console.log(
    `    fts5 p50/p99 by kind: ` +
      Object.entries(fts.byKind)
        .map(([k, s]) => `${k} ${f1(s.p50)}/${f1(s.p99)}`)
        .join(', ') +
      `; plans ${JSON.stringify(fts.plans)}`,
  )
  console.log(line('RSS growth after GC', fts.rssGrowth, wink ? [['wink', wink.rssGrowth]] : [], 'MB'))
  console.log(line('peak RSS of the process', fts.peakRss, wink ? [['wink', wink.peakRss]] : [], 'MB'))
  console.log(
    `  planted identifier pairs found in top 5: fts5 ${(fts.planted * 100).toFixed(0)}%` +
      (wink ? `, wink ${(wink.planted * 100).toFixed(0)}%` : '') +
      `; grep scanned ${grep.queries} queries (${f1(grep.avgMatches)} matching files each, unranked)`,
  )
  console.log(`  Chinese/Japanese queries with any hit: fts5 ${fts.cjk}` + (wink ? `, wink ${wink.cjk}` : ''))
  if (!wink) console.log('  wink skipped at this size (pass --wink-all to run it): it cannot add after consolidate(), and a 100k build takes minutes and GBs')
}

async function main() {
  const argv = process.argv.slice(2)
  if (argv[0] === '--child') {
    const [, engine, size] = argv
    const fn = { fts: childFts, 'fts-file': (n) => childFts(n, true), wink: childWink, grep: childGrep, store: childStore, 'expand-pair': childExpandPair }[engine]
    const result = await fn(Number(size))
    process.stdout.write('\n' + JSON.stringify(result) + '\n')
    return
  }
  const winkAll = argv.includes('--wink-all')
  const numbers = argv.filter((a) => /^\d+$/.test(a)).map(Number)
  const sizes = numbers.length ? numbers : [1000, 10_000, 100_000]
  await bundle()
  console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} cores; bench/search.bench.mjs ${sizes.join(' ')}`)
  for (const size of sizes) {
    const t = performance.now()
    const dir = join(data, `rounds-${size}`)
    const existed = existsSync(join(dir, '.manifest.json'))
    writeRounds(dir, size)
    const docs = generateRounds(size)
    writeFileSync(join(data, `queries-${size}.json`), JSON.stringify(buildQueries(docs)))
    console.log(`\n[${size}] corpus ${existed ? 'reused' : 'written'} under ${dir} (${Math.round(performance.now() - t)} ms); running engines…`)
    const store = runChild('store', size)
    const fts = runChild('fts', size)
    const ftsFile = runChild('fts-file', size)
    const grep = runChild('grep', size)
    const wink = size <= 10_000 || winkAll ? runChild('wink', size) : null
    const off = size <= 10_000 || argv.includes('--expand-off-all') ? runChild('expand-pair', size) : null
    report(size, fts, grep, wink, off)
    console.log(
      `  the same index backed by a file (the store's cache): cold ${f1(ftsFile.cold)} ms (${ratio(fts.cold, ftsFile.cold)} of memory's time), new round searchable p50 ${f1(ftsFile.fresh.p50)} / max ${f1(ftsFile.fresh.max)} ms, search p50 ${f1(ftsFile.search.p50)} / p99 ${f1(ftsFile.search.p99)} / max ${f1(ftsFile.search.max)} ms, RSS growth ${f1(ftsFile.rssGrowth)} MB; plans ${JSON.stringify(ftsFile.plans)}`,
    )
    console.log(
      `  store cold start (KnowledgeStore.start(): walk + read + parse + index, ${store.size} documents, ${store.invalid} unreadable): ${f1(store.cold)} ms` +
        (wink ? ` — wink cold ${f1(wink.cold)} ms (${ratio(store.cold, wink.cold)})` : ''),
    )
  }
}

await main()
