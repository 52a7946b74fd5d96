/**
 * The person's preferences in the system prompt: the active `kind: preference` documents of the session's
 * workspace, listed by title (at most {@link MAX_PREFERENCES}, then a hint to search). Fixed at the session's first
 * request, like the pointer, so a preference recorded mid-session never changes the prompt prefix; it reaches the
 * next session.
 * @module dsh-knowledge-sync/recall/preferences
 */
import { promptSafe } from './pointer.js'

/** At most this many preferences are listed; the rest are found with knowledge_search. */
export const MAX_PREFERENCES = 20
/** Longest title shown per preference. */
const MAX_TITLE = 160

/** The preferences section for `items` (newest first) of `total`; '' when there are none. */
export function preferencesText(items: Array<{ id: string; title: string }>, total: number): string {
  if (!items.length) return ''
  const shown = items.slice(0, MAX_PREFERENCES)
  const lines = ['Preferences the person stated in earlier sessions of this workspace (follow them unless the person now says otherwise; knowledge_read an id for the exact words):']
  for (const item of shown) lines.push(`- ${item.id}: ${promptSafe(item.title).slice(0, MAX_TITLE)}`)
  if (total > shown.length) lines.push(`(${total - shown.length} more: knowledge_search with kind "preference")`)
  return lines.join('\n')
}
