/**
 * Expansion mined from the base's own documents (src/search/cooccur.ts): of two candidates that hold the query's words
 * alike, the one whose other words keep company, in this base, with a query word it lacks ranks first; an edit to
 * the base changes the company at once; nothing changes with the pass off; its caches stay bounded.
 * @module dsh-knowledge-sync/test/unit/search-cooccur
 */
import { afterEach, describe, expect, it } from 'vitest'
import { COOCCUR_CACHE_MAX, COOCCUR_DEPTH } from '../../src/search/cooccur.js'
import { CONVERSATIONAL_COOCCUR, DEFAULT_COOCCUR } from '../../src/search/options.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { Config as KnowledgeConfig } from '../../src/knowledge/index.js'
import type { KnowledgeDoc } from '../../src/types.js'

let clock = 0
const turn = (id: string, body: string, session?: string, n?: number): KnowledgeDoc => ({
  id,
  path: `${id}.md`,
  meta: { id, title: 'Round', kind: 'raw', created: new Date(Date.UTC(2025, 0, 1, 0, 0, ++clock)).toISOString(), cwd: '/w', tools: [], tags: [], ...(session ? { session, turn: n } : {}) },
  body,
  mtimeMs: clock,
})

/** Sessions where one place keeps company with some words; two candidates that both tell of "the trip". */
function seed(index: SearchIndex, place: string, company: string[]): void {
  const docs: KnowledgeDoc[] = []
  for (let s = 0; s < 6; s++) {
    docs.push(turn(`s${s}-1`, `We talked about ${place} again last night.`, `s${s}`, 1))
    docs.push(turn(`s${s}-2`, `Yes, the ${company[s % company.length]} and the ${company[(s + 1) % company.length]} there are wonderful.`, `s${s}`, 2))
  }
  for (let i = 0; i < 40; i++) docs.push(turn(`f${i}`, `Filler round ${i} about the weather, the garden and the neighbours' cat.`, `f${i}`, 1))
  docs.push(turn('food', 'The trip was fun: tapas and paella every single evening.'))
  docs.push(turn('office', 'The trip was fun: spreadsheets and invoices every single evening.'))
  index.upsertMany(docs)
}

describe('expansion mined from the base (co-occurrence)', () => {
  const opened: SearchIndex[] = []
  const open = (cooccur: number): SearchIndex => {
    const index = new SearchIndex({ cooccur })
    opened.push(index)
    return index
  }
  afterEach(() => {
    while (opened.length) opened.pop()!.close()
  })

  it("is off unless a base turns it on (search.cooccur in the knowledge row's config)", () => {
    expect(DEFAULT_COOCCUR).toBe(0)
    expect(KnowledgeConfig({} as never).search.cooccur).toBe(0)
    expect(KnowledgeConfig({ search: { cooccur: CONVERSATIONAL_COOCCUR } } as never).search.cooccur).toBe(0.3)
    expect(() => KnowledgeConfig({ search: { cooccur: 2 } } as never)).toThrow()
  })

  it("ranks first the candidate whose words keep company with the query's missing word", () => {
    const off = open(0)
    seed(off, 'Spain', ['tapas', 'paella'])
    // Both hold "trip" alike; neither says "Spain". Without the pass the newer one comes first.
    const pair = (index: SearchIndex) =>
      index
        .search('Spain trip')
        .map((h) => h.id)
        .filter((id) => id === 'food' || id === 'office')
    expect(pair(off)).toEqual(['office', 'food'])
    const on = open(CONVERSATIONAL_COOCCUR)
    seed(on, 'Spain', ['tapas', 'paella'])
    expect(pair(on)).toEqual(['food', 'office'])
  })

  it('follows an edit of the base at once (the counts are made again after a write)', () => {
    const index = open(CONVERSATIONAL_COOCCUR)
    seed(index, 'Spain', ['tapas', 'paella'])
    const first = () => index.search('Spain trip').find((h) => h.id === 'food' || h.id === 'office')?.id
    expect(first()).toBe('food')
    // Now the base says Spain is where the accounting happens.
    for (let s = 0; s < 6; s++) index.upsert(turn(`s${s}-2`, 'Yes, the spreadsheets and the invoices there are endless.', `s${s}`, 2))
    expect(first()).toBe('office')
  })

  it('changes nothing when off, and keeps its caches within their bound', () => {
    const off = open(0)
    const on = open(CONVERSATIONAL_COOCCUR)
    for (const index of [off, on]) seed(index, 'Spain', ['tapas', 'paella'])
    // A query whose words have no company here: the same hits, in the same order, with the pass on.
    expect(on.search('weather garden').map((h) => h.id)).toEqual(off.search('weather garden').map((h) => h.id))
    for (let i = 0; i < 60; i++) on.search(`Spain trip round ${i} neighbours`)
    const { words, company } = (on as unknown as { cooccur: { cached: { words: number; company: number } } }).cooccur.cached
    expect(words).toBeGreaterThan(0)
    expect(words).toBeLessThanOrEqual(COOCCUR_CACHE_MAX)
    expect(company).toBeLessThanOrEqual(COOCCUR_CACHE_MAX)
    expect(COOCCUR_DEPTH).toBe(50)
  })
})
