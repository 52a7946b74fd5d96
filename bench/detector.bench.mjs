/**
 * External benchmark: recall on trufflehog's detector pattern tests (texts and the secrets each must yield, written by
 * people who did not write this redactor), ours against secretlint's recommended preset (our backstop) side by side,
 * and the masks each makes on a real-code sample (files of installed packages: every mask there is a false positive
 * unless it is a real secret, and each one is listed for a look).
 *
 * Scoring: a want that is not verbatim in its text (trufflehog reports `id:secret` or `keysecret` pairs) is split into
 * the parts that are; its longest part is the secret (ids, users and hosts travel with it). A secret counts as
 * removed when no occurrence of it is left (`all`, what a document needs) and as recognised when at least one
 * occurrence was masked (`any`): the gap is what propagation of masked values (src/redact/propagate.ts) closes.
 * Families group secrets by shape; the detectors with most misses are listed to show where rules are missing.
 *
 * Run: `node bench/detector.bench.mjs <path-to-trufflehog>` (see bench/detector-pairs.mjs for getting the copy);
 * without a path it reuses bench/.data/trufflehog-pairs.json from an earlier run.
 * @module dsh-knowledge-sync/bench/detector.bench
 */
import { build } from 'esbuild'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { lintSource } from '@secretlint/core'
import { rules as recommendRules } from '@secretlint/secretlint-rule-preset-recommend'
import { extractPairs, PINNED } from './detector-pairs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'bench', '.data')
mkdirSync(out, { recursive: true })
const cache = join(out, 'trufflehog-pairs.json')
let data
if (process.argv[2]) {
  data = extractPairs(process.argv[2], process.argv[3] ?? PINNED)
  writeFileSync(cache, JSON.stringify(data))
} else if (existsSync(cache)) {
  data = JSON.parse(readFileSync(cache, 'utf8'))
} else {
  console.error('usage: node bench/detector.bench.mjs <path-to-trufflehog> (a clone or git dir at ' + PINNED + ')')
  process.exit(2)
}

