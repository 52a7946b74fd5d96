/**
 * The health probe in worker threads (issue 30, item 6): over a real persisted index, workers find exactly what the
 * store's thread finds (ranks, queries, pairs; the same report), progress still runs from 0 to all, an index in
 * memory is probed in the store's thread, and a store closed under a threaded probe ends its workers. Runs lib/ as
 * shipped (a worker cannot load the sources: Node strips types only), so build first (`node scripts/build.mjs`).
 * @module dsh-knowledge-sync/test/unit/health-threads
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProbedDoc } from '../../src/knowledge/reports/probe-query.js'
import type { KnowledgeStore as Store } from '../../src/knowledge/store.js'
import type { HealthReport } from '../../src/wire.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const lib = <T>(path: string): Promise<T> => import(pathToFileURL(join(PROJECT_ROOT, 'lib', path)).href)
const { activeDocuments, probeHealth } = await lib<typeof import('../../src/knowledge/reports/health.js')>('knowledge/reports/health.js')
const { probeDocument } = await lib<typeof import('../../src/knowledge/reports/probe-query.js')>('knowledge/reports/probe-query.js')
const { probeInThreads, probeThreads } = await lib<typeof import('../../src/knowledge/reports/probe-threads.js')>('knowledge/reports/probe-threads.js')
const { KnowledgeStore } = await lib<typeof import('../../src/knowledge/store.js')>('knowledge/store.js')
const { createRedactor } = await lib<typeof import('../../src/redact/redactor.js')>('redact/redactor.js')
type KnowledgeStore = Store

const SESSION = 'session-4ea1b7e2-0000-4000-8000-000000000030'
const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })
const TOPICS = ['docker layer cache', 'postgres migration lock', 'pnpm fetch 404', 'vite hot reload', 'redis timeout', 'jest snapshot drift']
const stores: KnowledgeStore[] = []

async function base(cache: boolean): Promise<KnowledgeStore> {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-threads-')), 'kb')
  // An existing root: the persisted index is made only under one.
  mkdirSync(root)
  const store = new KnowledgeStore({ root, redactor, watch: false, cache })
  stores.push(store)
  await store.start()
  // Findable, unfindable and near-duplicate documents, in two workspaces.
  for (let k = 0; k < 48; k++) {
    const topic = TOPICS[k % TOPICS.length]
    const finding = k % 7 === 0 ? '…' : `${topic} fixed by step ${k % 4} of the ${topic} runbook; check ${k % 3 ? 'the logs' : 'the config'} first.`
    await store.write({
      kind: 'note',
      title: k % 7 === 0 ? '???' : `${topic} ${k % 5}`,
      cwd: k % 2 ? '/work/app' : '/work/api',
      session: SESSION,
      suffix: store.nextNoteSuffix(SESSION),
      sections: [{ heading: 'Finding', text: finding }],
    })
  }
  return store
}

const measured = (r: HealthReport) => ({ probed: r.probed, recall: r.recallAt5, mrr: r.mrr, unfindable: [r.unfindableTotal, r.unfindable], duplicates: [r.nearDuplicatesTotal, r.nearDuplicates] })

let persisted: KnowledgeStore
beforeAll(async () => {
  persisted = await base(true)
}, 120_000)
afterAll(async () => {
  for (const store of stores) await store.close()
})

describe('the probe in worker threads', () => {
  it('finds in workers, over the index file, what the store finds in its own thread', async () => {
    const docs: ProbedDoc[] = activeDocuments(persisted).map((m) => [m.id, m.title, m.cwd ?? ''])
    const here = docs.map((doc) => probeDocument({ text: (id) => persisted.text(id), search: (q, f) => persisted.search(q, f) }, doc, new Map()) ?? null)
    const shared = persisted.indexFile(() => {})!
    expect(shared).toBeDefined()
    const seen: number[] = []
    const there = await probeInThreads(shared.file, shared.options, docs, 3, (done) => seen.push(done)).results
    shared.release()
    expect(there).toEqual(here)
    expect(here.filter((r) => r && r.rank >= 0).length).toBeGreaterThan(20)
    expect(here.some((r) => r?.pairs.some(([, , similarity]) => similarity >= 0.8))).toBe(true)
    expect(seen.at(-1)).toBe(docs.length)
  }, 60_000)

  it('reports the same in workers as in the store thread, with progress from 0 to all', async () => {
    const progress: Array<[number, number]> = []
    const threaded = await probeHealth(persisted, { record: false, threads: 2, onProgress: (done, total) => progress.push([done, total]) })
    const single = await probeHealth(persisted, { record: false, threads: 0 })
    expect(measured(threaded)).toEqual(measured(single))
    expect(single.nearDuplicatesTotal).toBeGreaterThan(0)
    expect(progress[0]).toEqual([0, threaded.probed])
    expect(progress.at(-1)).toEqual([threaded.probed, threaded.probed])
  }, 60_000)

  it('probes an index in memory in the store thread', async () => {
    const memory = await base(false)
    expect(memory.indexFile(() => {})).toBeUndefined()
    expect(measured(await probeHealth(memory, { record: false, threads: 2 }))).toEqual(measured(await probeHealth(memory, { record: false, threads: 0 })))
  }, 120_000)

  it('ends its workers when the store closes under it', async () => {
    const store = await base(true)
    let closing: Promise<void> | undefined
    const probe = probeHealth(store, { record: false, threads: 2, onProgress: () => (closing ??= store.close()) })
    await expect(probe).rejects.toThrow(/closed during the health probe/)
    await closing
  }, 120_000)

  it('rejects when a worker cannot open the index, so that the caller probes in its own thread', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-threads-')), 'index-v4.sqlite')
    await expect(probeInThreads(missing, undefined, [['n-1', 'x', '']], 2, () => {}).results).rejects.toThrow(/cannot read/)
  })

  it('uses workers by default only for a large probe on four cores or more', () => {
    expect(probeThreads(10_000, undefined, 2)).toBe(0)
    expect(probeThreads(500, undefined, 8)).toBe(0)
    expect(probeThreads(10_000, undefined, 8)).toBe(4)
    expect(probeThreads(10, 3)).toBe(3)
    expect(probeThreads(10_000, 1)).toBe(0)
  })
})
