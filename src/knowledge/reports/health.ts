/**
 * How findable the base is, measured without a model: every active document is searched for with a query built from
 * its own title and the first words of its finding (or answer), in its own workspace. Reported: recall@5 and MRR over
 * those probes, the documents their own words do not find, near-duplicate pairs (a document and a hit of its own
 * probe whose words mostly coincide), and growth per day from the ledger (kept and dropped, by reason). Each run is
 * appended to `<root>/.knowledge/health.jsonl`, so the page can draw recall over time without probing again.
 * @module dsh-knowledge-sync/knowledge/reports/health
 */
import { join } from 'node:path'
import { STOPWORDS } from '../../search/tokenize.js'
import type { HealthHistoryPoint, HealthReport, GrowthDay } from '../../wire.js'
import { appendRootStateFile, readRootStateFile } from '../disk/root-files.js'
import { LEDGER_DIR, type LedgerEntry } from '../logs/ledger.js'
import { eachListed } from '../pager.js'
import type { IndexedMeta, KnowledgeStore } from '../store.js'

export const HEALTH_FILE = 'health.jsonl'
/** Probe query size: the title plus this many words of the finding. */
const FINDING_WORDS = 12
/** Word overlap (Jaccard) above which two documents are near-duplicates. */
export const NEAR_DUPLICATE = 0.8
/** The longest the probe keeps the event loop before giving it a turn. */
const PROBE_SLICE_MS = 8
/** How many unfindable documents and duplicate pairs a report lists. */
const LIST_LIMIT = 50

const WORD = /[\p{L}\p{N}_]+(?:[.\-/][\p{L}\p{N}_]+)*/gu

/** The words of a text, lowercased, stopwords dropped. */
function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w))
}

/** The body section a document's knowledge lives in: Finding (notes), else Answer (rounds), else the whole body. */
export function findingOf(body: string): string {
  for (const heading of ['Finding', 'Answer']) {
    const match = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(body)
    if (match) return match[1].trim()
  }
  return body.replace(/^# .*$/m, '').trim()
}

/** The probe query of a document: its title and the first words of its finding, no model involved. */
export function probeQuery(title: string, body: string): string {
  const seen = new Set<string>()
  const out: string[] = []
  for (const w of [...words(title), ...words(findingOf(body)).slice(0, FINDING_WORDS)])
    if (!seen.has(w)) {
      seen.add(w)
      out.push(w)
    }
  return out.join(' ')
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let both = 0
  for (const w of a) if (b.has(w)) both++
  return both / (a.size + b.size - both || 1)
}

/** Kept and dropped rounds per UTC day, with drop reasons, from the ledger. */
export function growthOf(entries: ReadonlyArray<LedgerEntry & { t?: string }>): GrowthDay[] {
  const days = new Map<string, GrowthDay>()
  for (const entry of entries) {
    if (entry.type !== 'kept' && entry.type !== 'dropped' && entry.type !== 'note') continue
    const day = (entry.t ?? '').slice(0, 10)
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) continue
    const g = days.get(day) ?? { day, kept: 0, dropped: 0, notes: 0, reasons: {} }
    if (entry.type === 'kept') g.kept++
    else if (entry.type === 'note') g.notes++
    else {
      g.dropped++
      const r = entry.reasons?.[0] ?? '-weak-signal'
      g.reasons[r] = (g.reasons[r] ?? 0) + 1
    }
    days.set(day, g)
  }
  return [...days.values()].sort((x, y) => x.day.localeCompare(y.day))
}

export interface ProbeOptions {
  /** Only documents visible from this workspace. */
  scope?: string
  /** Probe at most this many documents (an even, deterministic sample); default all. */
  sample?: number
  /** Append the result to the health history (default true). */
  record?: boolean
  /** Called after each probed document with how many are done of how many (the page shows "n of N"). */
  onProgress?(done: number, total: number): void
}

/** Every active document visible from `scope`, in the list's order. */
export function activeDocuments(store: KnowledgeStore, scope?: string): IndexedMeta[] {
  return [...eachListed(store, { scope, status: 'active' })]
}

