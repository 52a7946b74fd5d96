/**
 * Revision tracking cost: the store's start-up scan and its writes with revisions against the same store with the
 * revision log switched off (its `observe`/`observeMany` stubbed), measured in the same run over generated rounds
 * (bench/.data/, gitignored). Uses the built store (lib/: run `node scripts/build.mjs` first).
 *
 *   node bench/revisions.bench.mjs            # 1000 and 10000 documents
 *   node bench/revisions.bench.mjs 100000     # one size
 *
 * Per size: start with no log yet (first start: hashes every file, appends one line each), restart (log present,
 * nothing new: hash + fold), the baseline start without revisions; 400 writes with and 400 without, alternating in batches of 100; the log's size; the
 * cost of `versionOf` (a throttled tail read of the log). Medians of 5 starts in rotating order after a warm-up; p50/p99/max for writes.
 * @module dsh-knowledge-sync/bench/revisions
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const { KnowledgeStore } = await import(pathToFileURL(join(here, '../lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(here, '../lib/redact/redactor.js')).href)
const { contentHash, Revisions } = await import(pathToFileURL(join(here, '../lib/knowledge/logs/revisions.js')).href)
const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })

const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const median = (xs) => summary(xs).p50
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`

function open(dir, revisions) {
  const store = new KnowledgeStore({ root: dir, redactor, watch: false })
  if (!revisions) {
    store.revisions.observeMany = (pairs) => pairs.map(() => 0)
    store.revisions.observe = () => 0
  }
  return store
}

async function timeStart(dir, revisions, fresh) {
  if (fresh) rmSync(join(dir, '.knowledge'), { recursive: true, force: true })
  const store = open(dir, revisions)
  const t = performance.now()
  await store.start()
  const took = performance.now() - t
  await store.close()
  return took
}

let batch = 0
async function writes(dir, revisions, n) {
  batch++
  const store = open(dir, revisions)
  await store.start()
  const times = []
  for (let k = 0; k < n; k++) {
    const t = performance.now()
    await store.write({
      kind: 'raw',
      title: `Bench write ${k}`,
      cwd: '/bench',
      session: `session-be${revisions ? '1' : '0'}c${String(batch).padStart(4, '0')}-0000-4000-8000-000000000000`,
      turn: k + 1,
      sections: [
        { heading: 'Question', text: 'Why?' },
        { heading: 'Answer', text: `Because of reason ${k}, which the cache key did not include.` },
      ],
    })
    times.push(performance.now() - t)
  }
  // versionOf: a tail read of the log at most every 20 ms; here every call (the throttle reset) for the worst case.
  const reads = []
  for (let k = 0; k < 1000; k++) {
    store.revisions.refreshed = 0
    const t = performance.now()
    store.versionOf('be1c0000-t1')
    reads.push(performance.now() - t)
  }
  await store.close()
  return { times, reads }
}

const sizes = process.argv[2] ? [Number(process.argv[2])] : [1000, 10000]
for (const size of sizes) {
  const dir = join(here, '.data', `revisions-${size}`)
  const paths = writeRounds(dir, size, { fresh: true }) // fresh: the write runs below add documents
  // The revision work alone, without the scan around it: hash every text, record N new documents, fold the log.
  const texts = paths.map((p) => readFileSync(join(dir, p), 'utf8'))
  let t = performance.now()
  const pairs = texts.map((text, k) => [`doc${k}-t1`, contentHash(text)])
  const hashMs = performance.now() - t
  const scratch = mkdtempSync(join(tmpdir(), 'rev-bench-'))
  t = performance.now()
  new Revisions(scratch).observeMany(pairs)
  const recordMs = performance.now() - t
  t = performance.now()
  const again = new Revisions(scratch)
  again.observeMany(pairs)
  const foldMs = performance.now() - t
  rmSync(scratch, { recursive: true, force: true })
  rmSync(join(dir, '.knowledge'), { recursive: true, force: true })
  const first = [],
    restart = [],
    baseline = []
  await timeStart(dir, false, true) // warm-up: the page cache and the JIT, for every variant alike
  const runs = [
    () => timeStart(dir, false, true).then((t) => baseline.push(t)),
    () => timeStart(dir, true, true).then((t) => first.push(t)),
    () => timeStart(dir, true, false).then((t) => restart.push(t)),
  ]
  for (let k = 0; k < 5; k++) for (let j = 0; j < runs.length; j++) await runs[(j + k) % runs.length]() // rotate the order
  await timeStart(dir, true, true)
  const log = statSync(join(dir, '.knowledge', 'revisions.log')).size
  await writes(dir, true, 50) // warm-up
  const pooled = { false: { times: [], reads: [] }, true: { times: [], reads: [] } }
  for (let k = 0; k < 4; k++) {
    // alternate, so drift of the shared machine hits both alike
    const r = k % 2 === 0
    const got = await writes(dir, r, 100)
    pooled[r].times.push(...got.times)
    pooled[r].reads.push(...got.reads)
    const other = await writes(dir, !r, 100)
    pooled[!r].times.push(...other.times)
    pooled[!r].reads.push(...other.reads)
  }
  const without = { writes: summary(pooled.false.times) }
  const withRev = { writes: summary(pooled.true.times), versionOf: summary(pooled.true.reads) }
  const b = median(baseline)
  console.log(`\n${size} documents`)
  console.log(`  revision work alone: hash ${ms(hashMs)}, record ${size} new ${ms(recordMs)}, fold + check at restart ${ms(foldMs)}`)
  console.log(`  start, baseline (no revisions)   ${ms(b)}`)
  console.log(`  start, first (log written)        ${ms(median(first))}  ×${(median(first) / b).toFixed(2)}`)
  console.log(`  start, restart (log read)         ${ms(median(restart))}  ×${(median(restart) / b).toFixed(2)}`)
  console.log(`  revision log                      ${(log / 1024).toFixed(0)} KiB (${(log / size).toFixed(0)} bytes a document)`)
  console.log(`  write p50/p99/max, baseline       ${ms(without.writes.p50)} / ${ms(without.writes.p99)} / ${ms(without.writes.max)}`)
  console.log(`  write p50/p99/max, revisions      ${ms(withRev.writes.p50)} / ${ms(withRev.writes.p99)} / ${ms(withRev.writes.max)}  ×${(withRev.writes.p50 / without.writes.p50).toFixed(2)} at p50`)
  console.log(`  versionOf with a tail read p50/p99/max  ${ms(withRev.versionOf.p50)} / ${ms(withRev.versionOf.p99)} / ${ms(withRev.versionOf.max)}`)
}
