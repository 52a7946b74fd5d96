/**
 * Refusals in people's words. The store's errors are written for the model as well ("…; use knowledge_search to
 * find ids"): a tool's name means nothing to a person on the page. Every error answer of the routes passes
 * {@link peopleWords} (advice that names a tool is left out, a tool named inside the sentence becomes what it does
 * for a person) and carries a `code` the page translates (`forbidden`, `not-found`, `conflict`, `too-large`,
 * `invalid`), so the lead sentence of an error is in the page's language.
 * @module dsh-knowledge-sync/http/words
 */

/** A tool's name as it appears in a message: the store's tools and the originals' tools. */
const TOOL = /\b(?:knowledge_[a-z_]+|list_sources|extract_text|save_to_sources|download_to_sources|request_file|retire_source)\b/g
const HAS_TOOL = new RegExp(TOOL.source)

/** What a tool does, in a person's words, where a message names one inside its main sentence. */
const PEOPLE_TERMS: Record<string, string> = {
  knowledge_search: 'a search',
  knowledge_read: 'the document',
  knowledge_index: 'the wiki index',
  knowledge_note: 'a note',
  knowledge_supersede: 'supersede',
  knowledge_retire: 'retire',
  list_sources: 'the Originals list',
}

/** The error codes the page translates. */
export type ErrorCode = 'forbidden' | 'not-found' | 'conflict' | 'too-large' | 'invalid'

/** `message` without the advice addressed to the model. */
export function peopleWords(message: string): string {
  // A parenthetical that names a tool is an aside for the model: "(list_sources lists them)".
  let text = message.replace(/\s*\([^()]*\)/g, (aside) => (HAS_TOOL.test(aside) ? '' : aside))
  // After the first clause, a clause that names a tool tells the model what to call next.
  const clauses = text.split(/;\s+/)
  text = [clauses[0], ...clauses.slice(1).filter((clause) => !HAS_TOOL.test(clause))].join('; ')
  text = text.replace(TOOL, (name) => PEOPLE_TERMS[name] ?? name.replace(/^knowledge_/, '').replaceAll('_', ' '))
  return text.replace(/\s+([,.;])/g, '$1').trim()
}

/** `text` without its paragraphs that are an aside to the model naming a tool ("(More follows: call extract_text …)"). */
export function withoutToolAdvice(text: string): string {
  return text
    .split(/\n{2,}/)
    .filter((paragraph) => !(/^\([\s\S]*\)$/.test(paragraph.trim()) && HAS_TOOL.test(paragraph)))
    .join('\n\n')
}

/** An error of a route with the HTTP status it answers with. */
export class RouteError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'RouteError'
  }
}

const NOT_FOUND = /^(?:"[^"]*": )?no document\b|\bis not an original\b|\bno such (?:file|original)\b|\bwas removed from disk\b/

/** The status an error answers with: its own, 409 for a revision conflict, 404 for what is not there, else 400. */
export function statusOf(error: unknown): number {
  const e = error as { status?: unknown; name?: unknown; message?: unknown }
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 600) return e.status
  // A revision conflict, or a document that exists but is not edited in place: the edit is what is refused.
  if (e?.name === 'RevisionConflict' || e?.name === 'NotEditable') return 409
  if (typeof e?.message === 'string' && NOT_FOUND.test(e.message)) return 404
  return 400
}

function codeOf(status: number): ErrorCode {
  if (status === 403) return 'forbidden'
  if (status === 404) return 'not-found'
  if (status === 409) return 'conflict'
  if (status === 413) return 'too-large'
  return 'invalid'
}

/** An error answer as the routes send it: the message in people's words and its code. */
export function errorAnswer<T extends { error: string }>(status: number, body: T): T & { code: ErrorCode } {
  return { ...body, error: peopleWords(body.error), code: codeOf(status) }
}
