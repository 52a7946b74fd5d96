/**
 * Retrieval quality of the search engine on a hand-labelled set (test/fixtures/retrieval-set.json): 308 rounds in
 * five workspaces plus global manual documents, 155 queries in seven categories (paraphrases, exact identifiers,
 * identifiers by parts, Chinese/Japanese, near-duplicate distractors, natural-language questions, and "hard"
 * paraphrases that share almost no word with their document). The set was written before the engine was tuned
 * (the "hard" category was added after the first run showed the rest was too easy, still before any tuning) and
 * its queries are not edited to fit the engine.
 *
 * Prints one line: recall@5 and MRR@10, overall and per category. Queries that miss are listed to help diagnosis.
 * @module dsh-knowledge-sync/test/quality/retrieval
 */
import { readFileSync } from 'node:fs'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import type { DocKind, KnowledgeDoc } from '../../src/types.js'

interface SetDoc {
  id: string
  cwd: string
  kind: DocKind
  title: string
  created: string
  tags: string[]
  tools: string[]
  body: string
}
interface SetQuery {
  q: string
  relevant: string[]
  category: string
}
interface RetrievalSet {
  docs: SetDoc[]
  queries: SetQuery[]
}

const set = JSON.parse(readFileSync(new URL('../fixtures/retrieval-set.json', import.meta.url), 'utf8')) as RetrievalSet
/** The categories the engine was first measured on; "overall" is asserted over these (the set's first 155 queries). */
const FIRST_CATEGORIES = new Set(['paraphrase', 'ident-exact', 'ident-parts', 'cjk', 'near-dup', 'natural', 'hard'])
/**
 * Categories added for issue 17 (written before any expansion code): `xlang` (English ↔ Chinese, Simplified ↔
 * Traditional) and `noshare` (no word in common with the document). Floors for recall@5 and MRR per category.
 */
const NEW_FLOORS: Record<string, { recall5: number; mrr: number }> = {
  // Before expansion (same set): xlang 0.091 / 0.091, noshare 0.000 / 0.000. Measured after: 0.886 / 0.670, 0.000 / 0.041.
  xlang: { recall5: 0.85, mrr: 0.6 },
  noshare: { recall5: 0, mrr: 0.03 },
  // Issue 29, written before the single-character channel: before 0.000 / 0.016; after 0.875 / 0.828 (characters fill a
  // short page before translations do; ranked always they reached 0.625 / 0.463 and cost xlang MRR and heldout recall).
  'cjk-short': { recall5: 0.85, mrr: 0.75 },
  // Issue 29: English answers holding some of the words beside Chinese documents holding their translations: 1.000 / 1.000 before and after.
  'xlang-precision': { recall5: 1, mrr: 1 },
  // English questions answered by Chinese rounds (issue 17's held-out half, written before the expansion tables were
  // tuned): 0.389 / 0.316 while ranking passes kept only the page's rows beside the translations; 0.500 / 0.373 with 50.
  heldout: { recall5: 0.5, mrr: 0.35 },
}

interface Score {
  recall5: number
  rr: number
  n: number
}

