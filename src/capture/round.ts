/**
 * Session events of one turn → a {@link Round}. Pure: no I/O.
 *
 * The question is the user's own words only (`source.kind === 'user'`); injected runtime context, goals, skills and
 * subagent notices are not the user's question. The answer is the text of the turn's last assistant message.
 * Reasoning blocks are never read.
 * @module dsh-knowledge-sync/capture/round
 */
import type { Outcome, Round, ToolCall } from '../types.js'
import { boundedJson } from '../redact/json.js'

/** The slice of a dsh session event this module reads (structurally typed, so the CLI and tests need no harness). */
export interface TurnEvent {
  type: string
  time?: number
  data?: any
}

interface Block {
  type?: string
  text?: unknown
  content?: unknown
  toolCallId?: unknown
  isError?: unknown
}

/** Text of a content value: a string, or the `text` blocks of a block list. Reasoning and tool-call blocks are skipped. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let out = ''
  for (const block of content as Block[]) {
    if (block && block.type === 'text' && typeof block.text === 'string') out += (out ? '\n' : '') + block.text
  }
  return out
}

/** A tool result's text: nested content blocks (text only) or a string. */
function resultText(block: Block): string {
  if (typeof block.content === 'string') return block.content
  if (Array.isArray(block.content)) return textOf(block.content)
  return ''
}

/** How a turn ended, from `turn/end`'s reason and whether the last assistant message had text. */
export function outcomeOf(reason: { kind?: string } | undefined, hasAnswer: boolean): Outcome {
  switch (reason?.kind) {
    case 'completed':
      return hasAnswer ? 'completed' : 'no-answer'
    case 'aborted':
      return 'aborted'
    case 'error':
      return 'errored'
    case 'blocked':
      return 'blocked'
    case 'max-tokens':
      return 'max-tokens'
    default:
      return 'interrupted'
  }
}

export interface FoldContext {
  session: string
  cwd: string
}

/** Folds one turn's events (from `turn/start` to `turn/end`, or fewer for an interrupted turn) into a round. */
export function foldRound(events: readonly TurnEvent[], context: FoldContext): Round {
  const questions: string[] = []
  let answer = ''
  let turn = 0
  let created: number | undefined
  let endReason: { kind?: string } | undefined
  const calls = new Map<string, ToolCall>()
  const order: ToolCall[] = []

  for (const event of events) {
    const data = event.data ?? {}
    switch (event.type) {
      case 'turn/start':
        turn = Number(data.turn) || turn
        created ??= typeof event.time === 'number' ? event.time : undefined
        break
      case 'user/message':
        if (data.source?.kind === 'user') {
          const text = textOf(data.content).trim()
          if (text) questions.push(text)
        }
        break
      case 'assistant/message':
        // Only the last assistant message's text is the answer; an interrupted prefix is not an answer either.
        answer = data.interrupted ? '' : textOf(data.message?.content).trim()
        break
      case 'tool/call':
      case 'tool/code-dispatch-start': {
        // Arguments given as a value (code-mode dispatches) are serialized with bounded depth and size: a hostile
        // 200k-deep value becomes a marker in place of its deep part, never a stack overflow that loses the round.
        const raw = data.arguments ?? data.args ?? {}
        const call: ToolCall = { name: String(data.name ?? data.tool ?? 'tool'), arguments: typeof raw === 'string' ? raw : boundedJson(raw).text }
        const id = String(data.callId ?? data.dispatchId ?? order.length)
        calls.set(id, call)
        order.push(call)
        break
      }
      case 'tool/result': {
        const block = (data.message?.content?.[0] ?? {}) as Block
        const call = calls.get(String(block.toolCallId))
        if (call) {
          call.result = resultText(block)
          call.isError = Boolean(block.isError)
        }
        break
      }
      case 'turn/end':
        turn = Number(data.turn) || turn
        endReason = data.reason
        break
    }
  }
  return {
    session: context.session,
    turn,
    cwd: context.cwd,
    created: new Date(created ?? Date.now()).toISOString(),
    question: questions.join('\n\n'),
    answer,
    outcome: outcomeOf(endReason, answer.length > 0),
    tools: order,
  }
}

/**
 * A title from the (already redacted) question: its first meaningful line, whitespace collapsed, cut on a word
 * boundary. The store calls this on redacted text (see `DerivedTitle`): a title cut before redaction could keep a
 * token whose context was cut away, or the start of one. The cut never splits `mask`.
 */
export function titleFrom(question: string, max = 80, mask = ''): string {
  const line =
    question
      .split('\n', 200)
      .map((l) => l.replace(/^[#>*\-\s]+/, '').trim())
      .find((l) => l.length > 0) ?? ''
  const flat = line.replace(/\s+/g, ' ')
  if (flat.length <= max) return flat || 'Untitled round'
  let end = max
  const space = flat.lastIndexOf(' ', max)
  if (space > max / 2) end = space
  if (mask) {
    const at = flat.lastIndexOf(mask, end - 1)
    if (at >= 0 && at + mask.length > end) end = at
  }
  const code = flat.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end-- // never split a surrogate pair
  return `${flat.slice(0, end).trimEnd()}…`
}
