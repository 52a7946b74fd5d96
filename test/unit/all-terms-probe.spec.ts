/**
 * The all-terms bonus on the planner's probe path (a query whose terms have long posting lists: each candidate is
 * tested on its own with `fts MATCH ? AND fts.rowid = ?`). node:sqlite binds a JS number as a REAL, and FTS5 takes a
 * rowid bound only when it is an INTEGER: the probe then ignored the rowid and said yes for every candidate as soon as
 * any document held every term, so documents missing a term got the bonus too (and outranked complete matches).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import type { KnowledgeDoc } from '../../src/types.js'

let clock = Date.parse('2026-01-01T00:00:00Z')
function doc(id: string, body: string): KnowledgeDoc {
  clock += 60_000
  return {
    id,
    path: `s/${id}.md`,
    meta: { id, title: id, kind: 'raw', created: new Date(clock).toISOString(), cwd: '/w', tools: [], tags: [], session: 'session-1', turn: 1 },
    body,
    mtimeMs: clock,
  }
}

describe('the all-terms bonus on the probe path', () => {
  let index: SearchIndex | undefined
  afterEach(() => index?.close())

  it('goes only to the candidates that hold every term', () => {
    let plan = ''
    index = new SearchIndex({ scoreBudget: 10, onPlan: (p) => (plan = p) })
    const docs: KnowledgeDoc[] = []
    // Common words in hundreds of documents (their postings are far over 20 budgets: the probe path).
    for (let i = 0; i < 300; i++) docs.push(doc(`c${i}`, `alpha beta filler${i % 17} words here`))
    // The rare word: four documents with every query word, then four of the same length without them (indexed later,
    // so they win ties: with the bonus given to all, they come first).
    for (let i = 0; i < 4; i++) docs.push(doc(`full${i}`, `gamma alpha beta zeta`))
    for (let i = 0; i < 4; i++) docs.push(doc(`part${i}`, `gamma delta epsilon zeta`))
    index.upsertMany(docs)
    // A page of 8 holds all eight candidates (the drivers' top rows); the four complete ones must lead it.
    const hits = index.search('gamma alpha beta', { limit: 8 })
    expect(plan).not.toBe('exact')
    expect(
      hits
        .slice(0, 4)
        .map((h) => h.id)
        .sort(),
    ).toEqual(['full0', 'full1', 'full2', 'full3'])
    const score = new Map(hits.map((h) => [h.id, h.score]))
    expect(score.get('full0')! / score.get('part0')!).toBeCloseTo(1.6, 2)
  })
})
