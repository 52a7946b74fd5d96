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
import { sectionSchema } from '../knowledge/settings.js'
import { CaptureQueue, type OpenTurn } from './queue.js'
import { distillCallConfig, distillRound, modelReasons, type DistillRoute, type LlmLike, type PreparedCallLike } from './distill.js'
import type { Round, Salience } from '../types.js'

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
  // The row's config with the page's live overrides; recomputed on change, never on the hot path.
  let current = store.settings.effective('capture', config)
  ctx.effect(() => store.settings.publish('capture', () => config), 'knowledge-capture settings')
  ctx.effect(() => store.settings.onChange(() => {
    const next = store.settings.effective('capture', config)
    if (next.enabled !== current.enabled) logger.info('capture %s by live settings', next.enabled ? 'enabled' : 'disabled')
    current = next
  }), 'knowledge-capture settings watcher')
  if (!current.enabled) logger.info('capture is disabled (enabled: false)')

  // Distillation runs in its own queue so a slow model call never holds back the next capture.
  const shutdown = new AbortController()
  let budgetWarnedOn = ''
  const distillQueue = new CaptureQueue<{ round: Round; salience: Salience; id: string; turn: OpenTurn }>(async ({ round, salience, id, turn }) => {
    const bound = prepared.get(turn)
    const llm = ctx.get('llm') as LlmLike | undefined
    const route = bound?.route ?? distillRoute(turn)
    if ((!llm && !bound) || !route) {
      logger.warn('distill skipped for %s: no model route (set distill.provider and distill.model)', id)
      await store.ledger.record({ type: 'distill-skipped', id, reason: 'no-route' })
      return
    }
    const settings = bound ? { ...current.distill, maxTokens: bound.maxTokens } : current.distill
    const outcome = await distillRound({ store, llm, prepared: bound?.call.then((b) => b.call), modelReasons: bound ? (await bound.call.catch(() => undefined))?.reasons : undefined, round, salience, id, route, settings, keepFailedResults: current.keepFailedResults, signal: shutdown.signal })
    if (outcome.status === 'distilled') logger.debug('distilled %s (%d tokens in, %d out)', id, outcome.tokensIn, outcome.tokensOut)
    else if (outcome.status === 'failed') logger.warn('distill of %s failed, the raw document is kept: %s', id, outcome.error)
    else if (budgetWarnedOn !== new Date().toISOString().slice(0, 10)) {
      budgetWarnedOn = new Date().toISOString().slice(0, 10)
      logger.warn('distill stopped for today: %s (raw documents are still written; see stats)', outcome.reason)
    }
  }, (error) => logger.error('distill failed: %s', (error as Error).stack ?? error))

  // Distill calls bound to their adapter when the turn ended (see DistillJob.prepared). `ctx.get` reads the
  // optional `llm` service without injecting it: the property `ctx.llm` throws "cannot get property without inject".
  const prepared = new WeakMap<OpenTurn, { route: DistillRoute; maxTokens: number; call: Promise<{ call: PreparedCallLike; reasons: boolean }> }>()
  const prepareDistill = (turn: OpenTurn): void => {
    if (!current.captureSubagents && turn.subagent) return
    const llm = ctx.get('llm') as LlmLike | undefined
    const route = distillRoute(turn)
    if (!llm?.prepareCall || !route) return
    const maxTokens = current.distill.maxTokens
    // All three lookups start now, while the adapter is registered; the choice is made when they settle.
    const withOff = llm.prepareCall(distillCallConfig(route, maxTokens, true))
    const withoutEffort = llm.prepareCall(distillCallConfig(route, maxTokens, false))
    const reasons = modelReasons(llm, route)
    withOff.catch(() => {}); withoutEffort.catch(() => {})
    // A model that declares no reasoning refuses 'off' and has no thinking to turn off: it goes without an effort.
    // A model that reasons but cannot turn it off is refused (distillation never runs with thinking on).
    const call = reasons.then((r) => (r ? withOff : withoutEffort).then((c) => ({ call: c, reasons: r })))
    call.catch(() => {}) // rounds that are not kept (or over budget) never await it
    prepared.set(turn, { route, maxTokens, call })
  }

  /** The configured route, else the session's own, else the harness's default model. */
  const distillRoute = (turn: OpenTurn): DistillRoute | undefined => {
    if (current.distill.provider && current.distill.model) return { provider: current.distill.provider, model: current.distill.model }
    const own = turn.handle?.requestHeader?.()?.config
    const fallback = (ctx.get('agentDefaultModel') as { currentSelection?: () => { provider?: string; model?: string } | undefined } | undefined)?.currentSelection?.()
    const provider = current.distill.provider || own?.provider || fallback?.provider
    const model = current.distill.model || own?.model || fallback?.model
    return provider && model ? { provider, model } : undefined
  }

  const queue = new CaptureQueue(async (turn) => {
    if (!current.captureSubagents && turn.subagent) return
    let round: Round
    let result: Awaited<ReturnType<typeof captureRound>>
    try {
      round = foldRound(turn.events as TurnEvent[], { session: turn.session, cwd: turn.cwd })
      result = await captureRound(store, round, { minScore: current.salience.minScore, keepFailedResults: current.keepFailedResults })
    } catch (error) {
      // Trigger: folding or scoring threw on a hostile round. Outcome: counted `failed` with the reason, never lost silently.
      // The reason goes to disk (the ledger): redacted like everything else, then cut.
      const raw = String((error as Error)?.message ?? error)
      const reason = (await store.redactFields([{ text: raw, limit: 300, cut: 'ellipsis' }]).catch(() => ({ texts: ['(reason withheld: redaction failed)'] }))).texts[0]
      const number = Number((turn.events[0] as TurnEvent | undefined)?.data?.turn) || 0
      logger.error('round %s t%d could not be captured: %s', turn.session, number, reason)
      await store.ledger.record({ type: 'failed', session: turn.session, turn: number, error: reason })
      return
    }
    if (result.error) logger.error('round %s t%d was kept but could not be written: %s', round.session, round.turn, result.error)
    else if (result.kept) {
      logger.debug('kept %s (score %d): %s', result.id, result.score, result.path)
      if (current.distill.enabled && result.id) distillQueue.push({ round, salience: { score: result.score, reasons: result.reasons }, id: result.id, turn })
    }
    else logger.debug('%s t%d not written: %s', round.session, round.turn, result.reasons.slice(0, 3).join(' '))
  }, (error) => logger.error('capture failed: %s', (error as Error).stack ?? error))

  // Hot path: constant work per event. No folding, no I/O, no allocation beyond the array slot.
  ctx.on('session/event', (session, event) => {
    if (event.type === 'turn/start') {
      if (!current.enabled) return
      const header = session.header
      open.set(session.id, { session: session.id, handle: session, cwd: header.cwd ?? '', subagent: header.origin === 'subagent', events: [event] })
      return
    }
    const turn = open.get(session.id)
    if (!turn) return
    turn.events.push(event)
    if (event.type === 'turn/end') {
      open.delete(session.id)
      if (current.distill.enabled) prepareDistill(turn)
      queue.push(turn)
    }
  })

  // dsh disposes all rows at once on exit: the store stays open until this row's shutdown work below is done.
  let released!: () => void
  store.hold(new Promise<void>((resolve) => { released = resolve }))

  ctx.effect(() => async () => {
    try { await shutdownWork() } finally { released() }
  }, 'knowledge-capture queue')

  async function shutdownWork(): Promise<void> {
    // Headless SIGINT/SIGTERM disposes before `turn/end`: such turns are counted as interrupted, not written.
    for (const turn of open.values()) {
      void store.ledger.record({ type: 'unanswered', session: turn.session, turn: Number((turn.events[0] as TurnEvent).data?.turn) || 0, outcome: 'interrupted' })
    }
    open.clear()
    const deadline = Date.now() + SHUTDOWN_WAIT_MS
    const done = await queue.drain(SHUTDOWN_WAIT_MS)
    if (!done) logger.warn('shutdown: %d round(s) still queued after %d ms were abandoned', queue.size, SHUTDOWN_WAIT_MS)
    // Distill calls still running get what is left of the window, then are aborted; their raw documents stay.
    if (!(await distillQueue.drain(Math.max(deadline - Date.now(), 0)))) {
      shutdown.abort()
      await distillQueue.drain(500)
      logger.warn('shutdown: distill call(s) abandoned; their raw documents are kept')
    }
    await store.flush()
  }
}
