/**
 * Stats for the CLI, the routes and the page: documents by kind and workspace (from the index, i.e. the files) and
 * what happened to rounds (from the ledger: kept, dropped with top reasons, unanswered, failed, distill cost).
 * @module dsh-knowledge-sync/knowledge/reports/stats
 */
import type { KnowledgeStore } from '../store.js'
import type { RecentRounds, Stats } from '../../wire.js'

/** What `collectStats` returns: the wire shape of `GET <prefix>/stats`, declared once in wire.ts. */
export type KnowledgeStats = Stats

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

/** The last `limit` kept and dropped rounds from the ledger (no content beyond redacted titles), and the bar in force. */
export async function recentRounds(store: KnowledgeStore, limit: number): Promise<RecentRounds> {
  const rounds: RecentRounds['rounds'] = []
  const entries = await store.ledger.entries()
  for (let k = entries.length - 1; k >= 0 && rounds.length < limit; k--) {
    const entry = entries[k]
    if (entry.type === 'kept') rounds.push({ at: entry.t ?? '', kept: true, score: entry.score, title: store.get(entry.id)?.title ?? entry.id, id: entry.id })
    else if (entry.type === 'dropped') rounds.push({ at: entry.t ?? '', kept: false, score: entry.score, title: entry.title ?? '', reason: entry.reasons?.[0] })
  }
  const capture = store.settings.describe().sections.capture?.effective as { salience?: { minScore?: number } } | undefined
  return { minScore: capture?.salience?.minScore ?? null, rounds: rounds.reverse() }
}
