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

/** Longest quote shown per preference. */
const MAX_QUOTE = 100

/**
 * The person's words a preference was recorded from: the first line of its `## Quote` section (written `> …`), or
 * undefined (a hand-written preference may have none).
 */
export function quoteOf(body: string | undefined): string | undefined {
  const match = /^## Quote\n\n> ?([^\n]+)/m.exec(body ?? '')
  return match ? match[1].trim() : undefined
}

/**
 * The preferences section for `items` (newest first) of `total`; '' when there are none. Each line shows the title
 * the model gave and the person's own words next to it, so a title that says more than the person did is visible.
 */
export function preferencesText(items: Array<{ id: string; title: string; quote?: string }>, total: number): string {
  if (!items.length) return ''
  const shown = items.slice(0, MAX_PREFERENCES)
  const lines = ['Preferences the person stated in earlier sessions of this workspace (follow them unless the person now says otherwise; the quote is what the person said):']
  for (const item of shown) {
    const quote = item.quote ? ` (the person: "${promptSafe(item.quote).slice(0, MAX_QUOTE)}${item.quote.length > MAX_QUOTE ? '…' : ''}")` : ''
    lines.push(`- ${item.id}: ${promptSafe(item.title).slice(0, MAX_TITLE)}${quote}`)
  }
  if (total > shown.length) lines.push(`(${total - shown.length} more: knowledge_search with kind "preference")`)
  return lines.join('\n')
}
