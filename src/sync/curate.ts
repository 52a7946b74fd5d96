/**
 * `knowledge_curate`: the agent's side of curation. `list` shows pending URLs found by discover; `decide` sets a
 * verdict (`in-use` with a target, or `rejected`) recorded as `decided_by: agent`, never over a locked human one,
 * and only for URLs discover already recorded.
 * @module dsh-knowledge-sync/sync/curate
 */
import type { Decisions } from './decisions.js'

export const CURATE_TOOL = 'knowledge_curate'
const MAX_LIST = 100

export const CURATE_PARAMETERS = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['list', 'decide'], description: '"list" pending URLs, or "decide" one.' },
    url: { type: 'string', description: 'decide: the URL, exactly as listed.' },
    verdict: { type: 'string', enum: ['in-use', 'rejected'], description: 'decide: keep it synced into a document section, or reject it.' },
    target_file: { type: 'string', description: 'in-use: the document under the knowledge root, e.g. "vendor/api.md" (it must have the section markers).' },
    target_section: { type: 'string', description: 'in-use: the section name in <!-- upstream:start name="…" -->.' },
    reason: { type: 'string', description: 'decide: one sentence why.' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: 'list: how many (default 20).' },
  },
  required: ['action'],
  additionalProperties: false,
} as const

/** Runs one call; returns the model-facing text. Throws with a message saying what to fix. */
export async function curate(decisions: Decisions, raw: unknown): Promise<{ text: string }> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('arguments must be an object with "action"')
  const args = raw as Record<string, unknown>
  if (args.action === 'list') {
    const limit = Math.min(Math.max(Number(args.limit) || 20, 1), MAX_LIST)
    const { decisions: all } = await decisions.read()
    const pending = all.filter((d) => d.status === 'pending')
    if (!pending.length) return { text: 'No pending URLs. (Run `dsh-knowledge discover` to find new ones.)' }
    const lines = pending.slice(0, limit).map((d) => `- ${d.url}${d.root ? ` (root ${d.root})` : ''}`)
    return { text: `${pending.length} pending URL(s)${pending.length > limit ? `, first ${limit}` : ''}:\n${lines.join('\n')}\nDecide one with action "decide".` }
  }
  if (args.action !== 'decide') throw new Error('"action" must be "list" or "decide"')
  if (typeof args.url !== 'string' || !args.url.trim()) throw new Error('"url" is required to decide')
  if (args.verdict !== 'in-use' && args.verdict !== 'rejected') throw new Error('"verdict" must be "in-use" or "rejected"')
  // The agent curates what discover found; it cannot introduce a URL (a page it read could ask it to add one that
  // leaks data in its query string). A person can promote any URL.
  let url: string
  try {
    url = new URL(args.url.trim()).href
  } catch {
    throw new Error(`"url" is not a URL: ${args.url.trim().slice(0, 200)}`)
  }
  if (!(await decisions.read()).decisions.some((d) => d.url === url))
    throw new Error(`${url} was not found by discover; only listed URLs can be curated (a person can add others with \`dsh-knowledge promote\`)`)
  const target = args.verdict === 'in-use' ? { file: String(args.target_file ?? ''), section: String(args.target_section ?? '') } : undefined
  const decided = await decisions.decide({ url, status: args.verdict, by: 'agent', reason: typeof args.reason === 'string' ? args.reason : undefined, target })
  return { text: `Recorded: ${decided.url} is ${decided.status}${decided.target_file ? ` → ${decided.target_file}#${decided.target_section}` : ''}. A person may still override it.` }
}
