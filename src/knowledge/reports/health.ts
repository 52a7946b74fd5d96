/**
 * How findable the base is, measured without a model: every active document is searched for with a query built from
 * its own title and the first words of its finding (or answer), in its own workspace. Reported: recall@5 and MRR over
 * those probes, the documents their own words do not find, near-duplicate pairs (a document and a hit of its own
 * probe whose words mostly coincide), and growth per day from the ledger (kept and dropped, by reason). Each run is
 * appended to `<root>/.knowledge/health.jsonl`, so the page can draw recall over time without probing again.
 * @module dsh-knowledge-sync/knowledge/reports/health
 */
import { join } from 'node:path'
import type { HealthHistoryPoint, HealthReport, GrowthDay } from '../../wire.js'
import { appendRootStateFile, readRootStateFile } from '../disk/root-files.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import { eachListed, LIST_PAGE, listedPagesWithTurns } from '../pager.js'
import type { IndexedMeta, KnowledgeStore } from '../store.js'
import { type ProbedDoc, type ProbeResult, type ProbeSource, probeDocument } from './probe-query.js'
import { cloneableOptions, probeInThreads, probeThreads } from './probe-threads.js'

export { growthOf } from '../logs/ledger.js'
export { findingOf, probeQuery } from './probe-query.js'

export const HEALTH_FILE = 'health.jsonl'
/** Word overlap (Jaccard) above which two documents are near-duplicates. */
export const NEAR_DUPLICATE = 0.8
/** The longest the probe keeps the event loop before giving it a turn. */
const PROBE_SLICE_MS = 8
/** How many unfindable documents and duplicate pairs a report lists. */
const LIST_LIMIT = 50

export interface ProbeOptions {
  /** Only documents visible from this workspace. */
  scope?: string
  /** Probe at most this many documents (an even, deterministic sample); default all. */
  sample?: number
  /** Append the result to the health history (default true). */
  record?: boolean
  /** Called as documents are probed with how many are done of how many (the page shows "n of N"). */
  onProgress?(done: number, total: number): void
  /** Worker threads to probe in (default: one per core, up to 4, from 4 cores and 1,000 documents); 0 or 1: the store's thread. */
  threads?: number
}

/** Every active document visible from `scope`, in the list's order. */
export function activeDocuments(store: KnowledgeStore, scope?: string): IndexedMeta[] {
  return [...eachListed(store, { scope, status: 'active' })]
}

/**
 * An even, deterministic sample of at most `sample` active documents (all of them without one), and how many there
 * are. The sample is picked while the list is read: the documents not picked are never held together. Holding all of
 * them was the largest transient heap of a long-lived process (100k documents: ~57 MB, every sampled probe), and V8
 * keeps the pages of such a peak resident after it is collected. The list is read a page at a time with a turn of the
 * event loop between pages (`size` documents a page): read in one piece it held the loop ~0.4 s at 36k documents,
 * the longest block the soak bench found.
 */
export async function sampledDocuments(store: KnowledgeStore, scope: string | undefined, sample?: number, size = LIST_PAGE): Promise<{ docs: IndexedMeta[]; documents: number }> {
  const filter = { scope, status: 'active' } as const
  const total = sample ? store.count(filter) : 0
  const step = sample && total > sample ? total / sample : 1
  const docs: IndexedMeta[] = []
  let documents = 0
  for await (const page of listedPagesWithTurns(store, filter, size)) {
    for (const meta of page) {
      // The k-th pick is the document at floor(k × step): step ≥ 1, so one position per pick.
      if (step === 1 || (docs.length < (sample as number) && documents === Math.floor(docs.length * step))) docs.push(meta)
      documents++
    }
  }
  return { docs, documents }
}

/** Runs the probe over the active documents and returns the report (and records it, unless told not to). */
export async function probeHealth(store: KnowledgeStore, options: ProbeOptions = {}): Promise<HealthReport> {
  const started = Date.now()
  await store.start()
  // Superseded documents are down-ranked on purpose, retired ones out of search: only active ones are probed.
  const { docs, documents } = await sampledDocuments(store, options.scope, options.sample)
  const probes: ProbedDoc[] = docs.map((meta) => [meta.id, meta.title, meta.cwd ?? ''])
  const results = (await probeThreaded(store, probes, options)) ?? (await probeHere(store, probes, options))
  let found = 0,
    reciprocal = 0
  const unfindable: HealthReport['unfindable'] = []
  // Counted past the lists' cap, so a report never shows its cap as the total.
  let unfindableTotal = 0
  let duplicatesTotal = 0
  const duplicates: HealthReport['nearDuplicates'] = []
  const pairSeen = new Set<string>()
  docs.forEach((meta, i) => {
    const result = results[i]
    if (!result) return
    if (result.rank >= 0) {
      found++
      reciprocal += 1 / (result.rank + 1)
    } else if (++unfindableTotal <= LIST_LIMIT) unfindable.push({ id: meta.id, title: meta.title, query: result.query })
    for (const [id, title, similarity] of result.pairs) {
      const key = pairKey(meta.id, id)
      if (pairSeen.has(key)) continue
      pairSeen.add(key)
      if (similarity >= NEAR_DUPLICATE && ++duplicatesTotal <= LIST_LIMIT) duplicates.push({ a: meta.id, b: id, aTitle: meta.title, bTitle: title, similarity: Math.round(similarity * 100) / 100 })
    }
  })
  options.onProgress?.(docs.length, docs.length)
  const probed = docs.length
  const report: HealthReport = {
    at: new Date().toISOString(),
    scope: options.scope ?? null,
    documents,
    probed,
    recallAt5: probed ? Math.round((found / probed) * 1000) / 1000 : 1,
    mrr: probed ? Math.round((reciprocal / probed) * 1000) / 1000 : 1,
    unfindable,
    unfindableTotal,
    nearDuplicates: duplicates,
    nearDuplicatesTotal: duplicatesTotal,
    growth: await store.ledger.growth(),
    history: [],
    ms: Date.now() - started,
  }
  if (options.record !== false) await recordHealth(store.root, report)
  report.history = await healthHistory(store.root, options.scope)
  return report
}

