/**
 * The wiki's costs, measured with the built store (lib/: run `node scripts/build.mjs` first):
 *
 *   node bench/wiki.bench.mjs            # everything below, 10000 rounds
 *   node bench/wiki.bench.mjs 1000       # a smaller base
 *
 * 1. Tokens the model sees: every wiki tool's definition (name, description, parameters: what dsh sends) and the
 *    prompt section, at dsh-token-meter's density (4 characters a token, + 4 per block).
 * 2. `knowledge_index` output at 30, 300 and 3,000 pages against its budget (the search budget, 12,000 characters).
 * 3. Create and edit of a page in a base of N generated rounds (bench/.data/, gitignored), p50/p99/max, against a
 *    note written into the same store in the same run (the baseline: the store's one write without the wiki).
 *    Writes alternate in batches of 25, so drift of the shared machine hits all three alike.
 * @module dsh-knowledge-sync/bench/wiki
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeRounds } from './generate-rounds.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const lib = (p) => import(pathToFileURL(join(here, '../lib', p)).href)
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')
const { Wiki } = await lib('knowledge/wiki/wiki.js')
const { registerWikiTools } = await lib('wiki/tools.js')
const { wikiPromptText } = await lib('wiki/prompt.js')
const { OUTPUT_BUDGET } = await lib('tool-output.js')
const { READ_PARAMETERS } = await lib('recall/read-tool.js')
const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })

const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 1)} ms`
const tokens = (text) => Math.ceil(text.length / 4) + 4
const open = (root) => new KnowledgeStore({ root, redactor, watch: false })

// ---------------------------------------------------------------- 1. tokens
{
  const store = open(mkdtempSync(join(tmpdir(), 'wiki-bench-tok-')))
  const wiki = new Wiki(store)
  const defs = []
  registerWikiTools({ tools: { register: (def) => defs.push(def) } }, wiki, () => ({ actor: 'tool', scope: undefined }))
  console.log('## Tokens the model sees (dsh-token-meter density: 4 characters a token)')
  let total = 0
  for (const def of defs) {
    const sent = JSON.stringify({ name: def.name, description: def.description, parameters: def.parameters })
    total += tokens(sent)
    console.log(`${def.name.padEnd(18)} description ${String(tokens(def.description)).padStart(4)} tokens; whole definition ${String(tokens(sent)).padStart(4)} tokens`)
  }
  console.log(`all five tools        ${total} tokens`)
  const prompt = wikiPromptText(wiki.types)
  console.log(`prompt section        ${tokens(prompt)} tokens (${prompt.length} characters), byte-stable`)
  console.log(`knowledge_read's id description grew to ${tokens(READ_PARAMETERS.properties.id.description)} tokens`)
  wiki.close()
  await store.close()
}

// ---------------------------------------------------------------- 2. index size
console.log('\n## knowledge_index output (budget %d characters)', OUTPUT_BUDGET.knowledge_index)
{
  const root = mkdtempSync(join(tmpdir(), 'wiki-bench-index-'))
  const store = open(root)
  const wiki = new Wiki(store)
  const types = ['concept', 'entity', 'summary', 'synthesis']
  let made = 0
  for (const target of [30, 300, 3000]) {
    while (made < target) {
      const batch = []
      for (let k = 0; k < 20 && made < target; k++, made++) {
        const type = types[made % types.length]
        const fields = type === 'entity' ? [{ name: 'kind', value: 'component' }] : type === 'concept' ? [{ name: 'aliases', value: [`alias ${made}`] }] : []
        batch.push({
          type,
          slug: `page-${made}`,
          title: `Page ${made} about subsystem ${made % 97}`,
          content: `What page ${made} explains about the cache key of service ${made % 31}. More text follows here.`,
          fields,
        })
      }
      await wiki.create(batch, { actor: 'bench', scope: undefined })
    }
    const t = performance.now()
    const text = await wiki.indexText(undefined, OUTPUT_BUDGET.knowledge_index)
    const took = performance.now() - t
    const section = await wiki.indexText(undefined, OUTPUT_BUDGET.knowledge_index, { section: 'Concepts' })
    const listed = text.split('\n').filter((l) => l.startsWith('- ') && l.includes(' — ')).length
    console.log(
      `${String(target).padStart(5)} pages: ${String(text.length).padStart(6)} characters (${tokens(text)} tokens), ${listed} lines listed${text.includes('Not listed here') ? ', sections beyond the budget summarised' : ''}; ` +
        `section "Concepts" page: ${section.length} characters; built in ${ms(took)}`,
    )
  }
  wiki.close()
  await store.close()
  rmSync(root, { recursive: true, force: true })
}

// ---------------------------------------------------------------- 3. write times
const size = Number(process.argv[2] ?? 10000)
console.log(`\n## create / edit at ${size} rounds (+ the pages written), against a note write in the same store`)
{
  const dir = join(here, '.data', `wiki-${size}`)
  writeRounds(dir, size, { fresh: true })
  const store = open(dir)
  await store.start()
  const wiki = new Wiki(store)
  const caller = { actor: 'bench', scope: undefined }
  const times = { create: [], edit: [], note: [] }
  let n = 0
  const created = []
  for (let round = 0; round < 9; round++) {
    const warm = round === 0
    for (let k = 0; k < 25; k++, n++) {
      let t = performance.now()
      const [page] = await wiki.create(
        [{ type: 'concept', slug: `bench-${n}`, title: `Bench concept ${n}`, content: `Concept ${n} links [the first one](concept/bench-0). Body text ${n}.`, fields: [] }],
        caller,
      )
      if (!warm) times.create.push(performance.now() - t)
      created.push(page.id)
      t = performance.now()
      await wiki.edit(page.id, `Body text ${n}.`, `Body text ${n}, edited.`, [], caller)
      if (!warm) times.edit.push(performance.now() - t)
      t = performance.now()
      await store.write({ kind: 'note', title: `Bench note ${n}`, cwd: '/bench', session: 'session-bench', suffix: `n${n + 1}`, sections: [{ heading: 'Finding', text: `Note ${n}.` }] })
      if (!warm) times.note.push(performance.now() - t)
    }
  }
  const base = summary(times.note)
  for (const [name, xs] of Object.entries(times)) {
    const s = summary(xs)
    console.log(`${name.padEnd(7)} n=${xs.length} p50 ${ms(s.p50)} p99 ${ms(s.p99)} max ${ms(s.max)}  (p50 ×${(s.p50 / base.p50).toFixed(2)} of a note write)`)
  }
  wiki.close()
  await store.close()
}
