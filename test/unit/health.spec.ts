/**
 * The health probe over a real store: recall@5 and MRR of every document searched with its own words, the documents
 * those words do not find, near-duplicate pairs, growth per day from the ledger, and a history that grows one point
 * per run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { activeDocuments, findingOf, growthOf, healthSummary, probeHealth, probeQuery, sampledDocuments } from '../../src/knowledge/reports/health.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import type { FrontMatter } from '../../src/types.js'

let store: KnowledgeStore
const SESSION = 'session-4ea1b7e2-0000-4000-8000-000000000001'
const note = (title: string, finding: string, cwd = '/work/app') =>
  store.write({
    kind: 'note',
    title,
    cwd,
    session: SESSION,
    suffix: store.nextNoteSuffix(SESSION),
    sections: [{ heading: 'Finding', text: finding }],
  })

beforeAll(async () => {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-')), 'kb')
  store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await note('esbuild binary mismatch after the Node 22 upgrade', 'Delete node_modules and reinstall with pnpm 10; esbuild ships a platform binary per Node ABI.')
  await note('Flaky checkout e2e test', 'The checkout test waits on a fixed 2 s sleep; replace it with waitForResponse on /api/cart.')
  await note('Postgres migration locks the orders table', 'Run CREATE INDEX CONCURRENTLY outside the transaction so writes keep flowing.')
  await note('Docker layer cache misses on CI', 'COPY package.json before the sources so the install layer is reused.')
  await note('Docker layer cache misses in CI builds', 'COPY package.json before the sources so the install layer is reused.')
  await note('???', '…')
  mkdirSync(join(store.root, '.knowledge'), { recursive: true })
  const ledger = join(store.root, '.knowledge/ledger.jsonl')
  appendFileSync(
    ledger,
    [
      { t: '2026-11-29T10:00:00Z', type: 'kept', session: 's', turn: 1, id: 'x', score: 3, redacted: 0 },
      { t: '2026-11-29T11:00:00Z', type: 'dropped', session: 's', turn: 2, score: 0, reasons: ['-terse-status'] },
      { t: '2026-11-30T09:00:00Z', type: 'dropped', session: 's', turn: 3, score: 1, reasons: ['-weak-signal'] },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n',
  )
})
afterAll(async () => {
  await store.close()
})

describe('health probe', () => {
  it('builds each probe from the title and the first words of the finding, without stopwords', () => {
    expect(findingOf('# T\n\n## Finding\n\nUse pnpm 10.\n\n## Evidence\n\nlogs')).toBe('Use pnpm 10.')
    expect(findingOf('# T\n\n## Question\n\nq\n\n## Answer\n\nThe cause is X.')).toBe('The cause is X.')
    expect(probeQuery('Why does the build fail', '## Answer\n\nThe cause is esbuild and the fix is pnpm')).toBe('build fail cause esbuild fix pnpm')
  })

  it('reports recall@5 and MRR, the documents their own words do not find, and near-duplicate pairs', async () => {
    const report = await probeHealth(store)
    expect(report.documents).toBe(6)
    expect(report.probed).toBe(6)
    expect(report.unfindable.map((u) => u.title)).toEqual(['???'])
    expect(report.recallAt5).toBeCloseTo(5 / 6, 3)
    expect(report.mrr).toBeGreaterThan(0.6)
    expect(report.mrr).toBeLessThanOrEqual(report.recallAt5)
    expect(report.nearDuplicates).toHaveLength(1)
    const pair = report.nearDuplicates[0]
    expect([store.get(pair.a)!.title, store.get(pair.b)!.title].sort()).toEqual(['Docker layer cache misses in CI builds', 'Docker layer cache misses on CI'])
    expect(pair.similarity).toBeGreaterThanOrEqual(0.8)
  })

  it('counts growth per day from the ledger, by drop reason', () => {
    expect(
      growthOf([
        { t: '2026-11-29T10:00:00Z', type: 'kept', session: 's', turn: 1, id: 'x', score: 3, redacted: 0 },
        { t: '2026-11-29T11:00:00Z', type: 'dropped', session: 's', turn: 2, score: 0, reasons: ['-terse-status'] },
        { t: '2026-11-30T09:00:00Z', type: 'note', id: 'n', redacted: 0 },
      ]),
    ).toEqual([
      { day: '2026-11-29', kept: 1, dropped: 1, notes: 0, reasons: { '-terse-status': 1 } },
      { day: '2026-11-30', kept: 0, dropped: 0, notes: 1, reasons: {} },
    ])
  })

  it('records each run, so the page reads history and growth without probing again; a sample probes fewer', async () => {
    const before = (await healthSummary(store, undefined)).history.length
    const sampled = await probeHealth(store, { sample: 3 })
    expect(sampled.probed).toBe(3)
    const summary = await healthSummary(store, undefined)
    expect(summary.history).toHaveLength(before + 1)
    expect(summary.history.at(-1)).toMatchObject({ probed: 3, documents: 6 })
    expect(summary.growth.map((g) => g.day)).toEqual(expect.arrayContaining(['2026-11-29', '2026-11-30']))
    // Scoped history is its own series.
    expect((await healthSummary(store, '/elsewhere')).history).toEqual([])
  })

  it('a sample is the even selection of the active documents, picked while they are listed', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-sample-')), 'kb')
    mkdirSync(join(root, 'notes'), { recursive: true })
    for (let k = 0; k < 41; k++) {
      const meta = {
        id: `d${k}`,
        title: `Doc ${k}`,
        kind: 'manual',
        cwd: k % 3 ? '/work/app' : '/work/other',
        created: `2026-01-01T00:00:${String(k).padStart(2, '0')}.000Z`,
        tags: [],
        tools: [],
      } as unknown as FrontMatter
      // Every seventh is retired: the sample is taken over the active ones only, as the count is.
      if (k % 7 === 3) Object.assign(meta, { status: 'retired', retired: { at: '2026-01-02T00:00:00.000Z', reason: 'wrong' } })
      writeFileSync(join(root, 'notes', `d${k}-doc.md`), formatDocument(meta, `Body of document ${k}.`))
    }
    const own = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    await own.start()
    try {
      for (const scope of [undefined, '/work/app']) {
        const all = activeDocuments(own, scope).map((m) => m.id)
        expect(all.length).toBe(scope ? 23 : 35)
        for (const sample of [undefined, 1, 2, 5, 7, 17, all.length - 1, all.length, 100]) {
          const picked = await sampledDocuments(own, scope, sample)
          const step = sample && all.length > sample ? all.length / sample : 1
          const expected = step === 1 ? all : Array.from({ length: sample as number }, (_, k) => all[Math.floor(k * step)])
          expect(picked.docs.map((m) => m.id)).toEqual(expected)
          expect(picked.documents).toBe(all.length)
        }
      }
      // Read a page at a time with a turn of the event loop between pages: other work runs meanwhile (a soak found
      // the listing of 36k documents holding the loop 0.4 s in one piece).
      let turns = 0
      let listing = true
      const tick = () => {
        turns++
        if (listing) setImmediate(tick)
      }
      setImmediate(tick)
      const paged = await sampledDocuments(own, undefined, 5, 4)
      listing = false
      expect(paged.documents).toBe(35)
      expect(turns).toBeGreaterThanOrEqual(8)
    } finally {
      await own.close()
    }
  })
})
