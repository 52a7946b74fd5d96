/**
 * Capture's cost on the agent loop's hot path.
 *
 * 1. The `session/event` listener alone: median time per event, beside a no-op listener measured in the same run
 *    (target: median < 0.1 ms).
 * 2. Whole turns through the real in-process agent loop: ms per turn with the capture row vs without it.
 *
 * Run: `node bench/capture.bench.ts` after `node scripts/build.mjs` (it loads the built rows from lib/).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { byPrompt, createLoop } from '../test/harness/loop.ts'

const root = join(import.meta.dirname, '..')
const load = (p: string) => import(pathToFileURL(join(root, p)).href)
const knowledge = await load('lib/knowledge/index.js')
const capture = await load('lib/capture/index.js')
const { KnowledgeStore } = await load('lib/knowledge/store.js')
const { createRedactor } = await load('lib/redact/redactor.js')

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length * 0.99)]
}

// ---------------------------------------------------------------- 1. the listener alone
function listenerOf(apply: (ctx: unknown, config: unknown) => void, config: unknown) {
  let handler: ((session: unknown, event: unknown) => void) | undefined
  const store = new KnowledgeStore({ root: join(mkdtempSync(join(tmpdir(), 'dsh-ks-bench-')), 'kb'), redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  const noop = () => () => {}
  const ctx = {
    knowledge: store,
    logger: () => ({ info() {}, warn() {}, error() {}, debug() {} }),
    on: (name: string, fn: typeof handler) => {
      if (name === 'session/event') handler = fn
    },
    effect: noop,
  }
  apply(ctx, config)
  return handler!
}

const turnEvents = (turn: number) => [
  { type: 'turn/start', seq: 1, time: Date.now(), data: { turn } },
  { type: 'user/message', seq: 2, time: Date.now(), data: { id: 'm', role: 'user', content: [{ type: 'text', text: 'Why does the build fail with ERR_PNPM_EACCES?' }], source: { kind: 'user' } } },
  { type: 'assistant/message', seq: 3, time: Date.now(), data: { turn, step: 0, message: { content: [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"pnpm install"}' }] } } },
  { type: 'tool/call', seq: 4, time: Date.now(), data: { turn, step: 0, callId: 'c1', name: 'bash', arguments: '{"command":"pnpm install"}' } },
  {
    type: 'tool/result',
    seq: 5,
    time: Date.now(),
    data: { turn, step: 0, message: { content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'ERR_PNPM_EACCES' }], isError: true }] } },
  },
  { type: 'assistant/message', seq: 6, time: Date.now(), data: { turn, step: 1, message: { content: [{ type: 'text', text: 'The cause was the store dir permissions; set store-dir.' }] } } },
  { type: 'turn/end', seq: 7, time: Date.now(), data: { turn, reason: { kind: 'completed' } } },
]

function timeListener(handler: (s: unknown, e: unknown) => void, rounds: number) {
  // A subagent session: the listener does exactly the same work, and the queued turns are then skipped cheaply.
  const session = { id: 'session-bench', header: { cwd: '/ws', origin: 'subagent' } }
  const samples: number[] = []
  for (let turn = 1; turn <= rounds; turn++) {
    for (const event of turnEvents(turn)) {
      const t0 = process.hrtime.bigint()
      handler(session, event)
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  return samples
}

const ROUNDS = 20_000
const captureHandler = listenerOf(capture.apply, capture.Config({}))
const baseline = (_s: unknown, _e: unknown) => {}
timeListener(baseline, 2000)
timeListener(captureHandler, 2000) // warm-up
const base = timeListener(baseline, ROUNDS)
const cap = timeListener(captureHandler, ROUNDS)
console.log(
  `listener, ${ROUNDS * 7} events: median ${median(cap).toFixed(5)} ms, p99 ${p99(cap).toFixed(5)} ms` +
    ` | no-op listener median ${median(base).toFixed(5)} ms → ratio ${(median(cap) / median(base)).toFixed(2)}×  (target: median < 0.1 ms)`,
)

// ---------------------------------------------------------------- 2. whole turns in the real loop
const answer = 'The cause was the pnpm store: ERR_PNPM_EACCES because /root/.local/share/pnpm belonged to another user; set store-dir=/tmp/store in .npmrc.'
async function turns(withCapture: boolean, n: number) {
  const kb = join(mkdtempSync(join(tmpdir(), 'dsh-ks-bench-')), 'kb')
  const rows = withCapture
    ? [
        [knowledge, { root: kb }],
        [capture, {}],
      ]
    : [[knowledge, { root: kb }]]
  const loop = await createLoop(byPrompt({ turn: [{ text: answer }] }), rows as never)
  const t0 = performance.now()
  for (let k = 0; k < n; k++) await loop.ask(`turn ${k}: why does pnpm install fail?`, { session: 'session-bench0000-0000-4000-8000-000000000001', cwd: '/ws' })
  const elapsed = performance.now() - t0
  await loop.dispose()
  return elapsed / n
}
const N = 300
await turns(false, 30)
await turns(true, 30) // warm-up
const without = await turns(false, N)
const withCap = await turns(true, N)
console.log(`agent loop, ${N} turns: ${withCap.toFixed(3)} ms/turn with capture vs ${without.toFixed(3)} ms/turn without → ratio ${(withCap / without).toFixed(2)}×`)
