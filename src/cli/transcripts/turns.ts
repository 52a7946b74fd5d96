/**
 * Another agent's transcript as dsh-shaped session events, so its rounds go through the same fold → salience →
 * redaction → write path as live capture and dsh's own import (capture/backfill). A parser feeds what it reads, in
 * order, to a {@link TurnBuilder}: each message the person typed opens a turn; assistant messages, tool calls and
 * tool results belong to the open turn; the turn ends where the next one starts. A last turn with no answer yet
 * (the agent is still working, or was cut off) is left out, so a later import reads it once it is answered.
 * @module dsh-knowledge-sync/cli/transcripts/turns
 */
import type { TurnEvent } from '../../capture/round.js'

export interface Transcript {
  /** The session id rounds are filed under: `session-<the agent's session uuid>`. */
  id: string
  cwd: string
  /** When the session started (ms), for `--since`. */
  createdAt: number
  events: TurnEvent[]
  /** Lines of the file that could not be used (not JSON, too long, torn). */
  skipped: number
}

export class TurnBuilder {
  readonly events: TurnEvent[] = []
  private turn = 0
  private open = false
  private answered = false
  private lastOpen = 0

  /** A message the person typed, at `time` (ms): ends the open turn and starts the next. */
  person(text: string, time: number | undefined): void {
    if (!text.trim()) return
    this.close(time)
    this.turn++
    this.open = true
    this.answered = false
    this.lastOpen = this.events.length
    this.events.push({ type: 'turn/start', time, data: { turn: this.turn } })
    this.events.push({ type: 'user/message', time, data: { role: 'user', content: text, source: { kind: 'user' } } })
  }

  /** One assistant message; its text (possibly empty, for a message of tool calls only) is the answer if it is the last. */
  assistant(text: string, time: number | undefined): void {
    if (!this.open) return
    this.answered = text.trim().length > 0
    this.events.push({ type: 'assistant/message', time, data: { turn: this.turn, message: { content: text ? [{ type: 'text', text }] : [] } } })
  }

  toolCall(callId: string, name: string, args: string, time: number | undefined): void {
    if (!this.open) return
    this.answered = false
    this.events.push({ type: 'tool/call', time, data: { turn: this.turn, callId, name, arguments: args } })
  }

  toolResult(callId: string, text: string, isError: boolean, time: number | undefined): void {
    if (!this.open) return
    this.events.push({ type: 'tool/result', time, data: { turn: this.turn, message: { content: [{ type: 'tool-result', toolCallId: callId, content: text, isError }] } } })
  }

  /** The events of every answered turn (a trailing unanswered turn is dropped). */
  finish(): TurnEvent[] {
    if (this.open && !this.answered) {
      this.events.length = this.lastOpen
      this.open = false
    }
    this.close(undefined)
    return this.events
  }

  private close(time: number | undefined): void {
    if (!this.open) return
    this.events.push({ type: 'turn/end', time, data: { turn: this.turn, reason: { kind: 'completed' } } })
    this.open = false
  }
}

/** A timestamp field (ISO string or epoch ms) as ms, or undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

/** A value as tool-call text: strings as they are, anything else as JSON (bounded by the capture path later). */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}

/** A session id for the store from an agent's session uuid (or another id); ids stay `<first 8>-t<turn>`. */
export function sessionIdOf(raw: unknown, fallback: string): string {
  const id = typeof raw === 'string' && /^[A-Za-z0-9_-]{4,100}$/.test(raw) ? raw : fallback
  return id.startsWith('session-') ? id : `session-${id}`
}
