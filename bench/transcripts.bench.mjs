/**
 * Memory of listing other agents' transcripts: `openTranscripts('claude-code', dir).list()` (src/cli/transcripts/),
 * the step of `dsh-knowledge import --from claude-code` that reads every session file once, over folders of
 * Claude Code sessions written in its on-disk format (per-project JSONL: user prompts, thinking, text, tool_use, and
 * tool_result entries carrying file contents, as test/fixtures/agent-transcripts.ts has them).
 *
 *   node bench/transcripts.bench.mjs                  # 200 and 2000 sessions of ~100 KB (20 MB and 200 MB)
 *   node bench/transcripts.bench.mjs 2000:100 500:400  # sessions:KB per session, any number of points
 *
 * Build first (`node scripts/build.mjs`). Each point is listed in a fresh child process (`--expose-gc`): RSS and heap
 * after a gc before list(), the peak RSS during it (getrusage's maxrss), and RSS and heap after a gc once it returned
 * (what the listing keeps: one header and one file name per session). Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/transcripts
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const MB = 1024 * 1024

if (process.argv[2] === '--child') {
  const { openTranscripts } = await import(pathToFileURL(join(root, 'lib/cli/transcripts/index.js')).href)
  const dir = process.argv[3]
  const sample = () => {
    globalThis.gc()
    const m = process.memoryUsage()
    return { rss: m.rss, heap: m.heapUsed }
  }
  const logs = openTranscripts('claude-code', dir)
  const before = sample()
  const maxBefore = process.resourceUsage().maxRSS * 1024
  const t = performance.now()
  const { sessions, unreadable } = await logs.list()
  const ms = performance.now() - t
  const peak = process.resourceUsage().maxRSS * 1024
  const after = sample()
  console.log(JSON.stringify({ files: logs.files, sessions: sessions.length, unreadable: unreadable.length, ms, before, maxBefore, peak, after }))
  process.exit(0)
}

// A small seeded generator, so every session differs (no two files share their text) and runs repeat.
let seed = 0x9e3779b9
const rand = () => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 2 ** 32
}
const WORDS = 'cache build deploy token lockfile runner snapshot timezone checkout schema migration index query retry timeout worker queue payload header cursor'.split(' ')
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')
const code = (bytes) => {
  const lines = []
  let size = 0
  while (size < bytes) {
    const line = `  const ${WORDS[Math.floor(rand() * WORDS.length)]}${Math.floor(rand() * 1e6)} = await ${words(3).replaceAll(' ', '_')}(${Math.floor(rand() * 1e4)}) // ${words(6)}`
    lines.push(line)
    size += line.length + 1
  }
  return lines.join('\n')
}

/** One Claude Code session of about `kb` KB: rounds of prompt, thinking, text, tool_use, tool_result, answer. */
function session(uuid, cwd, kb) {
  const cc = (over) => JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: uuid, version: '2.1.332', ...over })
  const lines = [JSON.stringify({ type: 'summary', summary: words(4), leafUuid: `${uuid}-a0` })]
  let size = 0
  for (let turn = 0; size < kb * 1024; turn++) {
    const at = (s) => new Date(Date.UTC(2026, 10, 20, 10, turn, s)).toISOString()
    const id = `${uuid.slice(0, 8)}-${turn}`
    const round = [
      cc({ type: 'user', message: { role: 'user', content: `Why does the ${words(4)} fail after ${words(3)}?` }, uuid: `u${id}`, timestamp: at(0) }),
      cc({ type: 'assistant', message: { id: `msg_${id}a`, role: 'assistant', content: [{ type: 'thinking', thinking: words(60), signature: 'x' }] }, uuid: `a${id}a`, timestamp: at(1) }),
      cc({
        type: 'assistant',
        message: { id: `msg_${id}a`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${id}`, name: 'Read', input: { file_path: `${cwd}/src/${words(1)}.ts` } }] },
        uuid: `a${id}b`,
        timestamp: at(2),
      }),
      cc({ type: 'user', message: { role: 'user', content: [{ tool_use_id: `toolu_${id}`, type: 'tool_result', content: code(6000), is_error: false }] }, uuid: `r${id}`, timestamp: at(3) }),
      cc({
        type: 'assistant',
        message: { id: `msg_${id}b`, role: 'assistant', content: [{ type: 'text', text: `The cause: ${words(40)}. Fixed by ${words(20)}.` }] },
        uuid: `a${id}c`,
        timestamp: at(4),
      }),
    ]
    lines.push(...round)
    size += round.reduce((n, l) => n + l.length + 1, 0)
  }
  return `${lines.join('\n')}\n`
}

const points = process.argv
  .slice(2)
  .map((a) => a.split(':').map(Number))
  .filter(([n]) => n > 0)
const plan = points.length
  ? points.map(([n, kb]) => [n, kb || 100])
  : [
      [200, 100],
      [2000, 100],
    ]
const fmt = (bytes) => `${(bytes / MB).toFixed(1)} MB`
console.log(`transcripts list() memory (load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores, Node ${process.version})`)
for (const [count, kb] of plan) {
  const home = mkdtempSync(join(tmpdir(), 'dsh-ks-bench-transcripts-'))
  try {
    const projects = join(home, 'projects')
    let bytes = 0
    let largest = 0
    for (let s = 0; s < count; s++) {
      // Sessions spread over 20 projects, as Claude Code files them (one folder per workspace).
      const project = `-home-dev-app${s % 20}`
      const folder = join(projects, project)
      if (s < 20) mkdirSync(folder, { recursive: true })
      const uuid = `${String(s).padStart(8, '0')}-2222-4abc-8def-0123456789ab`
      const file = join(folder, `${uuid}.jsonl`)
      writeFileSync(file, session(uuid, `/home/dev/app${s % 20}`, kb))
      const size = statSync(file).size
      bytes += size
      largest = Math.max(largest, size)
    }
    const run = spawnSync(process.execPath, ['--expose-gc', '--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', projects], { encoding: 'utf8' })
    if (run.status !== 0) throw new Error(run.stderr)
    const r = JSON.parse(run.stdout)
    console.log(
      `\n${r.sessions} sessions (${r.files} files, ${fmt(bytes)}, largest ${fmt(largest)}) listed in ${(r.ms / 1000).toFixed(2)} s = ${(bytes / MB / (r.ms / 1000)).toFixed(0)} MB/s` +
        `\n  before: RSS ${fmt(r.before.rss)}, heap ${fmt(r.before.heap)}` +
        `\n  peak RSS during list(): ${fmt(r.peak)} (+${fmt(r.peak - r.before.rss)} over before)` +
        `\n  after (gc): RSS ${fmt(r.after.rss)} (+${fmt(r.after.rss - r.before.rss)}), heap ${fmt(r.after.heap)} (+${fmt(r.after.heap - r.before.heap)}, ${((r.after.heap - r.before.heap) / r.sessions).toFixed(0)} B a session)`,
    )
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
