/**
 * What held the event loop: given a CPU profile (`node --cpu-prof`) and the blocks a run recorded (bench/soak.bench.mjs
 * --blocks FILE: when each hold of 25 ms or more ended, and how long it was), the functions the profile sampled during
 * the blocks, summed over all of them (inclusive: a function counts once per sample it is on the stack of), and the
 * same for the blocks of the last third of the run against the first third, so that what grew with the run stands out.
 *
 *   node --expose-gc --cpu-prof --cpu-prof-dir DIR bench/soak.bench.mjs --rounds 30000 --every 5000 --blocks blocks.json
 *   node bench/blocks.mjs DIR/<file>.cpuprofile blocks.json [top=25]
 * @module dsh-knowledge-sync/bench/blocks
 */
import { readFileSync } from 'node:fs'

const [profileFile, blocksFile, topArg] = process.argv.slice(2)
const top = Number(topArg ?? 25)
const profile = JSON.parse(readFileSync(profileFile, 'utf8'))
const blocks = JSON.parse(readFileSync(blocksFile, 'utf8'))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const name = (id) => {
  const f = nodes.get(id).callFrame
  return `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`
}
const frames = new Map()
const framesOf = (id) => {
  let out = frames.get(id)
  if (!out) {
    const seen = new Set()
    for (let x = id; x !== undefined; x = parent.get(x)) seen.add(name(x))
    out = [...seen]
    frames.set(id, out)
  }
  return out
}
// Sample times: profile.startTime plus the running sum of timeDeltas (µs, the monotonic clock).
const times = new Float64Array(profile.samples.length)
let t = profile.startTime
for (let i = 0; i < profile.samples.length; i++) times[i] = t += profile.timeDeltas[i]
const firstAt = (at) => {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (times[mid] < at) lo = mid + 1
    else hi = mid
  }
  return lo
}
const tally = (subset) => {
  const counts = new Map()
  let samples = 0
  for (const b of subset) {
    for (let i = firstAt(b.end - b.ms * 1000); i < times.length && times[i] <= b.end; i++) {
      samples++
      for (const f of framesOf(profile.samples[i])) counts.set(f, (counts.get(f) ?? 0) + 1)
    }
  }
  return { counts, samples }
}
const rounds = blocks.map((b) => b.rounds)
const last = Math.max(...rounds)
const thirds = [blocks.filter((b) => b.rounds <= last / 3), blocks.filter((b) => b.rounds > (2 * last) / 3)]
const all = tally(blocks)
const [early, late] = thirds.map(tally)
const held = (subset) => subset.reduce((s, b) => s + b.ms, 0)
console.log(
  `${blocks.length} blocks, ${(held(blocks) / 1000).toFixed(1)} s held; first third ${thirds[0].length} (${(held(thirds[0]) / 1000).toFixed(1)} s), last third ${thirds[1].length} (${(held(thirds[1]) / 1000).toFixed(1)} s)`,
)
console.log(`share of the blocks' samples: all | first third | last third`)
const skip = /^\((root|program|idle|garbage collector)\)/
const rows = [...all.counts]
  .filter(([f]) => !skip.test(f))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top)
const pct = (n, of) => (of ? `${((n / of) * 100).toFixed(1)}%` : '—').padStart(6)
for (const [f, n] of rows) console.log(`${pct(n, all.samples)} | ${pct(early.counts.get(f) ?? 0, early.samples)} | ${pct(late.counts.get(f) ?? 0, late.samples)}  ${f}`)
const gc = (c) => c.counts.get('(garbage collector) :0') ?? 0
console.log(`(garbage collector) ${pct(gc(all), all.samples)} | ${pct(gc(early), early.samples)} | ${pct(gc(late), late.samples)}`)
