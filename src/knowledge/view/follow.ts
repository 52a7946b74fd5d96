/**
 * What the store keeps in memory beside a shared index, kept in step with other processes' commits: the id ↔ file
 * table, the relation graph and the id-prefix owners (each row keeps its revision: nothing to follow for that). The index tells of those commits
 * (search/shared-file.ts) before a read or a write of this process; this module applies them, and announces them to
 * the store's listeners as the watcher would have (`written`, `removed`), on the next turn (never from inside the
 * index's transaction).
 * @module dsh-knowledge-sync/knowledge/view/follow
 */
import { DOC_KINDS } from '../../wire.js'
import type { ForeignChange } from '../../search/shared-file.js'
import { followedRow } from '../../search/manifest.js'
import type { SearchIndex } from '../../search/search-index.js'
import type { PathTable } from '../index-cache/path-table.js'
import type { IdClaims } from '../ids/id-claims.js'
import type { RelationGraph } from '../relations/relations.js'
import type { StoreChange } from '../store-types.js'

/** The tables a follower updates. */
export interface Followed {
  index: SearchIndex
  table: PathTable
  graph: RelationGraph
  ids: IdClaims
  emit(change: StoreChange): void
  /** The log no longer reaches back to what this process saw: reload the tables from the index. */
  reload(): void
}

/** Applies other processes' document changes, in commit order; each id ends as the index holds it now. */
export function followChanges(target: Followed, changes: ForeignChange[] | null): void {
  if (changes === null) {
    target.reload()
    return
  }
  const last = new Map<string, ForeignChange>()
  for (const change of changes) {
    if (change.gone) {
      target.table.remove(change.path, change.id)
      target.graph.remove(change.id)
    }
    last.set(change.id, change)
  }
  const announced: StoreChange[] = []
  for (const [id, change] of last) {
    const row = followedRow(target.index, id)
    if (!row) {
      announced.push({ type: 'removed', id, path: change.path })
      continue
    }
    target.table.put(row.path, id)
    target.graph.remove(id)
    if (row.relations) target.graph.restore(id, row.relations)
    target.ids.noteIndexed(id, row.session)
    announced.push({ type: 'written', id, path: row.path, kind: DOC_KINDS[row.kind] ?? 'raw', cwd: row.cwd })
  }
  if (announced.length) setImmediate(() => announced.forEach((change) => target.emit(change)))
}
