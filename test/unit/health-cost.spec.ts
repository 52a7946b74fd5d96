/**
 * The health probe made cheaper (issue 30, item 6) finds exactly what it found before: on a seeded root of generated
 * rounds (realistic vocabulary, Chinese and Japanese among them), with a small score budget so that a few hundred
 * documents take the planner's large-corpus paths, the report is the same whether the searches are bare (no snippet,
 * no revision) and the all-terms bonus reads its rows in one pass, or the searches are full and probe each candidate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { probeHealth } from '../../src/knowledge/reports/health.js'
import type { SearchFilter } from '../../src/types.js'
import { writeRounds } from '../../bench/generate-rounds.mjs'

let store: KnowledgeStore
beforeAll(async () => {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-cost-')), 'kb')
  writeRounds(root, 600, { seed: 11 })
  store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false, index: { scoreBudget: 20 } })
  await store.start()
  // Findings to compare, not only a clean bill: a near-duplicate pair and a document its own words cannot find.
  const session = 'session-4ea1b7e2-0000-4000-8000-000000000002'
  const note = (title: string, finding: string) =>
    store.write({ kind: 'note', title, cwd: '/home/dev/projects/shop-api', session, suffix: store.nextNoteSuffix(session), sections: [{ heading: 'Finding', text: finding }] })
  await note('Docker layer cache misses on CI', 'COPY package.json before the sources so the install layer is reused.')
  await note('Docker layer cache misses in CI builds', 'COPY package.json before the sources so the install layer is reused.')
  await note('???', '…')
})
afterAll(() => store.close())

type Planner = { rangeBudgets: number; applyBonus: (...args: unknown[]) => void }
const planner = () => (store as unknown as { indexed: { index: { planner: Planner } } }).indexed.index.planner

describe('the cheaper health probe', () => {
  it('reports exactly the same findings as full searches with a probe per candidate', async () => {
    // How often each way of giving the bonus ran: both must, or the comparison proves nothing.
    const paths = { range: 0, probe: 0 }
    const p = planner()
    const applyBonus = p.applyBonus.bind(p)
    p.applyBonus = (...args: unknown[]) => {
      const all = args[0] as { rows: number; postings: number }
      if (all.postings > 20 * 20 && all.rows > 1) paths[all.rows <= 20 * p.rangeBudgets ? 'range' : 'probe']++
      return applyBonus(...args)
    }
    const now = await probeHealth(store, { record: false })
    const rangeRuns = paths.range
    const search = store.search.bind(store)
    store.search = (query: string, filter?: SearchFilter) => search(query, { ...filter, bare: undefined })
    p.rangeBudgets = 0
    const before = await probeHealth(store, { record: false })
    const same = (r: typeof now) => ({ ...r, at: undefined, ms: undefined, history: undefined })
    expect(now.probed).toBeGreaterThan(500)
    expect(rangeRuns).toBeGreaterThan(20)
    expect(paths.probe).toBeGreaterThan(20)
    expect(same(now)).toEqual(same(before))
    expect(now.unfindableTotal).toBeGreaterThan(0)
    expect(now.nearDuplicatesTotal).toBeGreaterThan(0)
  })
})
