/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk
 * (the store's `readVisible` checks them). The text is bounded to {@link OUTPUT_BUDGET}.knowledge_read characters;
 * a longer document is read in parts with `offset`.
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { formatDocument } from '../knowledge/document.js'
import type { KnowledgeDoc } from '../types.js'
import { OUTPUT_BUDGET, withinBudget } from '../tool-output.js'

export const READ_TOOL = 'knowledge_read'

/** Validates the optional `offset` argument (characters into the document's text). */
export function parseOffset(raw: unknown): number {
  if (raw === undefined || raw === null) return 0
  const offset = Number(raw)
  if (!Number.isInteger(offset) || offset < 0) throw new Error('"offset" must be an integer >= 0 (the "offset" a cut knowledge_read answer named)')
  return offset
}

/**
 * The whole document, front matter included, so the model sees kind, date, tags and provenance; from `offset` on and
 * within `budget` characters, ending with where to continue when it is cut.
 */
export function renderDocument(doc: KnowledgeDoc, offset = 0, budget: number = OUTPUT_BUDGET.knowledge_read): string {
  const full = `${doc.path}\n\n${formatDocument(doc.meta, doc.body)}`
  if (offset >= full.length && offset > 0) return `Document ${doc.id} has ${full.length} characters; offset ${offset} is past its end.`
  const text = offset ? `[${doc.id} from character ${offset} of ${full.length}]\n${full.slice(offset)}` : full
  const skew = offset ? text.length - (full.length - offset) : 0
  return withinBudget(text, budget, (shown) =>
    `[cut: the output of knowledge_read is bounded to ${budget} characters; ${full.length - offset - (shown - skew)} more. Continue with knowledge_read({"id": "${doc.id}", "offset": ${offset + shown - skew}})]`)
}
