/**
 * `knowledge_search`: BM25 over the visible documents, rendered compactly for the model, within
 * {@link OUTPUT_BUDGET}.knowledge_search characters whatever the documents hold.
 * @module dsh-knowledge-sync/recall/search-tool
 */
import type { SearchHit } from '../types.js'
import { boundLine } from '../knowledge/documents/document.js'
import { OUTPUT_BUDGET } from '../tool-output.js'
import type { Change } from './read-state.js'

export const SEARCH_TOOL = 'knowledge_search'

/** What one hit may show: a hand-written document cannot make its block long. */
export const HIT_LIMITS = { title: 200, tags: 8, tag: 40, cwd: 200, snippet: 600 }

/**
 * What the model is told when nothing matched: retry once, bridging the words itself (the index's own expansion is
 * lexical and weak; the model knows that 优雅退出 is a graceful shutdown). ~40 tokens.
 */
export const NO_HIT_HINT =
  'Search once more with synonyms or in the other language (English ↔ 中文: e.g. "graceful shutdown" ↔ "优雅退出"), ' +
  'or with an identifier or fewer words; if that finds nothing too, there is no record.'

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
 * snippet); `changedOf` names hits the session read at an older revision. Each field is bounded, and hits that would pass the budget are left out with a line saying how many and what to do.
 */
export function renderHits(query: string, hits: SearchHit[], scope: string | undefined, changedOf?: (hit: SearchHit) => Change | undefined, budget: number = OUTPUT_BUDGET.knowledge_search): string {
  const where = scope ? ` in ${boundLine(scope, HIT_LIMITS.cwd)}` : ''
  const asked = JSON.stringify(query.slice(0, 200))
  if (!hits.length) return `No knowledge documents match ${asked}${where}. ${NO_HIT_HINT}`
  const head = `${hits.length} document(s) match ${asked}${where}. Read one in full with knowledge_read({"id": "<id>"}).`
  const blocks: string[] = []
  // Room for the closing line that says hits were left out.
  let used = head.length + 160
  for (const [k, hit] of hits.entries()) {
    const shown = hit.tags.slice(0, HIT_LIMITS.tags).map((t) => boundLine(t, HIT_LIMITS.tag))
    const more = hit.tags.length > shown.length ? ` (+${hit.tags.length - shown.length})` : ''
    const tags = shown.length ? ` · tags: ${shown.join(', ')}${more}` : ''
    const ws = hit.cwd ? ` · ${boundLine(hit.cwd, HIT_LIMITS.cwd)}` : ''
    const status = hit.status === 'superseded' ? ` · superseded by ${hit.supersededBy ?? '?'}` : hit.status === 'retired' ? ' · retired' : ''
    const version = hit.version ? ` (v:${hit.version})` : ''
    const lines = [
      '',
      `${k + 1}. ${hit.id}${version} — ${boundLine(hit.title, HIT_LIMITS.title)}`,
      `   ${hit.kind} · ${hit.created.slice(0, 10)}${ws}${tags} · score ${formatScore(hit.score)}${status}`,
    ]
    const change = changedOf?.(hit)
    if (change) lines.push(`   ${changedLine(change)}`)
    if (hit.snippet) lines.push(`   ${boundLine(hit.snippet, HIT_LIMITS.snippet)}`)
    const block = lines.join('\n')
    if (used + block.length > budget) {
      blocks.push('', `${hits.length - k} more hit(s) left out: the output of knowledge_search is bounded to ${budget} characters. Narrow the query or lower "limit".`)
      break
    }
    used += block.length
    blocks.push(block)
  }
  return [head, ...blocks].join('\n')
}
