/**
 * Validation of a round given as JSON (`dsh-knowledge capture < round.json`). A malformed round is refused with a
 * message naming the field.
 * @module dsh-knowledge-sync/capture/round-json
 */
import type { Outcome, Round, ToolCall } from '../types.js'
import { boundedJson, JSON_LIMITS } from '../redact/json.js'

const OUTCOMES: Outcome[] = ['completed', 'no-answer', 'aborted', 'errored', 'blocked', 'max-tokens', 'interrupted']

/** A malformed round; the message names the field. */
export class RoundError extends Error {}

function field(obj: Record<string, unknown>, key: string, type: 'string' | 'number', where = ''): any {
  const value = obj[key]
  if (typeof value !== type) throw new RoundError(`round${where}.${key} must be a ${type}${value === undefined ? ' (missing)' : ` (got ${Array.isArray(value) ? 'array' : typeof value})`}`)
  return value
}

/**
 * Tool arguments given as a JSON value, serialized with bounded depth and size. Too deep is refused naming the field
 * (JSON.stringify would overflow the stack on 200k levels); too large keeps a marker in place of the rest, as the
 * plugin does.
 */
function argumentsText(value: unknown, k: number): string {
  const out = boundedJson(value)
  if (out.capped?.reason === 'depth') {
    throw new RoundError(`round.tools[${k}].arguments is nested deeper than ${JSON_LIMITS.depth} levels (at ${out.capped.path.slice(0, 200)}); pass it as a JSON string or flatten it`)
  }
  return out.text
}

/** Validates a round given as JSON; throws {@link RoundError} naming the first bad field. */
export function parseRound(input: unknown): Round {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new RoundError('round must be a JSON object')
  const obj = input as Record<string, unknown>
  const session = field(obj, 'session', 'string') as string
  if (!session.trim()) throw new RoundError('round.session must not be empty')
  const turn = field(obj, 'turn', 'number') as number
  if (!Number.isInteger(turn) || turn < 0) throw new RoundError('round.turn must be a non-negative integer')
  const cwd = field(obj, 'cwd', 'string') as string
  let created = new Date().toISOString()
  if (obj.created !== undefined) {
    if (typeof obj.created !== 'string' || Number.isNaN(Date.parse(obj.created))) throw new RoundError('round.created must be an ISO 8601 date string')
    created = new Date(obj.created).toISOString()
  }
  const question = field(obj, 'question', 'string') as string
  const answer = field(obj, 'answer', 'string') as string
  const outcome = field(obj, 'outcome', 'string') as Outcome
  if (!OUTCOMES.includes(outcome)) throw new RoundError(`round.outcome must be one of ${OUTCOMES.join(', ')}`)
  const rawTools = obj.tools ?? []
  if (!Array.isArray(rawTools)) throw new RoundError('round.tools must be an array')
  const tools: ToolCall[] = rawTools.map((raw, k) => {
    if (!raw || typeof raw !== 'object') throw new RoundError(`round.tools[${k}] must be an object`)
    const t = raw as Record<string, unknown>
    const name = field(t, 'name', 'string', `.tools[${k}]`) as string
    const args = t.arguments === undefined ? '{}' : typeof t.arguments === 'string' ? t.arguments : argumentsText(t.arguments, k)
    if (t.result !== undefined && typeof t.result !== 'string') throw new RoundError(`round.tools[${k}].result must be a string`)
    if (t.isError !== undefined && typeof t.isError !== 'boolean') throw new RoundError(`round.tools[${k}].isError must be a boolean`)
    return { name, arguments: args, result: t.result as string | undefined, isError: t.isError as boolean | undefined }
  })
  return { session, turn, cwd, created, question, answer, outcome, tools }
}
