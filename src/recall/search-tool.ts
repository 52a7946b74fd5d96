/**
 * `knowledge_search`: BM25 over the visible documents, rendered compactly for the model.
 * @module dsh-knowledge-sync/recall/search-tool
 */
import type { KnowledgeStore } from '../knowledge/store.js'
import type { DocKind, SearchHit } from '../types.js'

export const SEARCH_TOOL = 'knowledge_search'
const KINDS: DocKind[] = ['raw', 'note', 'distilled', 'manual']
export const MAX_QUERY_LENGTH = 10_000
export const MAX_LIMIT = 50

export interface SearchArgs { query: string; kind?: DocKind; tag?: string; tool?: string; limit?: number }

/** Validates model- or CLI-supplied arguments; throws an Error whose message tells the caller what to fix. */
export function parseSearchArgs(raw: unknown, defaultLimit: number): SearchArgs {
  if (!raw || typeof raw !== 'object') throw new Error('arguments must be an object like {"query": "..."}')
  const args = raw as Record<string, unknown>
  if (typeof args.query !== 'string') throw new Error('"query" must be a string of keywords')
  const out: SearchArgs = { query: args.query.slice(0, MAX_QUERY_LENGTH), limit: defaultLimit }
  if (args.kind !== undefined && args.kind !== null && args.kind !== '') {
    if (!KINDS.includes(args.kind as DocKind)) throw new Error(`"kind" must be one of ${KINDS.join(', ')}`)
    out.kind = args.kind as DocKind
  }
  for (const key of ['tag', 'tool'] as const) {
    const value = args[key]
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string' || value.length > 200) throw new Error(`"${key}" must be a short string`)
    out[key] = value
  }
  if (args.limit !== undefined && args.limit !== null) {
    const limit = Number(args.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`"limit" must be an integer from 1 to ${MAX_LIMIT}`)
    out.limit = limit
  }
  return out
}

export function runSearch(store: KnowledgeStore, args: SearchArgs, scope: string | undefined): SearchHit[] {
  return store.search(args.query, { kind: args.kind, tag: args.tag, tool: args.tool, limit: args.limit, scope })
}

/** BM25 scores are tiny in a small corpus (idf is clamped near 0): show significant digits, not `0.00`. */
export function formatScore(score: number): string {
  return score >= 0.01 ? score.toFixed(2) : score.toPrecision(2)
}

/** The model-facing text: one block per hit (id, title, kind, tags, date, workspace, score, snippet). */
export function renderHits(query: string, hits: SearchHit[], scope: string | undefined): string {
  const where = scope ? ` in ${scope}` : ''
  if (!hits.length) return `No knowledge documents match ${JSON.stringify(query.slice(0, 200))}${where}. Try other keywords, an identifier, or fewer words.`
  const lines = [`${hits.length} document(s) match ${JSON.stringify(query.slice(0, 200))}${where}. Read one in full with knowledge_read({"id": "<id>"}).`]
  hits.forEach((hit, k) => {
    const tags = hit.tags.length ? ` · tags: ${hit.tags.join(', ')}` : ''
    const ws = hit.cwd ? ` · ${hit.cwd}` : ''
    lines.push('', `${k + 1}. ${hit.id} — ${hit.title}`, `   ${hit.kind} · ${hit.created.slice(0, 10)}${ws}${tags} · score ${formatScore(hit.score)}`)
    if (hit.snippet) lines.push(`   ${hit.snippet}`)
  })
  return lines.join('\n')
}
