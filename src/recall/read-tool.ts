/**
 * `knowledge_read`: one visible document in full. Hostile ids (`../`, absolute paths, NUL) never reach the disk.
 * @module dsh-knowledge-sync/recall/read-tool
 */
import { isValidId } from '../knowledge/document.js'
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

/** The document as Markdown, front matter included, so the model sees kind, date and provenance. */
export function renderDocument(doc: KnowledgeDoc, fileText?: string): string {
  const header = `${doc.id} (${doc.meta.kind}, ${String(doc.meta.created).slice(0, 10)}${doc.meta.cwd ? `, ${doc.meta.cwd}` : ''}) — ${doc.path}`
  return `${header}\n\n${fileText ?? doc.body}`
}
