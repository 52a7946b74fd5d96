/**
 * Backfill: a past dsh session's stored events → its rounds, each through exactly the path live capture takes
 * (fold → salience → redact → write, and the same ledger entries). Rounds the ledger already has an outcome for
 * (captured live, or imported before) are skipped, so re-running writes nothing new. Pure of dsh: the caller reads
 * the session log and hands over its header and events.
 * @module dsh-knowledge-sync/capture/backfill
 */
import type { KnowledgeStore } from '../knowledge/store.js'
import { roundKey } from '../knowledge/logs/ledger.js'
import { captureRound } from './keep-round.js'
import { foldRound, type TurnEvent } from './round.js'
import { dropReason } from './salience.js'

/** One stored session: what its header says and its events in order. */
export interface StoredSession {
  id: string
  cwd: string
  /** A subagent child session (live capture skips those unless `captureSubagents`). */
  subagent: boolean
  events: readonly TurnEvent[]
}

export interface BackfillOptions {
  minScore: number
  keepFailedResults?: boolean
  dryRun?: boolean
  /** Rounds already accounted for (see `Ledger.roundsSeen`); updated as rounds are imported. */
  seen: Set<string>
}

/** What happened to the rounds of one or more sessions. */
export interface BackfillSummary {
  sessions: number
  rounds: number
  kept: number
  dropped: number
  droppedByReason: Record<string, number>
  unanswered: number
  skipped: number
  redacted: number
  failed: number
  failures: string[]
}

export function emptySummary(): BackfillSummary {
  return { sessions: 0, rounds: 0, kept: 0, dropped: 0, droppedByReason: {}, unanswered: 0, skipped: 0, redacted: 0, failed: 0, failures: [] }
}

/**
 * A session's events cut into turns as the live listener sees them: from each `turn/start` up to and including its
 * `turn/end` (a last turn without one was interrupted, as when dsh was killed mid-turn).
 */
export function turnsOf(events: readonly TurnEvent[]): TurnEvent[][] {
  const turns: TurnEvent[][] = []
  let open: TurnEvent[] | undefined
  for (const event of events) {
    if (event.type === 'turn/start') {
      open = [event]
      turns.push(open)
      continue
    }
    if (!open) continue
    open.push(event)
    if (event.type === 'turn/end') open = undefined
  }
  return turns
}

/** Imports the rounds of one stored session into the store, adding to `summary`. */
export async function backfillSession(store: KnowledgeStore, session: StoredSession, options: BackfillOptions, summary: BackfillSummary): Promise<void> {
  summary.sessions++
  for (const events of turnsOf(session.events)) {
    const round = foldRound(events, { session: session.id, cwd: session.cwd })
    summary.rounds++
    const key = roundKey(round.session, round.turn)
    if (options.seen.has(key)) {
      summary.skipped++
      continue
    }
    // A turn with no `turn/end` in a finished log was interrupted: live capture records it the same way at shutdown.
    const result = await captureRound(store, round, { minScore: options.minScore, keepFailedResults: options.keepFailedResults, dryRun: options.dryRun })
    if (!options.dryRun) options.seen.add(key)
    if (result.error) {
      summary.failed++
      summary.failures.push(`${session.id} t${round.turn}: ${result.error}`)
    } else if (result.kept) {
      summary.kept++
      summary.redacted += result.redacted ?? 0
    } else if (result.outcome !== 'completed') summary.unanswered++
    else {
      summary.dropped++
      const reason = dropReason({ score: result.score, reasons: result.reasons })
      summary.droppedByReason[reason] = (summary.droppedByReason[reason] ?? 0) + 1
    }
  }
}
