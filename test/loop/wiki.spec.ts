/**
 * The wiki tools through the real dsh agent loop (in-process): pages created from templates, several at once (all
 * or none), links as ids in the model's text and relative paths on disk, edits by a unique fragment, rewrites that
 * keep the id and inbound links, the overview and the operation log, the generated index.md, the prompt section, and
 * plan mode refusing the write tools.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as note from '../../src/note/index.js'
import * as recall from '../../src/recall/index.js'
import * as wikiRow from '../../src/wiki/index.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { GENERATED_LINE } from '../../src/knowledge/wiki/catalogue.js'
import { byPrompt, createLoop, type Loop, type LoopRequest, type LoopScript, type Row } from '../harness/loop.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'

const SESSION = 'session-7a1b2c3d-1111-4222-8333-444455556666'
const GH_TOKEN = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-${name}-`))

async function boot(
  script: LoopScript,
  rows: (root: string) => Row[] = (root) => [
    [knowledge, { root }],
    [note, {}],
    [recall, {}],
    [wikiRow, {}],
  ],
) {
  const root = join(tmp('wiki'), 'kb')
  loop = await createLoop(script, rows(root))
  return { root, store: (loop.ctx as any).knowledge as KnowledgeStore }
}

function toolResults(request: LoopRequest): string[] {
  return (request.options.messages as any[]).flatMap((m) =>
    (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => (b.content ?? []).map((c: any) => c.text ?? '').join('') + (b.isError ? ' [isError]' : '')),
  )
}
const lastResult = () => toolResults(loop!.adapter.requests.at(-1)!).at(-1)!
/** One turn: the model calls `calls` (one step each), then answers. Returns every tool result, in order. */
async function turn(prompt: string, calls: Array<{ name: string; arguments: unknown }>, cwd = '/workspace'): Promise<string[]> {
  loop!.adapter.setScript(byPrompt({ [prompt]: [...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }] }))
  const before = loop!.adapter.requests.length
  await loop!.ask(prompt, { session: SESSION, cwd })
  const last = loop!.adapter.requests.at(-1)!
  expect(loop!.adapter.requests.length - before).toBe(calls.length + 1)
  return toolResults(last).slice(-calls.length)
}

const TIDES = {
  type: 'concept',
  slug: 'spring-tides',
  title: 'Spring tides',
  content: 'Tides of the largest range, at new and full moon. See [the gauge](entity/tide-gauge).',
  fields: [{ name: 'aliases', value: ['king tide'] }],
}
const GAUGE = {
  type: 'entity',
  slug: 'tide-gauge',
  title: 'Tide gauge',
  content: `The harbour's tide gauge, read with token ${GH_TOKEN}. It measures [spring tides](concept/spring-tides).`,
  fields: [{ name: 'kind', value: 'system' }],
}