const pairKey = (a: string, b: string): string => (a < b ? `${a} ${b}` : `${b} ${a}`)

/**
 * The probe in worker threads over the persisted index file (./probe-threads.ts); undefined when it cannot run there
 * (an index in memory, a small probe, options a worker cannot get) or a worker failed: the store's thread probes then.
 */
async function probeThreaded(store: KnowledgeStore, docs: ProbedDoc[], options: ProbeOptions): Promise<Array<ProbeResult | null> | undefined> {
  const threads = probeThreads(docs.length, options.threads)
  if (!threads) return undefined
  let end = () => {}
  let closed = false
  const shared = store.indexFile(() => {
    closed = true
    end()
  })
  if (!shared || !cloneableOptions(shared.options)) return void shared?.release()
  try {
    const probe = probeInThreads(shared.file, shared.options, docs, threads, (done) => options.onProgress?.(done, docs.length))
    end = probe.end
    options.onProgress?.(0, docs.length)
    return await probe.results
  } catch {
    // The store closed under the probe: there is nothing left to probe in this thread either.
    if (closed) throw new Error('the knowledge store closed during the health probe')
    return undefined
  } finally {
    shared.release()
  }
}

/** The probe in the store's thread, a turn for the event loop every few milliseconds. */
async function probeHere(store: KnowledgeStore, docs: ProbedDoc[], options: ProbeOptions): Promise<Array<ProbeResult | undefined>> {
  const source: ProbeSource = { text: (id) => store.text(id), search: (query, filter) => store.search(query, filter) }
  const wordsOf = new Map<string, Set<string>>()
  const pairSeen = new Set<string>()
  const results: Array<ProbeResult | undefined> = []
  let turn = performance.now()
  for (const doc of docs) {
    options.onProgress?.(results.length, docs.length)
    // The searches are synchronous: a probe of 500 long queries held the loop for 7-12 s at a time in one piece (the
    // soak bench's lag max) while dsh web served nothing else.
    if (performance.now() - turn > PROBE_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      turn = performance.now()
    }
    // A pair seen from its other document is not measured again (the aggregation drops it anyway).
    const result = probeDocument(source, doc, wordsOf, (hit) => pairSeen.has(pairKey(doc[0], hit)))
    for (const [id] of result?.pairs ?? []) pairSeen.add(pairKey(doc[0], id))
    results.push(result)
  }
  return results
}

async function recordHealth(root: string, report: HealthReport): Promise<void> {
  const point: HealthHistoryPoint = { at: report.at, scope: report.scope, documents: report.documents, probed: report.probed, recallAt5: report.recallAt5, mrr: report.mrr }
  appendRootStateFile(root, join(root, LEDGER_DIR, HEALTH_FILE), JSON.stringify(point) + '\n')
}

/** Earlier probe results for one scope, oldest first (at most the last 365). */
export async function healthHistory(root: string, scope: string | undefined): Promise<HealthHistoryPoint[]> {
  let text = ''
  try {
    text = readRootStateFile(root, join(root, LEDGER_DIR, HEALTH_FILE)) ?? ''
    if (!text) return []
  } catch {
    return []
  }
  const points: HealthHistoryPoint[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const point = JSON.parse(line) as HealthHistoryPoint
      if ((point.scope ?? null) === (scope ?? null)) points.push(point)
    } catch {
      /* a torn line */
    }
  }
  return points.slice(-365)
}

/** What the page shows without probing again: the last recorded probe, its history and the growth. */
export async function healthSummary(store: KnowledgeStore, scope: string | undefined): Promise<{ history: HealthHistoryPoint[]; growth: GrowthDay[]; documents: number }> {
  await store.start()
  return { history: await healthHistory(store.root, scope), growth: await store.ledger.growth(), documents: store.count({ scope }) }
}
