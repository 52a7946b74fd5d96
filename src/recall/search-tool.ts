/**
 * `knowledge_search`: BM25 over the visible documents, rendered compactly for the model.
 * @module dsh-knowledge-sync/recall/search-tool
 */
import type { SearchHit } from '../types.js'
import type { Change } from './read-state.js'

export const SEARCH_TOOL = 'knowledge_search'

/** BM25 scores are tiny in a small corpus (idf is clamped near 0): show significant digits, not `0.00`. */
export function formatScore(score: number): string {
  return score >= 0.01 ? score.toFixed(2) : score.toPrecision(2)
}

/** The line a hit or read gets when the session read an older revision of the document. */
export function changedLine(change: Change): string {
  return `changed since you read it: v:${change.from} → v:${change.to}; read it again before relying on it`
}

/**
 * The model-facing text: one block per hit (id with its revision, title, kind, tags, date, workspace, score,
 * snippet). `changedOf` names hits the session read at an older revision.
 */
export function renderHits(query: string, hits: SearchHit[], scope: string | undefined, changedOf?: (hit: SearchHit) => Change | undefined): string {
  const where = scope ? ` in ${scope}` : ''
  if (!hits.length) return `No knowledge documents match ${JSON.stringify(query.slice(0, 200))}${where}. Try other keywords, an identifier, or fewer words.`
  const lines = [`${hits.length} document(s) match ${JSON.stringify(query.slice(0, 200))}${where}. Read one in full with knowledge_read({"id": "<id>"}).`]
  hits.forEach((hit, k) => {
    const tags = hit.tags.length ? ` · tags: ${hit.tags.join(', ')}` : ''
    const ws = hit.cwd ? ` · ${hit.cwd}` : ''
    const version = hit.version ? ` (v:${hit.version})` : ''
    const status = hit.status === 'superseded' ? ` · superseded by ${hit.supersededBy ?? '?'}` : hit.status === 'retired' ? ' · retired' : ''
    lines.push('', `${k + 1}. ${hit.id}${version} — ${hit.title}`, `   ${hit.kind} · ${hit.created.slice(0, 10)}${ws}${tags} · score ${formatScore(hit.score)}${status}`)
    const change = changedOf?.(hit)
    if (change) lines.push(`   ${changedLine(change)}`)
    if (hit.snippet) lines.push(`   ${hit.snippet}`)
  })
  return lines.join('\n')
}
