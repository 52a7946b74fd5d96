/**
 * Row `knowledge-capture`: every round worth keeping becomes one document, with no model call.
 *
 * The `session/event` listener only files the event under its session's open turn (constant work); at `turn/end`
 * the turn is queued and folded, scored, redacted and written later, off the agent loop's hot path. Pending work is
 * awaited when the row is disposed, within the harness's shutdown window.
 * @module dsh-knowledge-sync/capture
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-session'
import type {} from '../knowledge/index.js'
import { captureRound } from './capture.js'
import { foldRound, type TurnEvent } from './round.js'
import { DEFAULT_MIN_SCORE } from './salience.js'
import { CaptureQueue, type OpenTurn } from './queue.js'

export const name = 'knowledge-capture'
export const inject = ['knowledge']

/** How long disposal waits for queued rounds (the harness's process shutdown window is about 5 s). */
export const SHUTDOWN_WAIT_MS = 4000

export interface Config {
  /** Capture rounds at all. */
  enabled: boolean
  salience: {
    /** Rounds scoring below this are not written (0 keeps every round that has an answer). */
    minScore: number
  }
  /** Also capture rounds of subagent child sessions as their own documents. */
  captureSubagents: boolean
  /** Keep a bounded, redacted excerpt of failed tool calls' results in the document. */
  keepFailedResults: boolean
  distill: {
    /** Condense each kept round with one small model call (off by default: it costs tokens). */
    enabled: boolean
    /** LLM provider route; empty: the session's own. */
    provider: string
    /** Model id; empty: the session's own. */
    model: string
    /** Distill calls allowed per UTC day; 0 = none. */
    budgetPerDay: number
    /** Output bound of one call, in tokens. */
    maxTokens: number
    /** A call slower than this is abandoned. */
    timeoutMs: number
  }
}

export const Config: z<Config> = z.object({
  enabled: z.boolean().default(true).description('Capture rounds at all.'),
  salience: z.object({
    minScore: z.number().min(0).max(100).default(DEFAULT_MIN_SCORE).description('Rounds scoring below this are not written; 0 keeps every answered round.'),
  }),
  captureSubagents: z.boolean().default(false).description('Also capture subagent child sessions as their own documents.'),
  keepFailedResults: z.boolean().default(false).description('Keep a bounded, redacted excerpt of failed tool results.'),
  distill: z.object({
    enabled: z.boolean().default(false).description('Condense each kept round with one small model call.'),
    provider: z.string().default('').description('LLM provider route; empty: the session\'s own.'),
    model: z.string().default('').description('Model id; empty: the session\'s own.'),
    budgetPerDay: z.natural().max(100000).default(50).description('Distill calls allowed per UTC day.'),
    maxTokens: z.natural().min(64).max(4096).default(600).description('Output bound of one call, in tokens.'),
    timeoutMs: z.natural().min(1000).max(300000).default(30000).description('A call slower than this is abandoned.'),
  }),
}) as z<Config>

export function apply(ctx: Context, config: Config): void {
  const logger = ctx.logger('knowledge-capture')
  if (!config.enabled) { logger.info('capture is disabled (enabled: false)'); return }
  const store = ctx.knowledge
  const open = new Map<string, OpenTurn>()

  const queue = new CaptureQueue(async (turn) => {
    if (!config.captureSubagents && turn.subagent) return
    const round = foldRound(turn.events as TurnEvent[], { session: turn.session, cwd: turn.cwd })
    const result = await captureRound(store, round, { minScore: config.salience.minScore, keepFailedResults: config.keepFailedResults })
    if (result.error) logger.error('round %s t%d was kept but could not be written: %s', round.session, round.turn, result.error)
    else if (result.kept) logger.debug('kept %s (score %d): %s', result.id, result.score, result.path)
    else logger.debug('%s t%d not written: %s', round.session, round.turn, result.reasons.slice(0, 3).join(' '))
  }, (error) => logger.error('capture failed: %s', (error as Error).stack ?? error))

  // Hot path: constant work per event. No folding, no I/O, no allocation beyond the array slot.
  ctx.on('session/event', (session, event) => {
    if (event.type === 'turn/start') {
      const header = session.header
      open.set(session.id, { session: session.id, cwd: header.cwd ?? '', subagent: header.origin === 'subagent', events: [event] })
      return
    }
    const turn = open.get(session.id)
    if (!turn) return
    turn.events.push(event)
    if (event.type === 'turn/end') {
      open.delete(session.id)
      queue.push(turn)
    }
  })

  ctx.effect(() => async () => {
    // Headless SIGINT/SIGTERM disposes before `turn/end`: such turns are counted as interrupted, not written.
    for (const turn of open.values()) {
      void store.ledger.record({ type: 'unanswered', session: turn.session, turn: Number((turn.events[0] as TurnEvent).data?.turn) || 0, outcome: 'interrupted' })
    }
    open.clear()
    const done = await queue.drain(SHUTDOWN_WAIT_MS)
    if (!done) logger.warn('shutdown: %d round(s) still queued after %d ms were abandoned', queue.size, SHUTDOWN_WAIT_MS)
    await store.flush()
  }, 'knowledge-capture queue')
}
