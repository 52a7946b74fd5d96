/**
 * The planner's "newest N documents" cut (search/planner.ts, newestRowid) is read from FTS5's per-document size table
 * instead of walking `doc`'s large rows: one row per indexed document, so the same rowids. What it relies on, held
 * over 600 random writes, re-writes (a new rowid), status changes and removals: the table's ids are exactly `doc`'s
 * rowids. (The rankings themselves are held by the search suites and cache-ranking.spec.ts.)
 */
import { describe, expect, it } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import type { KnowledgeDoc } from '../../src/types.js'
import { mulberry32 } from '../harness/rng.ts'

let clock = Date.UTC(2025, 0, 1)
function doc(id: string, body: string, status?: 'superseded' | 'retired'): KnowledgeDoc {
  clock += 60_000
  return {
    id,
    path: `s/${id}.md`,
    meta: { id, title: id, kind: 'raw', created: new Date(clock).toISOString(), cwd: '/home/u/p', tools: [], tags: [], session: 'session-1', turn: 1, ...(status ? { status } : {}) },
    body,
    mtimeMs: clock,
  }
}

const rowids = (index: SearchIndex, sql: string) => (index.stmt(sql).all() as Array<{ r: number }>).map((row) => row.r)

describe("the planner's cut to the newest documents", () => {
  it('reads the same rowids from the size table as from doc, through writes, re-writes, status changes and removals', () => {
    const index = new SearchIndex()
    const random = mulberry32(36)
    const live = new Set<string>()
    for (let step = 0; step < 600; step++) {
      const id = `d${Math.floor(random() * 200)}`
      const roll = random()
      if (roll < 0.15 && live.has(id)) {
        index.remove(id)
        live.delete(id)
      } else {
        // Every document holds the common word, so searches of it plan a cut; some hold a rare one too.
        index.upsert(doc(id, `common word ${roll < 0.3 ? 'rareword' : ''} ${step}`, roll > 0.9 ? 'retired' : roll > 0.8 ? 'superseded' : undefined))
        live.add(id)
      }
      if (step % 50 === 49) {
        index.flush()
        expect(rowids(index, 'SELECT id AS r FROM fts_docsize ORDER BY id')).toEqual(rowids(index, 'SELECT rowid AS r FROM doc ORDER BY rowid'))
      }
    }
    expect(index.size).toBe(live.size)
    const hits = index.search('common word', { limit: 10 })
    expect(hits.length).toBe(10)
    index.close()
  })
})
