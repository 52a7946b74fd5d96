/**
 * Redaction throughput on realistic mixed text (code, logs, prose, JSON tool arguments, .env and YAML snippets,
 * with the labelled corpus's secrets and hard negatives sprinkled in) at 1 MB and 10 MB. Measures, in ms per MB:
 * (a) the full redactor (`redact`: own rules + time-bounded secretlint backstop), (b) the own rules alone
 * (`redactSync`), (c) secretlint alone (`lintSource` with the recommended preset over the whole text, and the
 * chunked backstop as the redactor runs it), and (d) a baseline: one trivial regex scan over the same text.
 * Prints each as a ratio against the baseline measured in the same run.
 * Then the crafted inputs (test/fixtures/redact-adversarial.ts): each family's repeating unit at 1 MB through the own
 * rules, median and max of 5 runs against the 250 ms/MB bound; the longest event-loop stall inside `redact()` on
 * 10 MB (p99/max of `monitorEventLoopDelay`); and user patterns on the linear-time engine against JavaScript's
 * backtracking RegExp on the same catastrophic pattern.
 * Run: `cd /work/main && source scripts/env.sh && node bench/redact.bench.mjs`
 * @module dsh-knowledge-sync/bench/redact.bench
 */
import { build } from 'esbuild'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { lintSource } from '@secretlint/core'
import { rules as recommendRules } from '@secretlint/secretlint-rule-preset-recommend'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'bench', '.data')
mkdirSync(out, { recursive: true })
// Bundle the TypeScript engine and corpus for plain node (dependencies stay external).
await build({ entryPoints: [join(root, 'src/redact/redactor.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(out, 'redact.mjs'), packages: 'external', logLevel: 'warning' })
await build({ entryPoints: [join(root, 'test/fixtures/redact-corpus.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(out, 'redact-corpus.mjs'), logLevel: 'warning' })
const { createRedactor, DEFAULT_MASK } = await import(join(out, 'redact.mjs'))
const { buildCorpus } = await import(join(out, 'redact-corpus.mjs'))
await build({ entryPoints: [join(root, 'test/fixtures/redact-adversarial.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(out, 'redact-adversarial.mjs'), logLevel: 'warning' })
const { ADVERSARIAL } = await import(join(out, 'redact-adversarial.mjs'))

const FILLER = [
  'INFO  2024-05-01T10:00:00Z http: GET /api/v1/orders?page=3 200 12ms user=alice@example.org request_id=5f0c2d0e-8d1b-4c39-9a57-2b6f1f0d9e41\n',
  'export function parseConfig(raw: string): Config {\n  const doc = YAML.parse(raw) as Partial<Config>\n  return { ...DEFAULTS, ...doc, token: doc.token ?? process.env.API_TOKEN }\n}\n',
  'The build failed because the cache key changed after the lockfile update; rerun with --no-cache to confirm the password prompt is gone.\n',
  JSON.stringify({ command: 'git log --oneline -n 5 && npm test -- --reporter=dot', cwd: '/home/dev/project', timeout: 120000 }) + '\n',
  'services:\n  api:\n    image: node:22\n    environment:\n      - NODE_ENV=production\n      - LOG_LEVEL=info\n    ports:\n      - "8080:8080"\n',
  '- a3f9c21 fix(auth): refresh token before expiry (#412)\n- 9be07d4 chore(deps): bump yaml from 2.9.0 to 2.9.1\n',
  '| key | value |\n|-----|-------|\n| retries | 3 |\n| backoff | 250ms |\n',
  'def handler(event, context):\n    body = json.loads(event["body"])\n    return {"statusCode": 200, "body": json.dumps({"ok": True})}\n',
]

/** Realistic mixed text of `bytes` characters; roughly one corpus item per 2 KB. */
function mixedText(bytes, corpus) {
  const items = [...corpus.positives.map((p) => p.text), ...corpus.negatives.map((n) => n.text)]
  const parts = []
  let size = 0
  let i = 0
  let k = 0
  while (size < bytes) {
    // Every 12th piece is the next corpus item (7919 is prime, so the walk visits every item).
    const piece = i % 12 === 11 ? items[(k++ * 7919) % items.length] + '\n' : FILLER[i % FILLER.length]
    parts.push(piece)
    size += piece.length
    i++
  }
  return parts.join('').slice(0, bytes)
}

async function samplesOf(fn, runs) {
  await fn()
  const samples = []
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  return samples.sort((a, b) => a - b)
}

async function time(fn, runs) {
  await fn() // warm-up
  const samples = []
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]
}

const config = {
  rules: recommendRules.filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments').map((rule) => ({ id: rule.meta.id, rule, options: {} })),
}
const corpus = buildCorpus()
const full = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
let backstopMs = 0
const probe = createRedactor(
  { enabled: true, mask: DEFAULT_MASK, patterns: [] },
  {
    onBackstop: (r) => {
      backstopMs = r.ms
    },
  },
)

console.log('redaction throughput (median ms per MB; ratio = cost / one trivial regex scan of the same text)')
for (const mb of [1, 10]) {
  const text = mixedText(mb * 1024 * 1024, corpus)
  const runs = mb === 1 ? 7 : 3
  const baseline = await time(() => {
    const re = /password/g
    let c = 0
    while (re.exec(text)) c++
    return c
  }, runs)
  const fullMs = await time(() => full.redact(text), runs)
  const ownMs = await time(() => full.redactSync(text), runs)
  const slMs = await time(() => lintSource({ source: { content: text, filePath: 'bench.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } }), runs)
  await probe.redact(text)
  const result = full.redactSync(text)
  const perMb = (ms) => (ms / mb).toFixed(1).padStart(7)
  const ratio = (ms) => (ms / baseline).toFixed(1).padStart(6) + 'x'
  console.log(`\n${mb} MB mixed text: ${result.count} values masked in ${Object.keys(result.families).length} families`)
  console.log(`  baseline (one /password/g scan)     ${perMb(baseline)} ms/MB  ${ratio(baseline)}`)
  console.log(`  (a) full redactor  redact()         ${perMb(fullMs)} ms/MB  ${ratio(fullMs)}`)
  console.log(`  (b) own rules      redactSync()     ${perMb(ownMs)} ms/MB  ${ratio(ownMs)}`)
  console.log(`  (c) secretlint     lintSource()     ${perMb(slMs)} ms/MB  ${ratio(slMs)}`)
  console.log(`      secretlint as the chunked backstop inside (a): ${perMb(backstopMs)} ms/MB`)
}

// --- crafted inputs: every family's repeating unit at 1 MB, own rules (the part that must be linear) ---------------
const LIMIT = 250
const MB = 1024 * 1024
console.log(`\ncrafted inputs, 1 MB each, own rules (redactSync), 5 runs: median / max ms per MB; bound ${LIMIT} ms/MB`)
const fails = []
const medians = []
for (const [name, unit] of Object.entries(ADVERSARIAL)) {
  const text = unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB)
  const base = await samplesOf(() => {
    const re = /password/g
    let c = 0
    while (re.exec(text)) c++
    return c
  }, 5)
  const s = await samplesOf(() => full.redactSync(text), 5)
  const med = s[2]
  medians.push(med)
  if (med > LIMIT) fails.push(name)
  console.log(
    `  ${name.padEnd(28)} ${med.toFixed(0).padStart(5)} / ${s[4].toFixed(0).padStart(5)} ms/MB  ${(med / Math.max(base[2], 0.05)).toFixed(0).padStart(6)}x baseline  ${med > LIMIT ? 'OVER' : 'ok'}`,
  )
}
medians.sort((a, b) => a - b)
console.log(
  `  all families: p50 ${medians[Math.floor(medians.length / 2)].toFixed(0)}, p99 ${medians[Math.min(medians.length - 1, Math.floor(medians.length * 0.99))].toFixed(0)}, max ${medians[medians.length - 1].toFixed(0)} ms/MB; over the bound: ${fails.length ? fails.join(', ') : 'none'}`,
)

// --- the same crafted inputs on another engine version, in this run (BASE=<dir with src/redact/redactor.ts>) -------
if (process.env.BASE) {
  await build({
    entryPoints: [join(process.env.BASE, 'src/redact/redactor.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(out, 'base-redact.mjs'),
    packages: 'external',
    nodePaths: [join(root, 'node_modules')],
    logLevel: 'warning',
  })
  const base = (await import(join(out, 'base-redact.mjs'))).createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
  const KB64 = 64 * 1024
  console.log(`\ncrafted inputs at 64 KiB (the old engine is quadratic on some), ms per MB: base vs this engine, same run`)
  for (const [name, unit] of Object.entries(ADVERSARIAL)) {
    const text = unit.repeat(Math.ceil(KB64 / unit.length)).slice(0, KB64)
    const b = await samplesOf(() => base.redactSync(text), 3)
    const o = await samplesOf(() => full.redactSync(text), 3)
    console.log(`  ${name.padEnd(28)} base ${(b[1] * 16).toFixed(0).padStart(7)}   now ${(o[1] * 16).toFixed(0).padStart(5)}   ${(b[1] / o[1]).toFixed(1).padStart(6)}x faster`)
  }
  const text = mixedText(MB, corpus)
  const b = await samplesOf(() => base.redactSync(text), 5)
  const o = await samplesOf(() => full.redactSync(text), 5)
  console.log(`  1 MB mixed text (own rules): base median ${b[2].toFixed(0)} ms, now ${o[2].toFixed(0)} ms (${(o[2] / b[2]).toFixed(2)}x the base: the new rules' cost)`)
}

// --- event loop: the longest stall while redact() works through 10 MB -----------------------------------------------
{
  const text = mixedText(10 * MB, corpus)
  const h = monitorEventLoopDelay({ resolution: 5 })
  h.enable()
  const t0 = performance.now()
  await full.redact(text)
  const total = performance.now() - t0
  h.disable()
  console.log(
    `\nevent loop during redact() of 10 MB mixed text (${total.toFixed(0)} ms in all): stall p50 ${(h.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms`,
  )
}

// --- user patterns: linear-time engine vs JavaScript's backtracking RegExp ----------------------------------------
{
  const pat = '(a+)+$'
  const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [pat] })
  console.log(`\nuser pattern ${pat} (RE2JS vs JavaScript RegExp):`)
  for (const n of [20, 22, 24]) {
    const text = 'a'.repeat(n) + '!'
    let t0 = performance.now()
    new RegExp(pat).test(text)
    const js = performance.now() - t0
    t0 = performance.now()
    r.redactSync(text)
    const ours = performance.now() - t0
    console.log(`  ${n} a's + '!': RegExp ${js.toFixed(1).padStart(8)} ms (doubles per a; 34 a's ≈ ${((js * 2 ** (34 - n)) / 3.6e6).toFixed(1)} h)   ours ${ours.toFixed(2)} ms`)
  }
  const big = 'a'.repeat(MB) + '!'
  const s = await samplesOf(() => r.redact(big), 3)
  console.log(`  1 MB of a's + '!': ours ${s[1].toFixed(0)} ms (median of 3)`)
}

// --- Propagation (issue 18): every masked value masked wherever else it appears, as one extra pass (an Aho-Corasick
// automaton over all values and their encodings, one scan). Measured against plain redaction in the same run; the
// backstop is off in both so the line isolates the pass. `worst` repeats every masked value throughout the text.
await build({ entryPoints: [join(root, 'src/redact/propagate.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(out, 'propagate.mjs'), packages: 'external', logLevel: 'warning' })
const { ValueMatcher } = await import(join(out, 'propagate.mjs'))
async function timeAll(fn, runs) {
  await fn()
  const samples = []
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  return { median: samples[Math.floor(samples.length / 2)], max: samples[samples.length - 1] }
}
const plain = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { secretlint: false, propagate: false })
const withPropagation = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { secretlint: false })
console.log('\npropagation (median / max ms per MB; ratio = with propagation / plain redaction, same text, same run)')
const perMbProp = {}
for (const mb of [1, 10]) {
  const base = mixedText(mb * 1024 * 1024, corpus)
  const values = withPropagation.redactSync(base).values ?? []
  // Worst case for the pass: every masked value appears again, bare, every ~2 KB.
  const extra = values.map((v) => v.value).filter((v) => v.length < 200)
  const parts = []
  for (let i = 0, k = 0; i < base.length; i += 2048, k++) parts.push(base.slice(i, i + 2048), ' ', extra[k % Math.max(extra.length, 1)] ?? '', ' ')
  const worst = parts.join('')
  const runs = mb === 1 ? 7 : 3
  for (const [name, text] of [
    ['mixed', base],
    ['worst', worst],
  ]) {
    const p = await timeAll(() => plain.redactSync(text), runs)
    const w = await timeAll(() => withPropagation.redactSync(text), runs)
    const matcher = new ValueMatcher(withPropagation.redactSync(text).values ?? [], DEFAULT_MASK)
    const pass = await timeAll(() => matcher.spans(text), runs)
    const size = text.length / (1024 * 1024)
    const f = (t) => `${(t.median / size).toFixed(1).padStart(7)} / ${(t.max / size).toFixed(1).padStart(7)}`
    const masked = withPropagation.redactSync(text).count - plain.redactSync(text).count
    console.log(
      `  ${mb} MB ${name.padEnd(5)} plain redactSync ${f(p)}   with propagation ${f(w)}  ×${(w.median / p.median).toFixed(2)}   the pass alone ${f(pass)} (${matcher.size} values, +${masked} masked)`,
    )
    perMbProp[`${name}-${mb}`] = w.median / size
  }
}
console.log(`  growth 1 → 10 MB (ms/MB with propagation): mixed ×${(perMbProp['mixed-10'] / perMbProp['mixed-1']).toFixed(2)}, worst ×${(perMbProp['worst-10'] / perMbProp['worst-1']).toFixed(2)}`)
