/**
 * One round → kept or not → one document. The single code path behind the capture row and `dsh-knowledge capture`.
 * @module dsh-knowledge-sync/capture/keep-round
 */
import type { KnowledgeStore, DocumentDraft } from '../knowledge/store.js'
import type { Outcome, Round, Salience } from '../types.js'
import { titleFrom } from './round.js'
import { BELOW_BAR, DEFAULT_MIN_SCORE, dropReason, isKept, scoreRound } from './salience.js'
import { deriveTags } from './tags.js'

export interface CaptureOptions {
  minScore: number
  /** Compute everything, write nothing (no document, no ledger entry). */
  dryRun?: boolean
  /** Keep a bounded, redacted excerpt of failed tool calls' results. */
  keepFailedResults?: boolean
}

export interface CaptureResult {
  kept: boolean
  outcome: Outcome
  score: number
  reasons: string[]
  id?: string
  /** Root-relative path of the document (written, or that would be written). */
  path?: string
  /** The document text (dry runs). */
  document?: string
  redacted?: number
  /** Why a kept round could not be written (full disk, unwritable root). */
  error?: string
}

/** The draft of a raw round's document. */
export function roundDraft(round: Round, salience: Salience, keepFailedResults = false): DocumentDraft {
  return {
    kind: 'raw',
    // Taken from the question only after the store has redacted it (redact first, then cut).
    // A reply to the agent's question is titled with the question first: "Which package manager? pnpm, always".
    title: { source: round.asked ? `${round.asked} ${round.question}` : round.question || round.answer, derive: (redacted, mask) => titleFrom(redacted, 80, mask) },
    cwd: round.cwd,
    created: round.created,
    session: round.session,
    turn: round.turn,
    outcome: round.outcome,
    sections: [...(round.asked ? [{ heading: 'Asked', text: round.asked }] : []), { heading: 'Question', text: round.question }, { heading: 'Answer', text: round.answer }],
    tools: round.tools,
    keepFailedResults,
    tags: deriveTags(round),
    salience,
    suffix: `t${round.turn}`,
  }
}

/**
 * Trigger: a round ended. Why gate: only rounds that committed an answer and carry knowledge are worth a file.
 * Outcome: a document (kept), a ledger entry with the reasons (dropped/unanswered), or a logged failure.
 */
export async function captureRound(store: KnowledgeStore, round: Round, options: CaptureOptions): Promise<CaptureResult> {
  if (round.outcome !== 'completed' || !round.answer.trim()) {
    const outcome = round.outcome === 'completed' ? 'no-answer' : round.outcome
    if (!options.dryRun) await store.ledger.record({ type: 'unanswered', session: round.session, turn: round.turn, outcome })
    return { kept: false, outcome, score: 0, reasons: [`-outcome-${outcome}`] }
  }
  const salience = scoreRound(round)
  if (!isKept(salience, options.minScore)) {
    // A round the default bar would keep was dropped by a raised bar: say so, rather than blame its signals.
    const reason = isKept(salience, DEFAULT_MIN_SCORE) ? BELOW_BAR : dropReason(salience)
    if (!options.dryRun) {
      const title = await store.redactLine(titleFrom(round.question || round.answer))
      await store.ledger.record({
        type: 'dropped',
        session: round.session,
        turn: round.turn,
        score: salience.score,
        reasons: [reason, ...salience.reasons.filter((r) => r !== reason)].slice(0, 4),
        title,
      })
    }
    return { kept: false, outcome: round.outcome, score: salience.score, reasons: salience.reasons }
  }
  const draft = roundDraft(round, salience, options.keepFailedResults)
  if (options.dryRun) {
    const prepared = await store.prepare(draft, { dryRun: true })
    return { kept: true, outcome: round.outcome, score: salience.score, reasons: salience.reasons, id: prepared.id, path: prepared.path, document: prepared.text, redacted: prepared.redaction.count }
  }
  try {
    const written = await store.write(draft)
    await store.ledger.record({ type: 'kept', session: round.session, turn: round.turn, id: written.id, score: salience.score, redacted: written.redaction.count })
    return { kept: true, outcome: round.outcome, score: salience.score, reasons: salience.reasons, id: written.id, path: written.path, redacted: written.redaction.count }
  } catch (error) {
    const message = (error as Error).message
    await store.ledger.record({ type: 'failed', session: round.session, turn: round.turn, path: (error as { path?: string }).path, error: message })
    return { kept: false, outcome: round.outcome, score: salience.score, reasons: salience.reasons, error: message }
  }
}
