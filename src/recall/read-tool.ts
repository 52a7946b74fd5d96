/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk
 * (the store's `readVisible` checks them).
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { formatDocument } from '../knowledge/document.js'
import type { KnowledgeDoc } from '../types.js'

export const READ_TOOL = 'knowledge_read'

/** The whole document, front matter included, so the model sees kind, date, tags and provenance. */
export function renderDocument(doc: KnowledgeDoc): string {
  return `${doc.path}\n\n${formatDocument(doc.meta, doc.body)}`
}
