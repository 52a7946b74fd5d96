/**
 * `knowledge_search`: BM25 over the visible documents, rendered compactly for the model.
 * @module dsh-knowledge-sync/recall/search-tool
 */
import type { SearchHit } from '../types.js'

export const SEARCH_TOOL = 'knowledge_search'

/**
 * What the model is told when nothing matched: retry once, bridging the words itself (the index's own expansion is
 * lexical and weak; the model knows that 优雅退出 is a graceful shutdown). ~40 tokens.
 */
export const NO_HIT_HINT = 'Search once more with synonyms or in the other language (English ↔ 中文: e.g. "graceful shutdown" ↔ "优雅退出"), '
  + 'or with an identifier or fewer words; if that finds nothing too, there is no record.'

/** BM25 scores are tiny in a small corpus (idf is clamped near 0): show significant digits, not `0.00`. */
export function formatScore(score: number): string {
  return score >= 0.01 ? score.toFixed(2) : score.toPrecision(2)
}

/** The model-facing text: one block per hit (id, title, kind, tags, date, workspace, score, snippet). */
export function renderHits(query: string, hits: SearchHit[], scope: string | undefined): string {
  const where = scope ? ` in ${scope}` : ''
  if (!hits.length) return `No knowledge documents match ${JSON.stringify(query.slice(0, 200))}${where}. ${NO_HIT_HINT}`
  const lines = [`${hits.length} document(s) match ${JSON.stringify(query.slice(0, 200))}${where}. Read one in full with knowledge_read({"id": "<id>"}).`]
  hits.forEach((hit, k) => {
    const tags = hit.tags.length ? ` · tags: ${hit.tags.join(', ')}` : ''
    const ws = hit.cwd ? ` · ${hit.cwd}` : ''
    lines.push('', `${k + 1}. ${hit.id} — ${hit.title}`, `   ${hit.kind} · ${hit.created.slice(0, 10)}${ws}${tags} · score ${formatScore(hit.score)}`)
    if (hit.snippet) lines.push(`   ${hit.snippet}`)
  })
  return lines.join('\n')
}