describe('knowledge_create', () => {
  it("returns the type's template when no content is given, and writes nothing", async () => {
    const { root } = await boot(byPrompt({}, { text: 'ok' }))
    const [result] = await turn('template', [{ name: 'knowledge_create', arguments: { type: 'concept', slug: 'x', title: 'X' } }])
    expect(result).toContain('## Definition')
    expect(result).toContain('Fields: aliases (a list)')
    expect(allDocuments(root)).toEqual([])
  })

  it('creates pages that link each other in one call: type/slug ids, files by folder, paths on disk, ids to the model, redacted, ledgered', async () => {
    const { root, store } = await boot(byPrompt({}, { text: 'ok' }))
    const [created] = await turn('create two', [{ name: 'knowledge_create', arguments: { ...TIDES, also: [GAUGE] } }])
    expect(created).toMatch(/^Created concept\/spring-tides \(v:1, concepts\/spring-tides\.md\), entity\/tide-gauge \(v:1, entities\/tide-gauge\.md\) \(1 secret-like value\(s\) were masked\)/)
    const tides = readFileSync(join(root, 'concepts/spring-tides.md'), 'utf8')
    const gauge = readFileSync(join(root, 'entities/tide-gauge.md'), 'utf8')
    expect(tides).toContain('[the gauge](../entities/tide-gauge.md)')
    expect(gauge).toContain('[spring tides](../concepts/spring-tides.md)')
    expect(gauge).not.toContain(GH_TOKEN)
    const meta = parseDocument(gauge, 'entities/tide-gauge.md', 'x', 0).meta
    expect(meta).toMatchObject({ id: 'entity/tide-gauge', title: 'Tide gauge', kind: 'page', type: 'entity', entity_kind: 'system', redacted: 1 })
    expect(typeof meta.updated).toBe('string')
    expect(parseDocument(tides, 'concepts/spring-tides.md', 'x', 0).meta.aliases).toEqual(['king tide'])
    expect(ledgerEntries(root).filter((e: any) => e.type === 'page')).toMatchObject([
      { id: 'concept/spring-tides', op: 'create', actor: 'tool', version: 1 },
      { id: 'entity/tide-gauge', op: 'create', actor: 'tool', version: 1, redacted: 1 },
    ])
    const [read] = await turn('read it', [{ name: 'knowledge_read', arguments: { id: 'concept/spring-tides' } }])
    expect(read).toContain('[the gauge](entity/tide-gauge)')
    expect(read).toMatch(/Linked from[\s\S]*entity\/tide-gauge/)
    expect(store.linkedFrom('entity/tide-gauge')).toEqual(['concept/spring-tides'])
  })

  it('refuses the whole call when one page links to nothing, with the reason; nothing is written', async () => {
    const { root } = await boot(byPrompt({}, { text: 'ok' }))
    const broken = { ...GAUGE, content: 'Links [a ghost](concept/no-such-page).' }
    const [result] = await turn('create broken', [{ name: 'knowledge_create', arguments: { ...TIDES, content: 'Fine on its own.', also: [broken] } }])
    expect(result).toMatch(/refused: entity\/tide-gauge links to concept\/no-such-page, which names no document.*\[isError\]$/)
    expect(allDocuments(root)).toEqual([])
    expect(existsSync(join(root, 'concepts'))).toBe(false)
  })

  it('refuses a page that exists, a bad slug and an unknown type', async () => {
    await boot(byPrompt({}, { text: 'ok' }))
    await turn('first', [{ name: 'knowledge_create', arguments: { ...TIDES, content: 'One.' } }])
    const results = await turn('again', [
      { name: 'knowledge_create', arguments: { ...TIDES, content: 'Two.' } },
      { name: 'knowledge_create', arguments: { ...TIDES, slug: '../escape', content: 'x' } },
      { name: 'knowledge_create', arguments: { ...TIDES, type: 'gossip', content: 'x' } },
    ])
    expect(results[0]).toMatch(/concept\/spring-tides exists already; change it with knowledge_edit/)
    expect(results[1]).toMatch(/"slug" must be lowercase ASCII words/)
    expect(results[2]).toMatch(/no page type "gossip"/)
  })
})

