/**
 * The wiki room's pure parts: declared page types (replacing a built-in, refusals), field changes (shapes, store
 * keys, renames refused), the catalogue within its budget at any size (summarised sections, paging that lists every
 * page exactly once) and byte-stable index.md, the log's lines read back.
 */
import { describe, expect, it } from 'vitest'
import { buildCatalogue, type CatalogueEntry, renderForModel, renderIndexFile, summaryOf } from '../../src/knowledge/wiki/catalogue.js'
import { logLine, parseLog } from '../../src/knowledge/wiki/op-log.js'
import { applyFieldChanges, parseFieldChanges } from '../../src/knowledge/wiki/page-fields.js'
import { BUILT_IN_TYPES, checkSlug, diskKey, resolveTypes } from '../../src/knowledge/wiki/page-types.js'

const entries = (n: number): CatalogueEntry[] =>
  Array.from({ length: n }, (_, k) => ({
    id: `${['concept', 'entity', 'summary'][k % 3]}/page-${k}`,
    path: `x/page-${k}.md`,
    title: `Page ${k} on subsystem ${k % 89}`,
    type: ['concept', 'entity', 'summary'][k % 3],
    summary: `What page ${k} says about the cache key of service ${k % 31}.`,
    fields: k % 3 === 1 ? [['kind', 'component']] : [],
  }))

