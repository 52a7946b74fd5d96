/**
 * `knowledge_search`: BM25 over the visible documents, rendered compactly for the model.
 * @module dsh-knowledge-sync/recall/search-tool
 */
import type { SearchHit } from '../types.js'

export const SEARCH_TOOL = 'knowledge_search'

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
    const status = hit.status === 'superseded' ? ` · superseded by ${hit.supersededBy ?? '?'}` : hit.status === 'retired' ? ' · retired' : ''
    lines.push('', `${k + 1}. ${hit.id} — ${hit.title}`, `   ${hit.kind} · ${hit.created.slice(0, 10)}${ws}${tags} · score ${formatScore(hit.score)}${status}`)
    if (hit.snippet) lines.push(`   ${hit.snippet}`)
  })
  return lines.join('\n')
}
