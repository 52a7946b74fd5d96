/**
 * Stats for the CLI, the routes and the page: documents by kind and workspace (from the index, i.e. the files) and
 * what happened to rounds (from the ledger: kept, dropped with top reasons, unanswered, failed, distill cost).
 * @module dsh-knowledge-sync/knowledge/stats
 */
import type { KnowledgeStore } from './store.js'
import type { LedgerStats } from './ledger.js'

export interface KnowledgeStats {
  root: string
  scope: string | null
  documents: number
  byKind: Record<string, number>
  byWorkspace: Record<string, number>
  redactionEnabled: boolean
  rounds: LedgerStats
  invalidFiles: Array<{ path: string; error: string }>
}

export async function collectStats(store: KnowledgeStore, scope?: string): Promise<KnowledgeStats> {
  await store.start()
  const facets = store.facets({ scope })
  const rounds = await store.ledger.stats()
  return {
    root: store.root,
    scope: scope ?? null,
    documents: store.count({ scope }),
    byKind: facets.kinds,
    byWorkspace: facets.workspaces,
    redactionEnabled: store.redactionEnabled,
    rounds,
    invalidFiles: [...store.invalid].slice(0, 50).map(([path, error]) => ({ path, error })),
  }
}
