/**
 * How long a writer waits for another process's write lock (issue 24: the soak's longest event-loop blocks): another
 * process holds the lock in short transactions (1–6 ms each, 0–6 ms apart, as a writer beside dsh does), while this
 * one begins a transaction every 10 ms and times the wait, alternately through SQLite's busy handler (the baseline:
 * `PRAGMA busy_timeout`, sleeps of 1, 2, 5 … 100 ms between tries) and through `beginImmediate` of
 * src/search/write-cycle.ts (a try every 0.25 ms). Prints p50/p90/p99/max of each and their ratio, per round.
 *
 *   node bench/lock-wait.bench.mjs [--rounds N] [--seconds S]      (after `pnpm run build`: it loads lib/)
 * @module dsh-knowledge-sync/bench/lock-wait
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' }, holder: { type: 'string' } } })

if (values.holder) {
  // The other process: short write transactions, one after another.
  const db = new DatabaseSync(values.holder)
  db.exec('PRAGMA busy_timeout = 10000')
  const end = Date.now() + Number(values.seconds ?? 4) * 1000 + 600
  const spin = (ms) => {
    const t = performance.now()
    while (performance.now() - t < ms);
  }
  while (Date.now() < end) {
    db.exec('BEGIN IMMEDIATE')
    db.prepare('INSERT INTO t VALUES (?)').run(Math.random())
    spin(1 + Math.random() * 5)
    db.exec('COMMIT')
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 6))
  }
  process.exit(0)
}

const { beginImmediate } = await import(pathToFileURL(join(import.meta.dirname, '../lib/search/write-cycle.js')).href)
const rounds = Number(values.rounds ?? 3)
const seconds = Number(values.seconds ?? 4)
const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-lock-wait-')), 'index.sqlite')
const db = new DatabaseSync(file)
db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; CREATE TABLE t (x)')
const begin = { sqlite: () => db.exec('BEGIN IMMEDIATE'), polling: () => beginImmediate(db, 10_000) }
const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]
const f = (ms) => `${ms.toFixed(1)} ms`.padStart(9)

async function measure(kind) {
  const other = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', import.meta.filename, '--holder', file, '--seconds', String(seconds)], { stdio: 'inherit' })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const waits = []
  const end = Date.now() + seconds * 1000
  while (Date.now() < end) {
    const t = performance.now()
    begin[kind]()
    waits.push(performance.now() - t)
    db.prepare('INSERT INTO t VALUES (?)').run(1)
    db.exec('COMMIT')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await new Promise((resolve) => other.on('exit', resolve))
  return waits.sort((a, b) => a - b)
}

console.log(`waits for the write lock beside another process's short transactions, ${seconds} s per arm, ${rounds} rounds`)
for (let round = 1; round <= rounds; round++) {
  const base = await measure('sqlite')
  const polling = await measure('polling')
  const row = (name, w) => `${name.padEnd(22)} n ${String(w.length).padStart(4)}  p50 ${f(q(w, 0.5))}  p90 ${f(q(w, 0.9))}  p99 ${f(q(w, 0.99))}  max ${f(w.at(-1))}`
  console.log(`round ${round}`)
  console.log(row("SQLite's busy handler", base))
  console.log(row('beginImmediate', polling))
  console.log(`ratio polling/handler: p99 ${(q(polling, 0.99) / q(base, 0.99)).toFixed(2)}, max ${(polling.at(-1) / base.at(-1)).toFixed(2)}`)
}