describe('knowledge_edit and knowledge_rewrite', () => {
  it('edits one unique fragment, refuses an ambiguous or missing one, refuses a rename, and keeps inbound links on rewrite', async () => {
    const { root, store } = await boot(byPrompt({}, { text: 'ok' }))
    await turn('create', [{ name: 'knowledge_create', arguments: { ...TIDES, content: 'Big tides. Big tides happen twice a month. See [the gauge](entity/tide-gauge).', also: [GAUGE] } }])
    const [ambiguous, missing, renamed, edited] = await turn('edit', [
      { name: 'knowledge_edit', arguments: { page: 'concept/spring-tides', oldText: 'Big tides', newText: 'Large tides' } },
      { name: 'knowledge_edit', arguments: { page: 'concept/spring-tides', oldText: 'neap', newText: 'x' } },
      { name: 'knowledge_edit', arguments: { page: 'concept/spring-tides', oldText: 'twice', newText: 'two times', fields: [{ name: 'slug', value: 'tides' }] } },
      { name: 'knowledge_edit', arguments: { page: 'concept/spring-tides', oldText: 'twice a month', newText: 'about twice a month', fields: [{ name: 'aliases', value: null }] } },
    ])
    expect(ambiguous).toMatch(/"oldText" appears 2 times in concept\/spring-tides/)
    expect(missing).toMatch(/"oldText" is not in concept\/spring-tides's content/)
    expect(renamed).toMatch(/refused: "slug" cannot be changed; pages are never renamed/)
    expect(edited).toMatch(/^Edited concept\/spring-tides \(v:2/)
    const text = readFileSync(join(root, 'concepts/spring-tides.md'), 'utf8')
    expect(text).toContain('Big tides happen about twice a month.')
    expect(text).not.toContain('aliases')
    const [rewritten] = await turn('rewrite', [{ name: 'knowledge_rewrite', arguments: { page: 'concept/spring-tides', content: 'Rewritten whole.' } }])
    expect(rewritten).toMatch(/^Rewrote concept\/spring-tides \(v:3, concepts\/spring-tides\.md\)/)
    expect(store.linkedFrom('concept/spring-tides')).toEqual(['entity/tide-gauge'])
    expect(readFileSync(join(root, 'concepts/spring-tides.md'), 'utf8')).toMatch(/# Spring tides\n\nRewritten whole\.\n$/)
  })

  it('writes the overview with knowledge_rewrite and reads it back, and logs operations newest first', async () => {
    const { root } = await boot(byPrompt({}, { text: 'ok' }))
    await turn('create', [{ name: 'knowledge_create', arguments: { ...TIDES, content: 'Tides.' } }])
    const [none] = await turn('no overview', [{ name: 'knowledge_read', arguments: { id: 'overview' } }])
    expect(none).toMatch(/no overview yet/)
    await turn('overview', [
      { name: 'knowledge_rewrite', arguments: { page: 'overview', content: 'The harbour wiki. Start at [spring tides](concept/spring-tides).' } },
      { name: 'knowledge_log', arguments: { operation: 'ingest', what: 'first round set', pages: ['concept/spring-tides'] } },
      { name: 'knowledge_log', arguments: { operation: 'lint', what: 'nothing found' } },
    ])
    expect(readFileSync(join(root, 'overview.md'), 'utf8')).toContain('[spring tides](./concepts/spring-tides.md)')
    const [overview, log] = await turn('read both', [
      { name: 'knowledge_read', arguments: { id: 'overview' } },
      { name: 'knowledge_read', arguments: { id: 'log' } },
    ])
    expect(overview).toContain('[spring tides](concept/spring-tides)')
    expect(log).toMatch(/The last 2 operation\(s\), newest first:\n- .* lint: nothing found\n- .* ingest: first round set \(concept\/spring-tides\)/)
    const logFile = readFileSync(join(root, 'log.md'), 'utf8')
    expect(logFile.split('\n')[0]).toBe(GENERATED_LINE)
    expect(logFile).toContain('[concept/spring-tides](concepts/spring-tides.md)')
    const [bad] = await turn('bad log', [{ name: 'knowledge_log', arguments: { operation: 'ingest', what: 'x', pages: ['concept/ghost'] } }])
    expect(bad).toMatch(/no document concept\/ghost exists/)
  })
})

describe('index.md and knowledge_index', () => {
  it('lists every active page by section, counts rounds, is byte-stable when nothing changed, and overwrites a hand edit at the next change', async () => {
    const { root, store } = await boot(byPrompt({}, { text: 'ok' }))
    await store.write({ kind: 'raw', title: 'A round about tides', cwd: '/workspace', session: SESSION, turn: 1, outcome: 'completed', sections: [{ heading: 'Answer', text: 'tides' }] })
    await turn('create', [{ name: 'knowledge_create', arguments: { ...TIDES, also: [GAUGE] } }])
    const [index] = await turn('index', [{ name: 'knowledge_index', arguments: {} }])
    expect(index).toContain('Wiki index: 2 page(s) (1 concept, 1 entity).')
    expect(index).toContain('Not listed: 1 raw document(s)')
    expect(index).toContain('## Concepts (1)\n- Spring tides — concept/spring-tides — Tides of the largest range, at new and full moon. — aliases: king tide')
    expect(index).toContain('## Entities (1)\n- Tide gauge — entity/tide-gauge')
    const file = join(root, 'index.md')
    const first = readFileSync(file, 'utf8')
    expect(first.split('\n')[0]).toBe(GENERATED_LINE)
    expect(first).toContain('- [Spring tides](concepts/spring-tides.md) — Tides of the largest range')
    const { Wiki } = await import('../../src/knowledge/wiki/wiki.js')
    const again = new Wiki(store)
    expect(await again.regenerateIndex()).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe(first)
    writeFileSync(file, 'my own notes\n')
    await turn('edit', [{ name: 'knowledge_edit', arguments: { page: 'entity/tide-gauge', oldText: 'harbour', newText: 'port' } }])
    expect(readFileSync(file, 'utf8')).toBe(first.replace("The harbour's tide gauge", "The port's tide gauge"))
    again.close()
    // Generated files are not documents: search never returns them, the check never calls them unreadable.
    expect(store.search('Spring tides').map((h) => h.path)).not.toContain('index.md')
    expect([...store.invalid.keys()]).toEqual([])
  })
})

describe('search and check', () => {
  it('ranks a wiki page above a note above a raw round with the same words; kind takes a page type', async () => {
    const { store } = await boot(byPrompt({}, { text: 'ok' }))
    const words = 'The harbour tide gauge drifts after a storm surge.'
    await store.write({ kind: 'raw', title: 'Harbour tide gauge drift', cwd: '/workspace', session: SESSION, turn: 1, outcome: 'completed', sections: [{ heading: 'Answer', text: words }] })
    await turn('note and page', [
      { name: 'knowledge_note', arguments: { title: 'Harbour tide gauge drift', finding: words } },
      { name: 'knowledge_create', arguments: { type: 'entity', slug: 'tide-gauge', title: 'Harbour tide gauge drift', content: words } },
    ])
    const [hits, concepts, entities] = await turn('search', [
      { name: 'knowledge_search', arguments: { query: 'harbour tide gauge drift storm surge' } },
      { name: 'knowledge_search', arguments: { query: 'harbour tide gauge', kind: 'concept' } },
      { name: 'knowledge_search', arguments: { query: 'harbour tide gauge', kind: 'entity' } },
    ])
    const ranked = hits
      .split('\n')
      .filter((l) => /^\d+\. /.test(l))
      .map((l) => /^\d+\. (\S+)/.exec(l)![1])
    expect(ranked).toEqual(['entity/tide-gauge', '7a1b2c3d-n1', expect.stringMatching(/-t1$/)])
    expect(concepts).not.toContain('entity/tide-gauge')
    expect(entities).toContain('entity/tide-gauge')
    expect(entities).not.toContain('7a1b2c3d-n1')
  })

  it('check reports an orphan concept but not a summary, and not once a page links it', async () => {
    await boot(byPrompt({}, { text: 'ok' }))
    await turn('create', [
      { name: 'knowledge_create', arguments: { ...TIDES, content: 'Alone.' } },
      { name: 'knowledge_create', arguments: { type: 'summary', slug: 'tide-tables', title: 'Tide tables 2026', content: 'The tables.', fields: [{ name: 'file', value: 'originals/tides.pdf' }] } },
    ])
    const [before] = await turn('check', [{ name: 'knowledge_check', arguments: {} }])
    expect(before).toContain('[orphan] concept/spring-tides is a wiki page nothing links to')
    expect(before).not.toContain('summary/tide-tables')
    await turn('link', [{ name: 'knowledge_edit', arguments: { page: 'summary/tide-tables', oldText: 'The tables.', newText: 'The tables feed [spring tides](concept/spring-tides).' } }])
    const [after] = await turn('check again', [{ name: 'knowledge_check', arguments: {} }])
    expect(after).not.toContain('[orphan]')
  })
})

describe('the row', () => {
  it('adds a byte-stable prompt section only when enabled, and offers the tools only then', async () => {
    await boot(byPrompt({}, { text: 'ok' }))
    await turn('create', [{ name: 'knowledge_create', arguments: { ...TIDES, content: 'x' } }])
    const systems = loop!.adapter.requests.map((r) => r.system)
    expect(systems[0]).toContain('## Knowledge wiki')
    expect(systems[0]).toContain('- concept: An idea')
    expect(new Set(systems).size).toBe(1)
    await loop!.dispose()
    await boot(byPrompt({}, { text: 'ok' }), (root) => [
      [knowledge, { root }],
      [recall, {}],
      [wikiRow, { enabled: false }],
    ])
    await loop!.ask('hello', { session: SESSION })
    const request = loop!.adapter.requests[0]
    expect(request.system).not.toContain('Knowledge wiki')
    expect((request.options.tools ?? []).map((t: any) => t.name)).not.toContain('knowledge_create')
  })

  it('in plan mode refuses the write tools and keeps the catalogue', async () => {
    const { root } = await boot(byPrompt({}, { text: 'ok' }))
    await loop!.ask('hello', { session: SESSION })
    // What dsh-plan-mode logs on `/plan` (plan/mode, { active }): the state the row reads.
    loop!.agent(SESSION).session.append('plan/mode', { active: true })
    const [created, index] = await turn('plan', [
      { name: 'knowledge_create', arguments: { ...TIDES, content: 'x' } },
      { name: 'knowledge_index', arguments: {} },
    ])
    expect(created).toMatch(/in plan mode only reading is allowed.*\[isError\]$/)
    expect(index).toContain('Wiki index: no pages yet')
    expect(allDocuments(root)).toEqual([])
    expect(lastResult()).toBe(index)
  })
})
