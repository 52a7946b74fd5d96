/**
 * The output declaration shared by this bundle's tools: each returns an object with a `text` field for the model
 * (and structured fields for presentation), rendered as one text block. Every tool also has a hard budget for that
 * text, in characters, stated in its description, so no document (hand-written or huge) can flood the context.
 * Also how a tool finds the session it runs in ({@link sessionOf}).
 * @module dsh-knowledge-sync/tool-output
 */
import type { SessionLike } from './types.js'

export const TEXT_OUTPUT = {
  schema: { type: 'object' as const },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: String((value as { text?: unknown } | null)?.text ?? '') }],
}

/** Hard output budgets of the tools' `text`, in characters (about 4 characters a token for English). */
export const OUTPUT_BUDGET = {
  knowledge_search: 12_000,
  knowledge_read: 24_000,
  knowledge_note: 600,
  /** The wiki catalogue stays within the search budget: a larger wiki is summarised by section and paged. */
  knowledge_index: 12_000,
} as const

/** `text` within `max` characters: cut at a line end when one is near, never inside a surrogate pair, with `note`. */
export function withinBudget(text: string, max: number, note: (shown: number) => string): string {
  if (text.length <= max) return text
  const room = Math.max(max - note(text.length).length - 32, 0)
  let end = room
  const newline = text.lastIndexOf('\n', room)
  if (newline > 0 && newline > room - 400) end = newline
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${text.slice(0, end)}\n${note(end)}`
}

/** The session of a tool call's (or a prompt assembly's) agent, when it has one. */
export function sessionOf(agent: unknown): SessionLike | undefined {
  return (agent as { session?: SessionLike } | undefined)?.session
}
