/**
 * Backfill throughput: `dsh-knowledge import`'s pipeline over a generated dsh home, beside a baseline measured in the
 * same run that only reads the same logs with dsh's reader (no fold, salience, redaction or write).
 *
 * The home is written with dsh's own JSONL persistence backend (zstd frames, as dsh writes them), N sessions of
 * 3 rounds each: a tool call with arguments, a kept answer, a terse status answer.
 *   node bench/import.bench.mjs            # 100 and 1000 sessions
 *   node bench/import.bench.mjs 1000       # one size
 * Needs lib/ (node scripts/build.mjs). Data goes to bench/.data/ (gitignored).
 * @module dsh-knowledge-sync/bench/import.bench
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import Jsonl from '@deepseek-ai/dsh-session-persistence-jsonl'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const lib = (p) => import(join(root, 'lib', p))
const { openSessionLogs } = await lib('cli/dsh-sessions.js')
const { backfillSession, emptySummary } = await lib('capture/backfill.js')
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')

const TOPICS = [
  'pnpm install fails with ERR_PNPM_FETCH_404',
  'esbuild binary mismatch after upgrading Node',
  'flaky test in CI times out',
  'database migration locks the orders table',
  'docker build cache misses on every push',
  'TLS handshake fails behind the proxy',
]

function roundEvents(seq, time, turn, k) {
  const topic = TOPICS[(k + turn) % TOPICS.length]
  const ev = (type, data) => ({ type, seq: seq.n++, time: time + seq.n, data })
  const terse = turn === 3
  return [
    ev('turn/start', { turn }),
    ev('user/message', { id: `u${k}-${turn}`, role: 'user', content: [{ type: 'text', text: terse ? 'run the tests' : `Why does ${topic} on session ${k}?` }], source: { kind: 'user' } }),
    ...(terse
      ? []
      : [
          ev('tool/call', {
            turn,
            step: 1,
            callId: `c${k}-${turn}`,
            name: 'bash',
            arguments: JSON.stringify({ command: `pnpm install --reporter=ndjson # token=ghp_${'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'}` }),
          }),
          ev('tool/result', {
            turn,
            step: 1,
            message: {
              id: `r${k}-${turn}`,
              role: 'user',
              source: { kind: 'tool', callId: `c${k}-${turn}` },
              content: [{ type: 'tool-result', toolCallId: `c${k}-${turn}`, content: [{ type: 'text', text: 'ok' }], isError: false }],
            },
          }),
        ]),
    ev('assistant/message', {
      turn,
      step: 2,
      message: {
        id: `a${k}-${turn}`,
        role: 'assistant',
        source: { kind: 'model', provider: 'bench', model: 'bench' },
        content: [{ type: 'text', text: terse ? '12 passed' : `The cause is ${topic} because the lockfile pinned an old version; the fix is to update it and rerun pnpm install.` }],
      },
    }),
    ev('turn/end', { turn, reason: { kind: 'completed' } }),
  ]
}

async function generate(home, sessions) {
  const dir = join(home, 'sessions')
  if (existsSync(join(home, '.done'))) return
  rmSync(home, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(Jsonl, { root: dir })
  const p = ctx.sessionPersistence
  for (let k = 0; k < sessions; k++) {
    const id = `session-${String(k).padStart(8, '0')}-0000-4000-8000-${String(k).padStart(12, '0')}`
    const meta = { version: 0, id, createdAt: Date.UTC(2026, 0, 1) + k * 60_000, cwd: `/work/project-${k % 7}`, delegationDepth: 0 }
    await p.create(meta)
    const seq = { n: 0 }
    const events = [1, 2, 3].flatMap((turn) => roundEvents(seq, meta.createdAt, turn, k))
    await p.append(id, events)
  }
  await ctx.registry.delete(Jsonl)
  mkdirSync(join(home, '.done'))
}

async function run(sessions) {
  const home = join(root, 'bench/.data', `dsh-home-${sessions}`)
  await generate(home, sessions)
  // Baseline: read every log with dsh's reader.
  let t0 = performance.now()
  const reader = await openSessionLogs(home)
  const { sessions: headers } = await reader.list()
  let events = 0
  for (const h of headers) events += (await reader.events(h.id)).length
  const readMs = performance.now() - t0
  await reader.close()
  // Import: the same reads plus fold, salience, redaction and the write, into an empty root.
  const kb = join(root, 'bench/.data', `import-kb-${sessions}`)
  rmSync(kb, { recursive: true, force: true })
  t0 = performance.now()
  const logs = await openSessionLogs(home)
  const store = new KnowledgeStore({ root: kb, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  const summary = emptySummary()
  const seen = await store.ledger.roundsSeen()
  const listed = await logs.list()
  for (const h of listed.sessions) await backfillSession(store, { id: h.id, cwd: h.cwd ?? '', subagent: false, events: await logs.events(h.id) }, { minScore: 2, seen }, summary)
  await store.flush()
  const importMs = performance.now() - t0
  await store.close()
  await logs.close()
  const perS = (n, ms) => Math.round(n / (ms / 1000))
  console.log(
    `${sessions} sessions, ${summary.rounds} rounds (${events} events): read only ${readMs.toFixed(0)} ms (${perS(summary.rounds, readMs)} rounds/s); import ${importMs.toFixed(0)} ms (${perS(summary.rounds, importMs)} rounds/s, kept ${summary.kept}, dropped ${summary.dropped}, redacted ${summary.redacted}); import/read ×${(importMs / readMs).toFixed(2)}`,
  )
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0)
for (const n of sizes.length ? sizes : [100, 1000]) await run(n)
