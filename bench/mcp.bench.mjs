/**
 * The MCP server (`dsh-knowledge mcp`) against the same work done in-process, measured in the same run, over the
 * generated rounds the start bench uses (bench/.data/, gitignored), and the import of other agents' transcripts.
 *
 *   node bench/mcp.bench.mjs                 # 10000 documents
 *   node bench/mcp.bench.mjs 10000 100000    # also the large point (its corpus takes minutes to write once)
 *   node bench/mcp.bench.mjs --import 2000   # import throughput: 2000 rounds per format (Claude Code, Codex)
 *
 * Build first (`node scripts/build.mjs`). Per size: the server's start (spawn → initialize answered) and its RSS,
 * then knowledge_search over the query mix through the SDK's stdio client against the same search + rendering in
 * this process (p50/p99/max and the ratio of medians), and a knowledge_read. The server opens the store for each
 * call (it never keeps the index lock a dsh process needs), so the ratio is mostly the store's reused start.
 * Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/mcp
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const BIN = join(root, 'lib/cli/bin.js')
const lib = (p) => import(pathToFileURL(join(root, 'lib', p)).href)
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const fmt = (x) => `${x.toFixed(1)} ms`
const QUERIES = [
  'ERR_PNPM_FETCH_404',
  'TS2345',
  'pod keeps restarting out of memory',
  '安装依赖失败',
  'the tests fail in CI',
  'docker',
  'cache',
  'SQLITE_BUSY',
  'migration duplicate key',
  'graceful shutdown',
]

const args = process.argv.slice(2)
const importAt = args.indexOf('--import')
const importRounds = importAt >= 0 ? Number(args[importAt + 1] ?? 2000) : 0
const sizes = args.filter((a, i) => /^\d+$/.test(a) && !(importAt >= 0 && i === importAt + 1)).map(Number)
if (!sizes.length && !importRounds) sizes.push(10_000)
if (!existsSync(BIN)) throw new Error('build first: node scripts/build.mjs')

async function corpus(size) {
  const dir = join(here, '.data', `rounds-${size}`)
  if (!existsSync(join(dir, '.knowledge/cache', (await lib('knowledge/index-cache/index-cache.js')).CACHE_FILE))) {
    if (!existsSync(dir)) await writeRounds(dir, size)
    const { KnowledgeStore } = await lib('knowledge/store.js')
    const { createRedactor } = await lib('redact/redactor.js')
    const store = new KnowledgeStore({ root: dir, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    await store.start()
    await store.close()
  }
  return dir
}

async function inProcess(dir, rounds) {
  const { KnowledgeStore } = await lib('knowledge/store.js')
  const { createRedactor } = await lib('redact/redactor.js')
  const { parseSearchArgs } = await lib('knowledge/query.js')
  const { renderHits } = await lib('recall/search-tool.js')
  const store = new KnowledgeStore({ root: dir, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, readOnly: true })
  await store.start()
  const times = []
  for (let r = 0; r < rounds; r++)
    for (const q of QUERIES) {
      const t = performance.now()
      const a = parseSearchArgs({ query: q }, 8)
      renderHits(a.query, store.search(a.query, { limit: a.limit }), undefined)
      times.push(performance.now() - t)
    }
  await store.close()
  return stats(times)
}

function rssOf(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return Number.NaN
  }
}

async function throughServer(dir, rounds) {
  const started = performance.now()
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--disable-warning=ExperimentalWarning', BIN, 'mcp', '--root', dir], stderr: 'ignore' })
  const client = new Client({ name: 'bench', version: '0' })
  await client.connect(transport)
  const start = performance.now() - started
  const rssIdle = rssOf(transport.pid)
  const times = []
  let firstId
  for (let r = 0; r < rounds; r++)
    for (const q of QUERIES) {
      const t = performance.now()
      const out = await client.callTool({ name: 'knowledge_search', arguments: { query: q } })
      times.push(performance.now() - t)
      firstId ??= /\d+\. (\S+) \(v:\d+\)/.exec(out.content[0].text)?.[1]
    }
  const reads = []
  for (let i = 0; i < 10 && firstId; i++) {
    const t = performance.now()
    await client.callTool({ name: 'knowledge_read', arguments: { id: firstId } })
    reads.push(performance.now() - t)
  }
  const rssAfter = rssOf(transport.pid)
  await client.close()
  return { start, rssIdle, rssAfter, search: stats(times), read: reads.length ? stats(reads) : undefined }
}

for (const size of sizes) {
  const dir = await corpus(size)
  const rounds = size >= 100_000 ? 2 : 5
  const local = await inProcess(dir, rounds)
  const remote = await throughServer(dir, rounds)
  console.log(`\n== ${size} documents (${local.n} searches each way)`)
  console.log(`server start (spawn → initialized): ${fmt(remote.start)}; RSS idle ${remote.rssIdle.toFixed(0)} MB, after the calls ${remote.rssAfter.toFixed(0)} MB`)
  console.log(`knowledge_search in-process   p50 ${fmt(local.p50)}  p99 ${fmt(local.p99)}  max ${fmt(local.max)}`)
  console.log(`knowledge_search through MCP  p50 ${fmt(remote.search.p50)}  p99 ${fmt(remote.search.p99)}  max ${fmt(remote.search.max)}`)
  console.log(
    `ratio MCP / in-process: p50 ${(remote.search.p50 / local.p50).toFixed(1)}×, p99 ${(remote.search.p99 / local.p99).toFixed(1)}×, max ${(remote.search.max / local.max).toFixed(1)}×  (load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`,
  )
  if (remote.read) console.log(`knowledge_read through MCP   p50 ${fmt(remote.read.p50)}  max ${fmt(remote.read.max)}`)
}

if (importRounds) {
  const { claudeCodeLines, codexLines } = await import(pathToFileURL(join(root, 'test/fixtures/agent-transcripts.ts')).href).catch(() => ({}))
  if (!claudeCodeLines) throw new Error('--import needs Node with type stripping (Node >= 22.18) to read test/fixtures/agent-transcripts.ts')
  const perSession = 10
  for (const [agent, make] of [
    ['claude-code', claudeCodeLines],
    ['codex', codexLines],
  ]) {
    const home = mkdtempSync(join(tmpdir(), `dsh-ks-bench-${agent}-`))
    const folder = agent === 'claude-code' ? join(home, 'projects/-home-dev-shop') : join(home, 'sessions/2026/11/21')
    mkdirSync(folder, { recursive: true })
    const base = make()
    for (let s = 0; s < Math.ceil(importRounds / perSession); s++) {
      const uuid = `${String(s).padStart(8, '0')}-1111-4abc-8def-0123456789ab`
      // One session: the sample's answered turns repeated with distinct words, so every round is a new document.
      const lines = []
      for (let t = 0; t < perSession; t++)
        lines.push(...base.map((l) => l.replaceAll('7f3c2a10-1111-4abc-8def-0123456789ab', uuid).replaceAll('0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', uuid).replaceAll('0042', `${s}${t}`)))
      const name = agent === 'claude-code' ? `${uuid}.jsonl` : `rollout-2026-11-21T09-00-00-${uuid}.jsonl`
      writeFileSync(join(folder, name), lines.filter((l) => l.endsWith('}')).join('\n'))
    }
    const kb = join(home, 'kb')
    const env = { ...process.env, CLAUDE_CONFIG_DIR: home, CODEX_HOME: home }
    const t = performance.now()
    const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', BIN, 'import', '--from', agent, '--root', kb, '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 })
    const seconds = (performance.now() - t) / 1000
    const summary = JSON.parse(run.stdout || '{}')
    console.log(`\nimport --from ${agent}: ${summary.rounds} rounds (${summary.kept} kept) in ${seconds.toFixed(2)} s end to end = ${(summary.rounds / seconds).toFixed(0)} rounds/s`)
    rmSync(home, { recursive: true, force: true })
  }
}
