/**
 * The chat row of knowledge_search (client/SearchRow.tsx) reads its hits from a session log's persisted meta: what the
 * tool writes is drawn exactly as dsh's search card spells it, and anything else (old logs, hostile meta) leaves only
 * the summary line, never a button with a foreign id.
 */
import { describe, expect, it } from 'vitest'
import { hitLine, hitsOf, searchRowModel } from '../../client/SearchRow.js'
import { presentSearchResult, SEARCH_OUTPUT } from '../../src/recall/presentation.js'

const value = { query: 'zebracard', ids: ['10000320-t1', 'note-2', 'a.b'], versions: [1, null, 3], titles: ['Why **bold**?', 'Two', 'Three'] }
const meta = SEARCH_OUTPUT.presentationMeta({}, value)
const settled = (m: unknown, extra: Record<string, unknown> = {}) => ({
  kind: 'tool-result',
  callId: 'c1',
  call: { name: 'knowledge_search', argsRaw: '{"query":"zebracard"}' },
  content: [{ type: 'text', text: '3 document(s) match' }],
  isError: false,
  meta: m,
  resultView: null,
  ...extra,
})

describe('the knowledge_search chat row', () => {
  it("draws the tool's own meta: the card's title and its `id (v:N) — title` lines, each a hit to open", () => {
    const model = searchRowModel(settled(meta))
    expect(model.summary).toBe('Searched "zebracard": 3 hits')
    expect(model.hits.map((h) => h.id)).toEqual(value.ids)
    expect(model.hits.map(hitLine)).toEqual(presentSearchResult({}, { isError: false, meta })!.paths)
    expect(model.more).toBe(0)
    expect(searchRowModel(settled({ ...meta, hits: 40 })).more).toBe(37)
  })

  it('a running call, an error and an old log without meta draw only the line', () => {
    expect(searchRowModel({ callId: 'c1', name: 'knowledge_search', argsRaw: '{"query":"zeb' })).toMatchObject({ state: 'running', summary: 'Search "?"', hits: [] })
    expect(searchRowModel({ callId: 'c1', name: 'knowledge_search', argsRaw: '{"query":"zebracard"}' })).toMatchObject({ state: 'running', summary: 'Search "zebracard"' })
    expect(searchRowModel(settled(undefined, { isError: true, content: [{ type: 'text', text: 'bad query\nmore' }] }))).toMatchObject({ state: 'error', summary: 'bad query', hits: [] })
    expect(searchRowModel(settled(undefined))).toMatchObject({ state: 'ok', summary: 'Search "zebracard"', hits: [] })
    expect(searchRowModel(settled(undefined, { resultView: { card: 'search', title: 'Searched "zebracard": 1 hit' } })).summary).toBe('Searched "zebracard": 1 hit')
    for (const block of [null, undefined, 42, 'x', [], { kind: 'tool-result' }]) expect(searchRowModel(block).hits).toEqual([])
  })

  it('says "8 of 85" when more documents matched than the tool returned (issue 28, item 7)', () => {
    const ids = Array.from({ length: 8 }, (_, k) => `note-${k}`)
    const counted = SEARCH_OUTPUT.presentationMeta({}, { query: 'cache', ids, versions: ids.map(() => 1), titles: ids, total: 85, more: false })
    expect(searchRowModel(settled(counted)).summary).toBe('Searched "cache": 8 of 85 hits')
    expect(presentSearchResult({}, { isError: false, meta: counted })!.title).toBe('Searched "cache": 8 of 85 hits')
    const capped = SEARCH_OUTPUT.presentationMeta({}, { query: 'cache', ids, versions: ids.map(() => 1), titles: ids, total: 100, more: true })
    expect(searchRowModel(settled(capped)).summary).toBe('Searched "cache": 8 of 100+ hits')
    // A count below the returned hits is not believed; an exact count equal to them reads as before.
    expect(searchRowModel(settled({ ...counted, total: 3 })).summary).toBe('Searched "cache": 8 hits')
    expect(searchRowModel(settled(SEARCH_OUTPUT.presentationMeta({}, { query: 'cache', ids, total: 8 }))).summary).toBe('Searched "cache": 8 hits')
  })

  it('hostile or malformed meta gives no hits at all (all or nothing), and long text is cut', () => {
    const item = meta.items[0]
    const bad: unknown[] = [
      null,
      'search',
      { ...meta, knowledge: 'read' },
      { ...meta, query: 7 },
      { ...meta, hits: -1 },
      { ...meta, hits: 1.5 },
      { ...meta, hits: 1 }, // fewer hits than items
      { ...meta, items: 'x' },
      { ...meta, hits: 100, items: Array.from({ length: 9 }, () => item) }, // more than the tool ever sends
      { ...meta, items: [{ ...item, id: '../../etc/passwd' }] },
      { ...meta, items: [{ ...item, id: 'javascript:alert(1)' }] },
      { ...meta, items: [{ ...item, id: 'x'.repeat(129) }] },
      { ...meta, items: [{ ...item, id: ['a'] }] },
      { ...meta, items: [{ ...item, version: '1' }] },
      { ...meta, items: [{ ...item, version: 0 }] },
      { ...meta, items: [{ ...item, title: { toString: 'x' } }] },
      { ...meta, items: [item, null] },
    ]
    for (const m of bad) {
      expect(hitsOf(m), JSON.stringify(m)?.slice(0, 80)).toBeUndefined()
      expect(searchRowModel(settled(m)).hits).toEqual([])
    }
    const long = hitsOf({ ...meta, query: `q${'\n'.repeat(5)}${'y'.repeat(10_000)}`, items: [{ ...item, title: 't'.repeat(100_000) }], hits: 1 })!
    expect(long.query.length).toBeLessThanOrEqual(200)
    expect(long.query).not.toContain('\n')
    expect(long.items[0].title.length).toBe(200)
  })
})