describe('page types', () => {
  it('a declared type adds a section; one with a built-in name replaces it and keeps its place', () => {
    const types = resolveTypes([
      { type: 'runbook', folder: 'runbooks', section: 'Runbooks', description: 'How to operate a system.', template: '## Steps\n', fields: ['owner', 'systems[]'], indexFields: ['owner'] },
      { type: 'concept', folder: 'ideas', section: 'Ideas', description: 'An idea.', template: '', fields: [] },
    ])
    expect(types.map((t) => t.type)).toEqual(['summary', 'concept', 'entity', 'synthesis', 'preference', 'runbook'])
    expect(types.find((t) => t.type === 'concept')).toMatchObject({ folder: 'ideas', section: 'Ideas', fields: [] })
    expect(types.find((t) => t.type === 'runbook')!.fields).toEqual([
      { name: 'owner', description: '' },
      { name: 'systems', description: '', list: true },
    ])
  })

  it.each([
    [{ type: 'Bad', folder: 'x', section: 'X', description: 'd', template: '' }, /lowercase letters/],
    [{ type: 'x', folder: '../out', section: 'X', description: 'd', template: '' }, /folder must be/],
    [{ type: 'x', folder: '.knowledge', section: 'X', description: 'd', template: '' }, /folder must be/],
    [{ type: 'x', folder: 'concepts', section: 'X', description: 'd', template: '' }, /share the folder "concepts"/],
    [{ type: 'x', folder: 'x', section: 'X', description: 'd', template: '', fields: ['a'], indexFields: ['b'] }, /index field "b" is not one of its fields/],
  ])('refuses a declared type that is not sound: %#', (raw, message) => {
    expect(() => resolveTypes([raw as never])).toThrow(message)
  })

  it("slugs are plain words; a root type may not take the wiki files' names; store keys get the type in front", () => {
    const root = resolveTypes([{ type: 'topic', folder: '', section: 'Topics', description: 'd', template: '' }]).find((t) => t.type === 'topic')!
    for (const bad of ['../x', 'A', 'a_b', '', 'a--b', 'x'.repeat(65)]) expect(() => checkSlug(root, bad), bad).toThrow(/"slug"/)
    expect(() => checkSlug(root, 'index')).toThrow(/wiki's own files/)
    expect(checkSlug(BUILT_IN_TYPES[1], 'index')).toBe('index')
    expect(diskKey(BUILT_IN_TYPES[2], 'kind')).toBe('entity_kind')
    expect(diskKey(BUILT_IN_TYPES[2], 'aliases')).toBe('aliases')
  })
})

describe('fields', () => {
  const entity = BUILT_IN_TYPES.find((t) => t.type === 'entity')!
  const summary = BUILT_IN_TYPES.find((t) => t.type === 'summary')!
  it('sets, lists, removes; refuses unknown, store-set and renaming fields', () => {
    const { fields } = applyFieldChanges(
      entity,
      { entity_kind: 'system', aliases: ['a'] },
      parseFieldChanges([
        { name: 'aliases', value: 'x, y' },
        { name: 'kind', value: null },
      ]),
    )
    expect(fields).toEqual({ aliases: ['x', 'y'] })
    expect(() => applyFieldChanges(entity, {}, [{ name: 'colour', value: 'red' }])).toThrow(/has no field "colour"; its fields: kind, aliases/)
    expect(() => applyFieldChanges(summary, {}, [{ name: 'ingested', value: 'now' }])).toThrow(/set by the store/)
    for (const name of ['id', 'slug', 'type', 'path']) expect(() => parseFieldChanges([{ name, value: 'x' }])).toThrow(/never renamed/)
    expect(() => parseFieldChanges([{ name: 'kind', value: 3 }])).toThrow(/a string, a list of strings, or null/)
  })
})

describe('the catalogue', () => {
  it.each([30, 300, 3000, 30000])('stays within the budget at %i pages, and paging a section lists each of its pages once', (n) => {
    const catalogue = buildCatalogue(entries(n), BUILT_IN_TYPES, { raw: 5 }, false)
    const text = renderForModel(catalogue, 12_000)
    expect(text.length).toBeLessThanOrEqual(12_000)
    expect(text).toContain(`Wiki index: ${n} page(s)`)
    const seen: string[] = []
    let offset = 0
    for (let guard = 0; guard < 1000; guard++) {
      const page = renderForModel(catalogue, 12_000, { section: 'Entities', offset })
      expect(page.length).toBeLessThanOrEqual(12_000)
      seen.push(
        ...page
          .split('\n')
          .filter((l) => l.startsWith('- '))
          .map((l) => l.split(' — ')[1]),
      )
      const next = /"offset": (\d+)\}\)\]$/.exec(page)
      if (!next) break
      offset = Number(next[1])
    }
    const expected = catalogue.sections.find((s) => s.section === 'Entities')!.entries.map((e) => e.id)
    expect(seen).toEqual(expected)
  })

  it('renders index.md byte for byte the same for the same pages in any order', () => {
    const a = renderIndexFile(buildCatalogue(entries(50), BUILT_IN_TYPES, { raw: 2 }, true))
    // Rounds captured meanwhile change nothing: the file lists pages only.
    const b = renderIndexFile(buildCatalogue(entries(50).reverse(), BUILT_IN_TYPES, { raw: 7000 }, true))
    expect(a).toBe(b)
    expect(a.split('\n')[0]).toMatch(/^_Generated by dsh-knowledge-sync/)
  })

  it('takes the first sentence of the content as what a page is', () => {
    expect(summaryOf('## Definition\n\n- A tide of [large](concept/x) range. More.\n')).toBe('A tide of large range.')
    expect(summaryOf('潮汐最大的时候。然后')).toBe('潮汐最大的时候。')
  })
})

describe('the log', () => {
  it('reads its own lines back, a separator inside "what" included', () => {
    const line = logLine({ at: '2026-12-01T20:00:00Z', operation: 'ingest', what: 'a · b', pages: ['concept/x'] }, () => 'concepts/x.md')
    expect(line).toBe('- 2026-12-01T20:00:00Z · ingest · a - b · pages: [concept/x](concepts/x.md)\n')
    expect(parseLog(`# Log\n\n${line}not an entry\n- 2026-12-01T21:00:00Z · lint · nothing\n`)).toEqual([
      { at: '2026-12-01T20:00:00Z', operation: 'ingest', what: 'a - b', pages: ['concept/x'] },
      { at: '2026-12-01T21:00:00Z', operation: 'lint', what: 'nothing', pages: [] },
    ])
  })
})
