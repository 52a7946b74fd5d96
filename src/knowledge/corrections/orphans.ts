/**
 * Orphans: active wiki pages nothing links to (no page, note or round, retired ones not counted). Summaries,
 * syntheses and preferences are reached through the index, so they are not orphans; a profile's type is one unless
 * it replaces such a built-in. Read-only, over the index and the relation graph.
 * @module dsh-knowledge-sync/knowledge/corrections/orphans
 */
import { isVisible } from '../../search/scope.js'
import { INDEX_REACHED_TYPES, OVERVIEW_ID, splitPageId } from '../documents/page-ids.js'
import { eachListed } from '../pager.js'
import type { KnowledgeStore } from '../store.js'

/** The orphan pages visible from `scope`, sorted by id. */
export function orphanPages(store: KnowledgeStore, scope: string | undefined, exempt: ReadonlySet<string> = INDEX_REACHED_TYPES): string[] {
  const out: string[] = []
  for (const kind of ['page', 'preference'] as const) {
    for (const meta of eachListed(store, { kind, status: 'active', scope })) {
      const page = splitPageId(meta.id)
      if (!page || meta.id === OVERVIEW_ID || exempt.has(page.type)) continue
      const inbound = store.linkedFrom(meta.id).filter((from) => {
        const m = store.get(from)
        return !!m && m.status !== 'retired' && isVisible(m.cwd, scope)
      })
      if (!inbound.length) out.push(meta.id)
    }
  }
  return out.sort()
}
