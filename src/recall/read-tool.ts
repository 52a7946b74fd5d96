/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk
 * (the store's `readVisible` checks them). The output is built here, in one place, from named slots, so other
 * features add their lines (a revision, a changed-since-read note) without a second renderer. The text is bounded to
 * {@link OUTPUT_BUDGET}.knowledge_read characters; a longer document is read in parts with `offset`.
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { formatDocument } from '../knowledge/document.js'
import { frameSections } from '../knowledge/upstream.js'
import type { DocStatus, KnowledgeDoc } from '../types.js'
import { OUTPUT_BUDGET, withinBudget } from '../tool-output.js'

export const READ_TOOL = 'knowledge_read'

/** A related document as one line of the read output. */
export interface ReadLink { id: string; title: string; status?: DocStatus }

/** What the read output carries besides the document. Every slot is optional; absent slots add nothing. */
export interface ReadSlots {
  /** Lines right after the path (the place for a revision tag or a changed-since-read note). */
  notes?: string[]
  /** The successor of a superseded document: shown before the document, so it is not missed. */
  supersededBy?: ReadLink
  /** Documents this one replaces. */
  supersedes?: ReadLink[]
  /** Computed backlinks: documents that link here. */
  linkedFrom?: ReadLink[]
  /** The body to show instead of the file's (links written back as ids). */
  body?: string
}

const line = (l: ReadLink): string => `${l.id} — ${l.title.replace(/\s+/g, ' ')}${l.status && l.status !== 'active' ? ` (${l.status})` : ''}`

/** Validates the optional `offset` argument (characters into the document's text). */
export function parseOffset(raw: unknown): number {
  if (raw === undefined || raw === null) return 0
  const offset = Number(raw)
  if (!Number.isInteger(offset) || offset < 0) throw new Error('"offset" must be an integer >= 0 (the "offset" a cut knowledge_read answer named)')
  return offset
}

/**
 * The whole document, front matter included, so the model sees kind, date, tags and provenance; then the slots.
 * Synced upstream sections are framed as data quoted from their URL, not instructions. From `offset` on and within
 * `budget` characters, ending with where to continue when it is cut.
 */
export function renderDocument(doc: KnowledgeDoc, slots: ReadSlots = {}, offset = 0, budget: number = OUTPUT_BUDGET.knowledge_read): string {
  const head = [doc.path, ...(slots.notes ?? [])]
  if (slots.supersededBy) head.push(`Superseded by: ${line(slots.supersededBy)} (read that one first)`)
  const tail: string[] = []
  if (slots.supersedes?.length) tail.push(`Supersedes: ${slots.supersedes.map(line).join('; ')}`)
  if (slots.linkedFrom?.length) tail.push(`Linked from: ${slots.linkedFrom.map(line).join('; ')}`)
  const body = `${head.join('\n')}\n\n${formatDocument(doc.meta, frameSections(slots.body ?? doc.body))}`
  const full = tail.length ? `${body}\n${tail.join('\n')}` : body
  if (offset >= full.length && offset > 0) return `Document ${doc.id} has ${full.length} characters; offset ${offset} is past its end.`
  const text = offset ? `[${doc.id} from character ${offset} of ${full.length}]\n${full.slice(offset)}` : full
  const skew = offset ? text.length - (full.length - offset) : 0
  return withinBudget(text, budget, (shown) =>
    `[cut: the output of knowledge_read is bounded to ${budget} characters; ${full.length - offset - (shown - skew)} more. Continue with knowledge_read({"id": "${doc.id}", "offset": ${offset + shown - skew}})]`)
}