describe('retrieval quality on the labelled set', () => {
  let index: SearchIndex
  const perQuery: Array<{ q: SetQuery; recall5: number; rr: number; top: string[] }> = []

  beforeAll(() => {
    index = new SearchIndex()
    index.upsertMany(
      set.docs.map(
        (d, i): KnowledgeDoc => ({
          id: d.id,
          path: `${d.id}.md`,
          meta: { id: d.id, title: d.title, kind: d.kind, created: d.created, cwd: d.cwd, tools: d.tools, tags: d.tags },
          body: d.body,
          mtimeMs: i,
        }),
      ),
    )
    for (const q of set.queries) {
      const top = index.search(q.q, { limit: 10 }).map((h) => h.id)
      const found5 = q.relevant.filter((id) => top.slice(0, 5).includes(id)).length
      const first = top.findIndex((id) => q.relevant.includes(id))
      perQuery.push({ q, recall5: found5 / q.relevant.length, rr: first < 0 ? 0 : 1 / (first + 1), top })
    }
  })
  afterAll(() => index.close())

  it('has the size the set promises (≥ 300 rounds, ≥ 110 queries, every label names a document)', () => {
    expect(set.docs.length).toBeGreaterThanOrEqual(300)
    expect(set.queries.length).toBeGreaterThanOrEqual(110)
    const ids = new Set(set.docs.map((d) => d.id))
    expect(ids.size).toBe(set.docs.length)
    for (const q of set.queries) for (const id of q.relevant) expect(ids.has(id), `${q.q} → ${id}`).toBe(true)
    expect(new Set(set.docs.map((d) => d.cwd)).size).toBeGreaterThanOrEqual(5)
  })

  it('reaches recall@5 ≥ 0.95 and MRR ≥ 0.8 overall', () => {
    const by = new Map<string, Score>()
    const total: Score = { recall5: 0, rr: 0, n: 0 }
    for (const r of perQuery) {
      const s = by.get(r.q.category) ?? { recall5: 0, rr: 0, n: 0 }
      s.recall5 += r.recall5
      s.rr += r.rr
      s.n++
      by.set(r.q.category, s)
      if (!FIRST_CATEGORIES.has(r.q.category)) continue
      total.recall5 += r.recall5
      total.rr += r.rr
      total.n++
    }
    const fmt = (s: Score): string => `recall@5 ${(s.recall5 / s.n).toFixed(3)} MRR ${(s.rr / s.n).toFixed(3)} (n=${s.n})`
    console.log(`[retrieval] overall (first seven categories) ${fmt(total)} | ` + [...by].map(([c, s]) => `${c}: ${fmt(s)}`).join(' | '))
    const misses = perQuery.filter((r) => r.recall5 < 1)
    if (misses.length) console.log('[retrieval] below full recall@5:\n' + misses.map((r) => `  ${JSON.stringify(r.q.q)} wants ${r.q.relevant.join(',')} got ${r.top.slice(0, 5).join(',')}`).join('\n'))
    expect(total.recall5 / total.n).toBeGreaterThanOrEqual(0.95)
    expect(total.rr / total.n).toBeGreaterThanOrEqual(0.8)
  })

  it('keeps every category at recall@5 ≥ 0.95, except the low-overlap "hard" paraphrases (≥ 0.8)', () => {
    const by = new Map<string, Score>()
    for (const r of perQuery) {
      const s = by.get(r.q.category) ?? { recall5: 0, rr: 0, n: 0 }
      s.recall5 += r.recall5
      s.rr += r.rr
      s.n++
      by.set(r.q.category, s)
    }
    // "hard" queries share almost no word with their document ("stale process still holding the socket" for an
    // EADDRINUSE round): a lexical engine without synonyms finds most, not all, of them.
    for (const [category, s] of by) {
      if (!FIRST_CATEGORIES.has(category)) continue
      expect(s.recall5 / s.n, category).toBeGreaterThanOrEqual(category === 'hard' ? 0.8 : 0.95)
    }
  })

  it('has at least 40 cross-language and no-shared-word queries, and keeps them at their floors', () => {
    const added = perQuery.filter((r) => r.q.category in NEW_FLOORS)
    expect(added.length).toBeGreaterThanOrEqual(40)
    for (const [category, floor] of Object.entries(NEW_FLOORS)) {
      const rows = added.filter((r) => r.q.category === category)
      expect(rows.length, category).toBeGreaterThan(0)
      expect(rows.reduce((a, r) => a + r.recall5, 0) / rows.length, `${category} recall@5`).toBeGreaterThanOrEqual(floor.recall5)
      expect(rows.reduce((a, r) => a + r.rr, 0) / rows.length, `${category} MRR`).toBeGreaterThanOrEqual(floor.mrr)
    }
  })
})
