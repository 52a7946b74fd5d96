/**
 * Planning a section replacement in a target document's text: which bytes change, and nothing else. The body
 * between `<!-- upstream:start name="…" -->` and `<!-- upstream:end -->` is replaced; every byte outside (front
 * matter, CRLF line endings, a missing final newline, other sections) is kept as it is.
 * @module dsh-knowledge-sync/sync/markers
 */
import { findSections, MarkerError, sectionBody } from '../knowledge/documents/upstream.js'

export { findSections, MarkerError, neutralize, sectionBody } from '../knowledge/documents/upstream.js'

export type SectionPlan = { status: 'marker-error' | 'missing-section'; reason: string } | { status: 'planned'; start: number; end: number; before: string; body: string }

/** Where `section`'s body is in `text` and the body to write there (not yet redacted). */
export function planSection(text: string, section: string, source: string, content: string): SectionPlan {
  let sections
  try {
    sections = findSections(text)
  } catch (error) {
    if (error instanceof MarkerError) return { status: 'marker-error', reason: error.message }
    throw error
  }
  const found = sections.find((s) => s.name === section)
  if (!found) {
    const names = sections.map((s) => JSON.stringify(s.name)).join(', ')
    return { status: 'missing-section', reason: `no <!-- upstream:start name="${section}" --> section${names ? ` (the file has ${names})` : ''}` }
  }
  return { status: 'planned', start: found.bodyStart, end: found.bodyEnd, before: text.slice(found.bodyStart, found.bodyEnd), body: sectionBody(source, content, found.eol) }
}

/** `text` with the span replaced. */
export function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end)
}
