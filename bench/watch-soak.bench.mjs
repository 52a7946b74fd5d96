/**
 * `dsh-knowledge watch` left running while another process writes: its RSS after each block of rounds, and the
 * slope per 1,000 rounds, against its RSS once ready (a baseline measured in the same run). The watch indexes every
 * round the other process writes (the watcher's events), as a week of a team's captures would make it.
 *
 *   node bench/watch-soak.bench.mjs [rounds=10000] [--every N] [--rewrite]   (after `pnpm run build`: it runs lib/cli/bin.js)
 * `--rewrite`: the rounds written are the first 2,000 again, each with a new text (the base does not grow, so any
 * slope is the watch's own; without it the base grows, and so do the index's tables with it).
 * A temporary root with 2,000 rounds first; each block is followed by 3 s for the watch to catch up. Printed, not asserted.
 * @module dsh-knowledge-sync/bench/watch-soak
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const lib = join(dirname(dirname(fileURLToPath(import.meta.url))), 'lib')
const { values, positionals } = parseArgs({ allowPositionals: true, options: { every: { type: 'string' }, rewrite: { type: 'boolean' } } })
const rounds = Number(positionals[0] ?? 10_000)
const every = Number(values.every ?? 1000)
const { KnowledgeStore } = await import(join(lib, 'knowledge/store.js'))
const { createRedactor } = await import(join(lib, 'redact/redactor.js'))

const base = mkdtempSync(join(tmpdir(), 'dsh-ks-watch-soak-'))
const root = join(base, 'kb')
mkdirSync(root)
const writer = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await writer.start()
const write = (k, pass = 0) =>
  writer.write({
    kind: 'raw',
    title: `Round ${k} about the deploy`,
    cwd: '/ws/app',
    session: `a1b2c3d4-0000-4000-8000-${String(Math.floor(k / 50)).padStart(12, '0')}`,
    turn: (k % 50) + 1,
    sections: [
      { heading: 'Question', text: `Why does job ${k} fail with word${k % 977}${pass ? ` (pass ${pass})` : ''}?` },
      { heading: 'Answer', text: `Because of thing${k % 313} in the retry path. ${'The runner retries the step. '.repeat(12)}` },
    ],
  })
for (let k = 0; k < 2000; k++) await write(k)

const watch = spawn(process.execPath, [join(lib, 'cli/bin.js'), 'watch', '--root', root, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] })
await new Promise((resolve) => createInterface({ input: watch.stdout }).once('line', resolve))
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${watch.pid}/status`, 'utf8'))[1]) / 1024
const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
await settle(8000) // its warm-up (a few seconds of CPU after it is ready)
const start = rss()
console.log(`dsh-knowledge watch, 2,000 rounds, ready and warmed: RSS ${start.toFixed(1)} MB`)
const samples = []
for (let k = 0; k < rounds; k++) {
  await (values.rewrite ? write(k % 2000, 1 + Math.floor(k / 2000)) : write(2000 + k))
  if ((k + 1) % every === 0) {
    await settle(3000)
    samples.push([k + 1, rss()])
    console.log(`${String(k + 1).padStart(7)} rounds ${values.rewrite ? 'rewritten' : 'written'} beside it: RSS ${samples.at(-1)[1].toFixed(1)} MB (×${(samples.at(-1)[1] / start).toFixed(2)})`)
  }
}
// Least-squares slope over the second half: what is left once the index's own pages are in.
const half = samples.slice(Math.floor(samples.length / 2))
const mx = half.reduce((a, [x]) => a + x, 0) / half.length
const my = half.reduce((a, [, y]) => a + y, 0) / half.length
const slope = half.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / half.reduce((a, [x]) => a + (x - mx) ** 2, 0)
console.log(`slope over the second half: ${(slope * 1000).toFixed(2)} MB per 1,000 rounds; max ${Math.max(...samples.map(([, y]) => y)).toFixed(1)} MB`)
watch.kill('SIGINT')
await new Promise((resolve) => watch.once('exit', resolve))
await writer.close()
rmSync(base, { recursive: true, force: true })
