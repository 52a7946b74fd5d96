/**
 * One document's health probe, on its own: the query built from its words, its search, where it ranks, and how much
 * its hits' words coincide with its own. Pure over a {@link ProbeSource}, so the store's thread and the probe's worker
 * threads (./probe-threads.ts) run the same code and report the same numbers. Imports the search engine only.
 * @module dsh-knowledge-sync/knowledge/reports/probe-query
 */
import { STOPWORDS } from '../../search/tokenize.js'
import type { SearchFilter, SearchHit } from '../../types.js'

/** Probe query size: the title plus this many words of the finding. */
const FINDING_WORDS = 12

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

/** What a probe reads: the indexed body of a document, and the store's search. */
export interface ProbeSource {
  text(id: string): string | undefined
  search(query: string, filter: SearchFilter): SearchHit[]
}

/** The document probed: its id, title and workspace. */
export type ProbedDoc = [id: string, title: string, cwd: string]

/** What one probe found: its own rank among the hits (-1: not there), and the word overlap with each candidate pair. */
export interface ProbeResult {
  rank: number
  query: string
  /** Hits in the same workspace, active, not the document itself: [id, title, Jaccard similarity]. */
  pairs: Array<[id: string, title: string, similarity: number]>
}

/**
 * Probes one document; undefined when it has no indexed body. `skip(hitId)`: a pair already measured (the caller's
 * thread knows; a worker measures every pair, and the caller drops the ones it has seen). `wordsOf` caches documents'
 * word sets across probes.
 */
export function probeDocument(source: ProbeSource, [id, title, cwd]: ProbedDoc, wordsOf: Map<string, Set<string>>, skip: (hitId: string) => boolean = () => false): ProbeResult | undefined {
  const body = source.text(id)
  if (body === undefined) return undefined
  const query = probeQuery(title, body)
  const hits = query ? source.search(query, { limit: 5, scope: cwd || undefined, bare: true }) : []
  // What search sees of a document (its indexed body: no comments, no link targets), not a read of its file: a full
  // probe of 10k documents read 10k files and recorded a revision check for each (~20% of its time).
  // Titles as the listing and the hits carry them (the index's own rows): no lookup per document.
  const docWords = (doc: string, docTitle: string, text = source.text(doc)): Set<string> => {
    let set = wordsOf.get(doc)
    if (!set) {
      set = new Set(text === undefined ? [] : words(`${docTitle} ${findingOf(text)}`))
      wordsOf.set(doc, set)
    }
    return set
  }
  const pairs: ProbeResult['pairs'] = []
  for (const hit of hits) {
    if (hit.id === id || (hit.cwd || '') !== (cwd || '') || (hit.status ?? 'active') !== 'active' || skip(hit.id)) continue
    pairs.push([hit.id, hit.title, jaccard(docWords(id, title, body), docWords(hit.id, hit.title))])
  }
  return { rank: hits.findIndex((h) => h.id === id), query, pairs }
}
