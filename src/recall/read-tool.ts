/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk
 * (the store's `readVisible` checks them).
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { formatDocument } from '../knowledge/document.js'
import { frameSections } from '../knowledge/upstream.js'
import type { KnowledgeDoc } from '../types.js'

export const READ_TOOL = 'knowledge_read'

/**
 * The whole document, front matter included, so the model sees kind, date, tags and provenance. Synced upstream
 * sections are framed as data quoted from their URL, not instructions.
 */
export function renderDocument(doc: KnowledgeDoc): string {
  return `${doc.path}\n\n${formatDocument(doc.meta, frameSections(doc.body))}`
}
