/**
 * The chat's marker on each finished round: whether the knowledge base kept it (its document opens in the full-size
 * view) or dropped it, and why. Drawn in the icon row under a finished assistant message through dsh web rc.8's
 * `conversation.chat.assistant-actions` list slot (ui-conversation contract/slots.ts: session-scoped, owner
 * `{ messageId }`, every entry rendered): a small label for the person, never a message to the model. The message's
 * turn comes from the session snapshot's `nodes` (assistant nodes carry `messageId` and `turn`); the verdict from
 * `GET <prefix>/rounds?session=` (the ledger). Capture writes at the turn's end, so a missing verdict is asked again a
 * few times, then the marker stays away (capture off, a subagent's round, a round that was not captured).
 * @module dsh-knowledge-sync/client/RoundMarker
 */
import { useMemo, useSyncExternalStore } from 'react'
import type { SessionRounds } from '../src/wire.js'
import { reasonLabel } from './DocumentView.js'
import type { KnowledgeHost } from './host.js'
import { translator } from './i18n.js'
import { writePlace } from './place.js'
import { palette } from './styles.js'

/** How often, and how many times, a turn without a verdict is asked again (capture may still be writing). */
export const VERDICT_RETRY_MS = 1500
export const VERDICT_RETRIES = 20

type Verdict = SessionRounds['turns'][number]

/** Verdicts per session, shared by every marker of the open chat (one request per session and change). */
export class RoundVerdicts {
  private readonly sessions = new Map<string, { rounds?: SessionRounds; inflight?: boolean; timer?: ReturnType<typeof setTimeout>; tries: Map<number, number> }>()
  private readonly listeners = new Set<() => void>()
  private version = 0

  constructor(private readonly read: (session: string) => Promise<SessionRounds>) {}

  getVersion = (): number => this.version
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * The verdict on `turn` of `session`. A session is read at once the first time; a turn still missing is asked
   * again after {@link VERDICT_RETRY_MS}, at most {@link VERDICT_RETRIES} times per turn (one read at a time).
   */
  get(session: string, turn: number): Verdict | undefined {
    let entry = this.sessions.get(session)
    if (!entry) {
      entry = { tries: new Map() }
      this.sessions.set(session, entry)
    }
    const verdict = entry.rounds?.turns[turn]
    if (verdict || entry.inflight || entry.timer) return verdict
    const tries = entry.tries.get(turn) ?? 0
    if (tries >= VERDICT_RETRIES) return undefined
    entry.tries.set(turn, tries + 1)
    const e = entry
    const ask = () => {
      e.timer = undefined
      e.inflight = true
      this.read(session).then(
        (rounds) => {
          e.rounds = rounds
          e.inflight = false
          this.emit()
        },
        () => {
          e.inflight = false
          this.emit()
        },
      )
    }
    if (!entry.rounds && tries === 0) ask()
    else entry.timer = setTimeout(ask, VERDICT_RETRY_MS)
    return undefined
  }

  private emit(): void {
    this.version++
    for (const listener of [...this.listeners]) listener()
  }
}

/** The turn of the assistant message `messageId` in a session snapshot (its legacy `nodes` list). */
export function turnOfMessage(snapshot: unknown, messageId: string): number | undefined {
  const nodes = (snapshot as { nodes?: ReadonlyArray<{ kind?: string; messageId?: string; turn?: number }> } | undefined)?.nodes
  if (!Array.isArray(nodes)) return undefined
  for (let k = nodes.length - 1; k >= 0; k--) {
    const node = nodes[k]
    if (node?.kind === 'assistant' && node.messageId === messageId && typeof node.turn === 'number') return node.turn
  }
  return undefined
}

export interface RoundMarkerProps {
  host: KnowledgeHost
  messageId: string
  sessionId?: string
  /** The session snapshot selector hook dsh passes to session-scoped entries. */
  useSession?: <T>(select: (snapshot: unknown) => T) => T
}

const noSession = <T,>(select: (snapshot: unknown) => T): T => select(undefined)

/** The `conversation.chat.assistant-actions` entry. */
export function KnowledgeRoundMarker({ host, messageId, sessionId, useSession }: RoundMarkerProps) {
  const lang = useSyncExternalStore(
    (l) => host.locale.subscribe(l),
    () => host.locale.get(),
  )
  const t = useMemo(() => translator(lang), [lang])
  const turn = (useSession ?? noSession)((snapshot) => turnOfMessage(snapshot, messageId))
  useSyncExternalStore(host.rounds.subscribe, host.rounds.getVersion)
  const verdict = sessionId && turn !== undefined ? host.rounds.get(sessionId, turn) : undefined
  if (!verdict) return null
  const base = { fontSize: 11.5, lineHeight: '18px', padding: '0 6px', borderRadius: 9, border: `1px solid ${palette.border}`, whiteSpace: 'nowrap' as const }
  if (verdict.kept) {
    const id = verdict.id
    return (
      <button
        type="button"
        data-testid="knowledge-round-marker"
        data-kept="true"
        data-turn={turn}
        title={id ? t('roundKeptHint', { id, score: verdict.score }) : t('roundKeptGone')}
        disabled={!id}
        onClick={(e) => {
          if (!id) return
          writePlace({ q: '', open: id })
          host.full.show(e.currentTarget)
        }}
        style={{ ...base, background: 'transparent', color: palette.secondary, cursor: id ? 'pointer' : 'default' }}
      >
        {t('roundKept')}
      </button>
    )
  }
  const reasons = (verdict.reasons ?? []).map((r) => reasonLabel(r, t).slice(1))
  return (
    <span
      data-testid="knowledge-round-marker"
      data-kept="false"
      data-turn={turn}
      title={t('roundDroppedHint', { score: verdict.score, reasons: (verdict.reasons ?? []).join(', ') })}
      style={{ ...base, color: palette.tertiary }}
    >
      {reasons.length ? t('roundDroppedWhy', { reasons: reasons.slice(0, 2).join(lang === 'zh' ? '、' : ', ') }) : t('roundDropped')}
    </span>
  )
}