// REDACTOR=<path to another redactor.ts> measures another version (the README's "before" column).
await build({
  entryPoints: [process.env.REDACTOR ?? join(root, 'src/redact/redactor.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: join(out, 'redact.mjs'),
  packages: 'external',
  nodePaths: [join(root, 'node_modules')],
  logLevel: 'warning',
})
const { createRedactor, DEFAULT_MASK } = await import(join(out, 'redact.mjs'))
const ours = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
const config = {
  rules: recommendRules.filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments').map((rule) => ({ id: rule.meta.id, rule, options: {} })),
}

/** secretlint's preset as a redactor: every reported range masked. */
async function secretlint(text) {
  const result = await lintSource({ source: { content: text, filePath: 'input.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } })
  const ranges = result.messages.map((m) => m.range).sort((a, b) => a[0] - b[0])
  let s = ''
  let at = 0
  for (const [a, b] of ranges) {
    if (a < at) {
      at = Math.max(at, b)
      continue
    }
    s += text.slice(at, a) + DEFAULT_MASK
    at = b
  }
  return { text: s + text.slice(at), count: ranges.length }
}

/** The secret of one want: itself if verbatim in the text, else its longest part that is. Null: not scoreable. */
function secretOf(want, text) {
  if (text.includes(want)) return want
  const parts = want.split(/[:;|,\s]+/).filter((p) => p.length >= 4 && text.includes(p))
  if (parts.length) return parts.sort((a, b) => b.length - a.length)[0]
  // `keyid`: a concatenation of two substrings of the text.
  for (let k = want.length - 4; k >= 4; k--) {
    const a = want.slice(0, k),
      b = want.slice(k)
    if (text.includes(a) && text.includes(b)) return a.length >= b.length ? a : b
  }
  return null
}

/** Shape family of a secret. */
function family(s) {
  if (/^-----BEGIN|PRIVATE KEY/.test(s)) return 'private-key'
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return 'url/connection'
  if (/^eyJ[\w-]+\.[\w-]+\./.test(s)) return 'jwt'
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) return 'uuid-shaped'
  if (/^[A-Za-z][A-Za-z0-9]{1,9}[_-]/.test(s) && /[0-9]/.test(s) && s.length >= 20 && !/^[0-9a-f]+$/i.test(s.replace(/^[A-Za-z0-9]{1,10}[_-]/, '').slice(0, 8))) return 'prefixed'
  if (/^[0-9a-f]+$/i.test(s)) return 'hex'
  if (/^[A-Za-z0-9]+$/.test(s)) return 'alphanumeric'
  if (/^[A-Za-z0-9+/=_-]+$/.test(s)) return 'base64-like'
  return 'other'
}

const count = (hay, needle) => {
  let n = 0,
    i = -1
  while ((i = hay.indexOf(needle, i + 1)) !== -1) n++
  return n
}

const rows = new Map()
const perDetector = new Map()
const totals = { ours: { all: 0, any: 0 }, sl: { all: 0, any: 0 }, n: 0, texts: 0, unscoreable: 0 }
const t0 = performance.now()
for (const pair of data.pairs) {
  const secrets = [...new Set(pair.secrets.map((w) => secretOf(w, pair.text)))]
  totals.unscoreable += secrets.filter((s) => s === null).length
  const scored = secrets.filter((s) => s !== null)
  if (!scored.length) continue
  totals.texts++
  const a = await ours.redact(pair.text)
  const b = await secretlint(pair.text)
  for (const s of scored) {
    const fam = family(s)
    const row = rows.get(fam) ?? { n: 0, ours: { all: 0, any: 0 }, sl: { all: 0, any: 0 } }
    const before = count(pair.text, s)
    const judge = (out) => ({ all: !out.includes(s), any: count(out, s) < before })
    const ja = judge(a.text),
      jb = judge(b.text)
    row.n++
    totals.n++
    for (const [k, j] of [
      ['ours', ja],
      ['sl', jb],
    ]) {
      if (j.all) {
        row[k].all++
        totals[k].all++
      }
      if (j.any) {
        row[k].any++
        totals[k].any++
      }
    }
    rows.set(fam, row)
    const d = perDetector.get(pair.detector) ?? { n: 0, miss: 0, example: '' }
    d.n++
    if (!ja.any) {
      d.miss++
      d.example ||= pair.text.trim().slice(0, 160).replace(/\s+/g, ' ')
    }
    perDetector.set(pair.detector, d)
  }
}
const ms = performance.now() - t0
const pct = (x, n) => (n ? ((100 * x) / n).toFixed(1) : '-').padStart(6) + '%'
console.log(`trufflehog detector pattern tests @ ${data.commit.slice(0, 12)}: ${totals.texts} texts, ${totals.n} secrets (${totals.unscoreable} wants not locatable in their text, left out)`)
console.log(`recall: removed = no occurrence left; recognised = at least one occurrence masked (propagation closes the gap)`)
console.log(`${'family'.padEnd(16)} ${'secrets'.padStart(7)}   ours removed  recognised   secretlint removed  recognised`)
for (const [fam, r] of [...rows].sort((x, y) => y[1].n - x[1].n)) {
  console.log(`${fam.padEnd(16)} ${String(r.n).padStart(7)}   ${pct(r.ours.all, r.n)}     ${pct(r.ours.any, r.n)}        ${pct(r.sl.all, r.n)}     ${pct(r.sl.any, r.n)}`)
}
console.log(
  `${'overall'.padEnd(16)} ${String(totals.n).padStart(7)}   ${pct(totals.ours.all, totals.n)}     ${pct(totals.ours.any, totals.n)}        ${pct(totals.sl.all, totals.n)}     ${pct(totals.sl.any, totals.n)}`,
)
console.log(`(${(ms / 1000).toFixed(1)} s for both over all texts)`)
const worst = [...perDetector]
  .filter(([, d]) => d.miss)
  .sort((x, y) => y[1].miss - x[1].miss)
  .slice(0, Number(process.env.WORST ?? 15))
console.log(`\ndetectors with most unrecognised secrets (of ${[...perDetector].filter(([, d]) => d.miss).length} with any):`)
for (const [name, d] of worst) console.log(`  ${name.padEnd(22)} ${d.miss}/${d.n}  ${d.example}`)

// --- false positives on real code ---------------------------------------------------------------------------------
const SAMPLE_DIRS = [
  'node_modules/typescript/lib',
  'node_modules/yaml/dist',
  'node_modules/vitest/dist',
  'node_modules/@secretlint/core',
  'node_modules/esbuild/lib',
  'node_modules/re2js/build',
  'src',
  'test',
  'client',
  'pnpm-lock.yaml',
]
const files = []
const walk = (p) => {
  if (!existsSync(p)) return
  const st = statSync(p)
  if (st.isFile()) {
    if (/\.(?:[cm]?js|ts|tsx|d\.ts|json|ya?ml|md)$/.test(p) && st.size < 2_000_000 && !/redact-corpus|redact-adversarial|redact.*spec/.test(p)) files.push(p)
    return
  }
  for (const e of readdirSync(p).sort()) walk(join(p, e))
}
for (const d of SAMPLE_DIRS) walk(join(root, d))
let bytes = 0
const fp = { ours: 0, sl: 0 }
const seen = []
for (const f of files) {
  const text = readFileSync(f, 'utf8')
  bytes += text.length
  const a = await ours.redact(text).catch((e) => ({ text, count: 0, error: e.message }))
  if (a.error) console.log(`  ${f}: ${a.error}`)
  fp.ours += a.count
  if (a.count && seen.length < Number(process.env.SHOW ?? 12)) {
    for (let i = a.text.indexOf(DEFAULT_MASK), k = 0; i !== -1 && k < 3; i = a.text.indexOf(DEFAULT_MASK, i + 1), k++)
      seen.push(`${f.slice(root.length + 1)}: …${a.text.slice(Math.max(0, i - 60), i + 20).replace(/\s+/g, ' ')}…`)
  }
  fp.sl += (await secretlint(text)).count
}
console.log(`\nreal-code sample: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB (typescript/lib, yaml, vitest, secretlint, esbuild, re2js, this repo's src/test/client, the lockfile)`)
console.log(`  masks: ours ${fp.ours} (${(fp.ours / (bytes / 1e6)).toFixed(2)}/MB), secretlint ${fp.sl} (${(fp.sl / (bytes / 1e6)).toFixed(2)}/MB)`)
for (const s of seen) console.log('  ' + s)
