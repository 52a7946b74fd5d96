/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk.
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { formatDocument, isValidId } from '../knowledge/document.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import type { KnowledgeDoc } from '../types.js'
import { isVisible } from './visibility.js'

export const READ_TOOL = 'knowledge_read'

/** Reads `id` if it names a document visible from `scope`; throws an Error with a clear message otherwise. */
export async function readVisible(store: KnowledgeStore, rawId: unknown, scope: string | undefined): Promise<KnowledgeDoc> {
  if (typeof rawId !== 'string' || !rawId.trim()) throw new Error('"id" must be a document id from knowledge_search, like "abc12345-t3"')
  const id = rawId.trim()
  if (!isValidId(id)) throw new Error(`invalid id ${JSON.stringify(rawId.trim().slice(0, 80))}: ids are letters, digits, "-" and "_" (no paths)`)
  const meta = store.get(id)
  if (!meta || !isVisible(meta.cwd, scope)) throw new Error(`no document ${id}${scope ? ` is visible in ${scope}` : ''}; use knowledge_search to find ids`)
  const doc = await store.read(id)
  if (!doc) throw new Error(`document ${id} was removed from disk`)
  return doc
}

/** The whole document, front matter included, so the model sees kind, date, tags and provenance. */
export function renderDocument(doc: KnowledgeDoc): string {
  return `${doc.path}\n\n${formatDocument(doc.meta, doc.body)}`
}