/** Runs the probe over the active documents and returns the report (and records it, unless told not to). */
export async function probeHealth(store: KnowledgeStore, options: ProbeOptions = {}): Promise<HealthReport> {
  const started = Date.now()
  await store.start()
  // Superseded documents are down-ranked on purpose, retired ones out of search: only active ones are probed.
  const all = activeDocuments(store, options.scope)
  const step = options.sample && all.length > options.sample ? all.length / options.sample : 1
  const docs = step === 1 ? all : Array.from({ length: options.sample! }, (_, k) => all[Math.floor(k * step)])
  let found = 0,
    reciprocal = 0
  const unfindable: HealthReport['unfindable'] = []
  // Counted past the lists' cap, so a report never shows its cap as the total.
  let unfindableTotal = 0
  let duplicatesTotal = 0
  const duplicates: HealthReport['nearDuplicates'] = []
  const pairSeen = new Set<string>()
  const wordsOf = new Map<string, Set<string>>()
  // What search sees of a document (its indexed body: no comments, no link targets), not a read of its file: a full
  // probe of 10k documents read 10k files and recorded a revision check for each (~20% of its time).
  const docWords = async (id: string) => {
    let set = wordsOf.get(id)
    if (!set) {
      const body = store.text(id)
      set = new Set(body === undefined ? [] : words(`${store.get(id)?.title ?? ''} ${findingOf(body)}`))
      wordsOf.set(id, set)
    }
    return set
  }
  let turn = performance.now()
  let done = 0
  for (const meta of docs) {
    options.onProgress?.(done++, docs.length)
    // A turn for the event loop every few milliseconds: the searches are synchronous, and a probe of 500 long queries
    // held the loop for 7-12 s at a time in one piece (the soak bench's lag max) while dsh web served nothing else.
    if (performance.now() - turn > PROBE_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      turn = performance.now()
    }
    const body = store.text(meta.id)
    if (body === undefined) continue
    const query = probeQuery(meta.title, body)
    const hits = query ? store.search(query, { limit: 5, scope: meta.cwd || undefined, bare: true }) : []
    const rank = hits.findIndex((h) => h.id === meta.id)
    if (rank >= 0) {
      found++
      reciprocal += 1 / (rank + 1)
    } else if (++unfindableTotal <= LIST_LIMIT) unfindable.push({ id: meta.id, title: meta.title, query })
    const own = await docWords(meta.id)
    for (const hit of hits) {
      if (hit.id === meta.id || (hit.cwd || '') !== (meta.cwd || '') || (hit.status ?? 'active') !== 'active') continue
      const key = [meta.id, hit.id].sort().join(' ')
      if (pairSeen.has(key)) continue
      pairSeen.add(key)
      const similarity = jaccard(own, await docWords(hit.id))
      if (similarity >= NEAR_DUPLICATE && ++duplicatesTotal <= LIST_LIMIT)
        duplicates.push({ a: meta.id, b: hit.id, aTitle: meta.title, bTitle: hit.title, similarity: Math.round(similarity * 100) / 100 })
    }
  }
  options.onProgress?.(docs.length, docs.length)
  const probed = docs.length
  const report: HealthReport = {
    at: new Date().toISOString(),
    scope: options.scope ?? null,
    documents: all.length,
    probed,
    recallAt5: probed ? Math.round((found / probed) * 1000) / 1000 : 1,
    mrr: probed ? Math.round((reciprocal / probed) * 1000) / 1000 : 1,
    unfindable,
    unfindableTotal,
    nearDuplicates: duplicates,
    nearDuplicatesTotal: duplicatesTotal,
    growth: growthOf(await store.ledger.entries()),
    history: [],
    ms: Date.now() - started,
  }
  if (options.record !== false) await recordHealth(store.root, report)
  report.history = await healthHistory(store.root, options.scope)
  return report
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
  return { history: await healthHistory(store.root, scope), growth: growthOf(await store.ledger.entries()), documents: store.count({ scope }) }
}
