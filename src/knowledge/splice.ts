/**
 * Edits of a document's file text where only the inserted texts are new: each is redacted, every other byte stays
 * as it is (upstream sections synced into a hand-edited file).
 * @module dsh-knowledge-sync/knowledge/splice
 */
import type { Redactor } from '../redact/redactor.js'

/** One replaced span of the text and what goes in its place. */
export interface TextEdit { start: number; end: number; text: string }

/** `text` with `edits` applied (last first, so earlier offsets hold), each inserted text redacted; with the counts. */
export async function spliceRedacted(redactor: Redactor, text: string, edits: TextEdit[]): Promise<{ text: string; count: number; families: Record<string, number> }> {
  let count = 0
  const families: Record<string, number> = {}
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    const masked = await redactor.redact(edit.text)
    count += masked.count
    for (const [family, n] of Object.entries(masked.families)) families[family] = (families[family] ?? 0) + n
    text = text.slice(0, edit.start) + masked.text + text.slice(edit.end)
  }
  return { text, count, families }
}
