/**
 * Stats for the CLI, the routes and the page: documents by kind and workspace (from the index, i.e. the files) and
 * what happened to rounds (from the ledger: kept, dropped with top reasons, unanswered, failed, distill cost).
 * @module dsh-knowledge-sync/knowledge/reports/stats
 */
import type { KnowledgeStore } from '../store.js'
import type { RecentRounds, SessionRounds, Stats } from '../../wire.js'

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
  const entries = await store.ledger.recent(limit, (entry) => entry.type === 'kept' || entry.type === 'dropped')
  for (let k = entries.length - 1; k >= 0 && rounds.length < limit; k--) {
    const entry = entries[k]
    if (entry.type === 'kept') rounds.push({ at: entry.t ?? '', kept: true, score: entry.score, title: store.get(entry.id)?.title ?? entry.id, id: entry.id })
    else if (entry.type === 'dropped') rounds.push({ at: entry.t ?? '', kept: false, score: entry.score, title: entry.title ?? '', reason: entry.reasons?.[0] })
  }
  const capture = store.settings.describe().sections.capture?.effective as { salience?: { minScore?: number } } | undefined
  return { minScore: capture?.salience?.minScore ?? null, rounds: rounds.reverse() }
}

/** How many of a session's latest rounds the chat's markers can ask about. */
export const SESSION_ROUNDS_LIMIT = 200

/**
 * What became of one session's rounds, by turn (the chat's kept/dropped marker on each finished round): kept with its
 * document id, or dropped with its reasons. The last verdict of a turn wins (a re-capture after an edit).
 */
export async function sessionRounds(store: KnowledgeStore, session: string): Promise<SessionRounds> {
  const entries = await store.ledger.recent(SESSION_ROUNDS_LIMIT, (entry) => (entry.type === 'kept' || entry.type === 'dropped') && entry.session === session)
  const turns: SessionRounds['turns'] = {}
  for (const entry of entries) {
    if (entry.type === 'kept') turns[entry.turn] = { kept: true, score: entry.score, id: store.get(entry.id) ? entry.id : undefined }
    else if (entry.type === 'dropped') turns[entry.turn] = { kept: false, score: entry.score, reasons: entry.reasons ?? [] }
  }
  return { session, turns }
}
