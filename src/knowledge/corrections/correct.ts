/**
 * Correcting knowledge: supersede, retire, restore, and the link check of a new note. One code path for the tools,
 * the CLI and the page's routes, so a refusal reads the same everywhere. Every change goes through the store's one
 * atomic write path ({@link KnowledgeStore.setStatus}), redacted and recorded in the ledger. Nothing is deleted.
 * @module dsh-knowledge-sync/knowledge/corrections/correct
 */
import type { DocStatus } from '../../types.js'
import { isVisible } from '../../search/scope.js'
import { isValidId } from '../documents/document.js'
import { MAX_LINKS, NOTICE_MARK, pathsToIds, statusOf } from '../relations/relations.js'
import type { KnowledgeStore } from '../store.js'

/** Longest reason kept (after redaction it goes into the front matter and the notice line). */
export const MAX_REASON = 500

/** Who asked for a change, as the ledger records it (`capture`: a correction stated later in the same session). */
export type Actor = 'tool' | 'cli' | 'page' | 'capture'

/** A visible, existing document id, or an Error whose message says why not (invalid, missing, not visible). */
export function visibleId(store: KnowledgeStore, raw: unknown, scope: string | undefined, what = 'id'): string {
  if (typeof raw !== 'string' || !raw.trim()) throw new Error(`"${what}" must be a document id from knowledge_search, like "abc12345-t3"`)
  const id = raw.trim()
  if (!isValidId(id)) throw new Error(`"${what}": invalid id ${JSON.stringify(String(id).slice(0, 80))} (letters, digits, "-" and "_", no paths)`)
  const meta = store.get(id)
  if (!meta) throw new Error(`"${what}": no document ${id} exists; use knowledge_search to find ids`)
  if (!isVisible(meta.cwd, scope)) throw new Error(`"${what}": document ${id} is not visible from ${scope} (it belongs to another workspace)`)
  return id
}

/** Validates a list of ids (`links`, `supersedes`): each must exist and be visible. Returns them deduplicated. */
export function visibleIds(store: KnowledgeStore, raw: unknown, scope: string | undefined, what: string): string[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw new Error(`"${what}" must be an array of document ids`)
  if (raw.length > MAX_LINKS) throw new Error(`"${what}": at most ${MAX_LINKS} ids`)
  return [...new Set(raw.map((id) => visibleId(store, id, scope, what)))]
}

/** A reason: optional or required, bounded; redaction happens in the store. */
export function reasonOf(raw: unknown, required: boolean): string | undefined {
  if (raw === undefined || raw === null || raw === '') {
    if (required) throw new Error('"reason" is required: say why the document is wrong or obsolete')
    return undefined
  }
  if (typeof raw !== 'string') throw new Error('"reason" must be a string')
  const text = raw.replace(/\s+/g, ' ').trim()
  if (required && !text) throw new Error('"reason" is required: say why the document is wrong or obsolete')
  if (text.length > MAX_REASON) throw new Error(`"reason" is ${text.length} characters long; the limit is ${MAX_REASON}`)
  return text || undefined
}

/** The chain of successors from `id` (`superseded_by`, hop by hop), stopping at a repeat. */
export function successorChain(store: KnowledgeStore, id: string): string[] {
  const chain = [id]
  let next = store.relations.get(id)?.supersededBy
  while (next && !chain.includes(next) && chain.length < 1000) {
    chain.push(next)
    next = store.relations.get(next)?.supersededBy
  }
  if (next && chain.includes(next)) chain.push(next)
  return chain
}

/**
 * `old` is superseded by `by`: both visible, different, `by` not retired, and no cycle (`by` must not already be
 * superseded, directly or through a chain, by `old`). Writes both: `old` gets status and notice, `by` lists `old` in
 * `supersedes`.
 */
export async function supersede(
  store: KnowledgeStore,
  args: { id: unknown; by: unknown; reason?: unknown },
  scope: string | undefined,
  actor: Actor,
): Promise<{ id: string; by: string; status: DocStatus }> {
  const id = visibleId(store, args.id, scope, 'id')
  const by = visibleId(store, args.by, scope, 'by')
  const reason = reasonOf(args.reason, false)
  if (id === by) throw new Error(`a document cannot supersede itself (${id})`)
  const successor = store.get(by)!
  if (successor.status === 'retired') throw new Error(`"by": document ${by} is retired; supersede with an active document (or restore it first)`)
  // A preference is the person's word: only another preference (which needs their quote) can replace it.
  if (store.get(id)!.kind === 'preference' && successor.kind !== 'preference')
    throw new Error(`${id} is a preference of the person; only a newer preference (knowledge_note with kind "preference" and their quote) can supersede it`)
  if (successorChain(store, by).includes(id)) throw new Error(`superseding ${id} by ${by} would make a cycle: ${successorChain(store, by).join(' → ')}`)
  const result = await store.setStatus(id, { to: 'superseded', by, byPath: successor.path, byTitle: successor.title, reason }, actor)
  await store.addSupersedes(by, [id])
  return { id, by, status: result.status }
}

/** Retires a visible document with a (required) reason: it leaves search, counts and lists; it stays on disk. */
export async function retire(store: KnowledgeStore, args: { id: unknown; reason: unknown }, scope: string | undefined, actor: Actor): Promise<{ id: string; status: DocStatus }> {
  const id = visibleId(store, args.id, scope, 'id')
  const reason = reasonOf(args.reason, true)!
  if (store.get(id)!.status === 'retired') throw new Error(`document ${id} is already retired`)
  return store.setStatus(id, { to: 'retired', reason }, actor)
}

/** Restores a retired document (back to active, or to superseded when it still names a successor). */
export async function restore(store: KnowledgeStore, args: { id: unknown }, scope: string | undefined, actor: Actor): Promise<{ id: string; status: DocStatus }> {
  const id = visibleId(store, args.id, scope, 'id')
  const meta = store.get(id)!
  if (meta.status !== 'retired') throw new Error(`document ${id} is not retired (it is ${statusOf(meta)})`)
  return store.setStatus(id, { to: 'restored' }, actor)
}

/** A related document as tools and the page show it. */
export interface RelatedDoc {
  id: string
  title: string
  status?: DocStatus
}

/** The computed relations of a document that are visible from `scope`: who links here, its successor, what it replaces. */
export function relationsView(store: KnowledgeStore, id: string, scope: string | undefined): { linkedFrom: RelatedDoc[]; supersededBy?: RelatedDoc; supersedes: RelatedDoc[] } {
  const view = (other: string): RelatedDoc | undefined => {
    const meta = store.get(other)
    if (!meta || !isVisible(meta.cwd, scope)) return undefined
    return { id: meta.id, title: meta.title, ...(meta.status ? { status: meta.status } : {}) }
  }
  const by = store.relations.get(id)?.supersededBy
  const successor = by ? view(by) : undefined
  return {
    linkedFrom: store
      .linkedFrom(id)
      .map(view)
      .filter((d): d is RelatedDoc => !!d),
    ...(successor ? { supersededBy: successor } : {}),
    supersedes: store
      .supersededOnes(id)
      .map(view)
      .filter((d): d is RelatedDoc => !!d),
  }
}

/**
 * A body as tools and the page show it: links to other documents' paths written back as ids, and the status
 * notice without its marker comment (which only keeps the notice replaceable on disk, where renderers hide it).
 */
export function bodyWithIds(store: KnowledgeStore, doc: { path: string; body: string }): string {
  return pathsToIds(doc.body, doc.path, (path) => store.idOfPath(path)).replace(` ${NOTICE_MARK}\n`, '\n')
}
