/**
 * Row `knowledge-capture`: every round worth keeping becomes one document, with no model call.
 *
 * The `session/event` listener only files the event under its session's open turn (constant work); at `turn/end`
 * the turn is queued and folded, scored, redacted and written later, off the agent loop's hot path. Pending work is
 * awaited when the row is disposed, within the harness's shutdown window. Opt-in distillation is one collaborator
 * ({@link Distiller} in `distill.ts`): the row tells it when a turn ends and which rounds were kept.
 * @module dsh-knowledge-sync/capture
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-session'
import type {} from '../knowledge/index.js'
import { AskedQuestions } from './asked.js'
import { type CorrectionTarget, SessionFacts } from './corrected.js'
import { supersedeCorrected } from './supersede-corrected.js'
import { captureRound } from './keep-round.js'
import { foldRound, type TurnEvent } from './round.js'
import { sectionSchema } from '../knowledge/settings/settings.js'
import { CaptureQueue, type OpenTurn } from './queue.js'
import { Distiller } from './distill.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import type { Round } from '../types.js'

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

export const Config: z<Config> = sectionSchema('capture', true, {
  captureSubagents: z.boolean().default(false).description('Also capture subagent child sessions as their own documents.'),
  keepFailedResults: z.boolean().default(false).description('Keep a bounded, redacted excerpt of failed tool results.'),
  distill: {
    maxTokens: z.natural().min(64).max(4096).default(600).description('Output bound of one call, in tokens.'),
    timeoutMs: z.natural().min(1000).max(300000).default(30000).description('A call slower than this is abandoned.'),
  },
})

export function apply(ctx: Context, config: Config): void {
  const logger = ctx.logger('knowledge-capture')
  const store = ctx.knowledge
  const open = new Map<string, OpenTurn>()
  const asked = new AskedQuestions()
  const facts = new SessionFacts()
  const settings = liveSettings(ctx, config, logger)
  const distiller = new Distiller(ctx, store, settings, logger)
  const queue = new CaptureQueue(
    (turn) => keepTurn(store, turn, settings(), distiller, logger, asked, facts),
    (error) => logger.error('capture failed: %s', (error as Error).stack ?? error),
  )

  // Hot path: constant work per event. No folding, no I/O, no allocation beyond the array slot.
  ctx.on('session/event', (session, event) => {
    if (event.type === 'turn/start') {
      if (!settings().enabled) return
      const header = session.header
      open.set(session.id, { session: session.id, handle: session, cwd: header.cwd ?? '', subagent: header.origin === 'subagent', events: [event] })
      return
    }
    const turn = open.get(session.id)
    if (!turn) return
    turn.events.push(event)
    if (event.type === 'turn/end') {
      open.delete(session.id)
      distiller.prepare(turn)
      queue.push(turn)
    }
  })

  // dsh disposes all rows at once on exit: the store stays open until this row's shutdown work below is done.
  let released!: () => void
  store.hold(
    new Promise<void>((resolve) => {
      released = resolve
    }),
  )
  ctx.effect(
    () => async () => {
      try {
        await shutdownWork()
      } finally {
        released()
      }
    },
    'knowledge-capture queue',
  )

  async function shutdownWork(): Promise<void> {
    // Headless SIGINT/SIGTERM disposes before `turn/end`: such turns are counted as interrupted, not written.
    for (const turn of open.values()) {
      void store.ledger.record({ type: 'unanswered', session: turn.session, turn: turnNumber(turn), outcome: 'interrupted' })
    }
    open.clear()
    const deadline = Date.now() + SHUTDOWN_WAIT_MS
    const done = await queue.drain(SHUTDOWN_WAIT_MS)
    if (!done) logger.warn('shutdown: %d round(s) still queued after %d ms were abandoned', queue.size, SHUTDOWN_WAIT_MS)
    // Distill calls still running get what is left of the window, then are aborted; their raw documents stay.
    await distiller.drain(Math.max(deadline - Date.now(), 0))
    await store.flush()
  }
}

type Logger = ReturnType<Context['logger']>

/** The row's config with the page's live overrides; recomputed on change, never on the hot path. */
function liveSettings(ctx: Context, config: Config, logger: Logger): () => Config {
  const store = ctx.knowledge
  let current = store.settings.effective('capture', config)
  ctx.effect(() => store.settings.publish('capture', () => config), 'knowledge-capture settings')
  ctx.effect(
    () =>
      store.settings.onChange(() => {
        const next = store.settings.effective('capture', config)
        if (next.enabled !== current.enabled) logger.info('capture %s by live settings', next.enabled ? 'enabled' : 'disabled')
        current = next
      }),
    'knowledge-capture settings watcher',
  )
  if (!current.enabled) logger.info('capture is disabled (enabled: false)')
  return () => current
}

/** The turn's number, from its `turn/start` event (0 when absent). */
function turnNumber(turn: OpenTurn): number {
  return Number((turn.events[0] as TurnEvent | undefined)?.data?.turn) || 0
}

/** The capture queue's job: fold the turn into a round, keep it or not, and hand a kept round to distillation. */
async function keepTurn(store: KnowledgeStore, turn: OpenTurn, current: Config, distiller: Distiller, logger: Logger, asked: AskedQuestions, facts: SessionFacts): Promise<void> {
  if (!current.captureSubagents && turn.subagent) return
  let round: Round
  let corrected: CorrectionTarget[]
  let result: Awaited<ReturnType<typeof captureRound>>
  try {
    round = foldRound(turn.events as TurnEvent[], { session: turn.session, cwd: turn.cwd })
    round = asked.attach(round)
    corrected = facts.corrects(round.session, round.question ?? '')
    if (corrected.length) round = { ...round, corrects: true }
    result = await captureRound(store, round, { minScore: current.salience.minScore, keepFailedResults: current.keepFailedResults })
  } catch (error) {
    // Trigger: folding or scoring threw on a hostile round. Outcome: counted `failed` with the reason, never lost silently.
    // The reason goes to disk (the ledger): redacted like everything else, then cut.
    const raw = String((error as Error)?.message ?? error)
    const reason = (await store.redactFields([{ text: raw, limit: 300, cut: 'ellipsis' }]).catch(() => ({ texts: ['(reason withheld: redaction failed)'] }))).texts[0]
    logger.error('round %s t%d could not be captured: %s', turn.session, turnNumber(turn), reason)
    await store.ledger.record({ type: 'failed', session: turn.session, turn: turnNumber(turn), error: reason })
    return
  }
  if (result.error) logger.error('round %s t%d was kept but could not be written: %s', round.session, round.turn, result.error)
  else if (result.kept) {
    logger.debug('kept %s (score %d): %s', result.id, result.score, result.path)
    if (result.id) await supersedeCorrected(store, facts, round, result.id, corrected, logger)
    if (result.id) distiller.push({ round, salience: { score: result.score, reasons: result.reasons }, id: result.id, turn })
  } else logger.debug('%s t%d not written: %s', round.session, round.turn, result.reasons.slice(0, 3).join(' '))
}
