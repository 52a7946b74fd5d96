/**
 * Codex's session files ("rollouts"): JSONL under `<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`
 * (`<codex home>` is `$CODEX_HOME`, else `~/.codex`). Each line is `{timestamp, type, payload}` with `type`
 * `session_meta` (`id`, `cwd`, `timestamp`), `response_item` (the model's items: `message {role, content:
 * [{type: input_text|output_text, text}]}`, `function_call {name, arguments, call_id}`, `function_call_output
 * {call_id, output}`, `custom_tool_call`/`custom_tool_call_output`, `local_shell_call {call_id, action}`,
 * `reasoning`), `event_msg` (UI events; `user_message {message}` is what the person typed) and `turn_context`.
 *
 * The person's words: `event_msg` `user_message` where the file has them (newer Codex), else `response_item` user
 * messages minus what Codex injects in the person's name (`<environment_context>`, `<user_instructions>`, AGENTS.md
 * instructions). Developer/system messages and reasoning are never read.
 * @module dsh-knowledge-sync/cli/transcripts/codex
 */
import { basename } from 'node:path'
import { asText, sessionIdOf, timeOf, type Transcript, TurnBuilder } from './turns.js'

interface Line {
  timestamp?: unknown
  type?: unknown
  payload?: Record<string, unknown>
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content
        .filter((c) => c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string')
        .map((c) => (c as { text: string }).text)
        .join('\n')
    : typeof content === 'string'
      ? content
      : ''

/** Text Codex sends as a user message that the person did not type. */
export function injectedByCodex(text: string): boolean {
  const t = text.trimStart()
  return /^<(environment_context|user_instructions|user_shell_command|turn_aborted)>/.test(t) || /^# AGENTS\.md instructions/.test(t) || /^<INSTRUCTIONS>/.test(t)
}

/** A function call's output: a string, or `{content, success}` (the content a string or content items). */
function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false }
  if (output && typeof output === 'object') {
    const o = output as { content?: unknown; success?: unknown }
    return { text: typeof o.content === 'string' ? o.content : textOf(o.content) || asText(o), isError: o.success === false }
  }
  return { text: asText(output), isError: false }
}

/** One Codex rollout (its parsed lines) as a session of dsh-shaped events. */
export function codexTranscript(file: string, lines: unknown[], skipped: number): Transcript {
  const rows = lines as Line[]
  const hasUserEvents = rows.some((l) => l.type === 'event_msg' && l.payload?.type === 'user_message')
  const turns = new TurnBuilder()
  let session: unknown
  let cwd = ''
  let createdAt: number | undefined
  for (const line of rows) {
    const p = line.payload
    if (!p || typeof p !== 'object') continue
    const time = timeOf(line.timestamp)
    if (line.type === 'session_meta') {
      session ??= p.id
      if (!cwd && typeof p.cwd === 'string') cwd = p.cwd
      createdAt ??= timeOf(p.timestamp) ?? time
      continue
    }
    if (line.type === 'turn_context') {
      if (!cwd && typeof p.cwd === 'string') cwd = p.cwd
      continue
    }
    if (line.type === 'event_msg') {
      if (hasUserEvents && p.type === 'user_message' && typeof p.message === 'string' && !injectedByCodex(p.message)) turns.person(p.message, time)
      continue
    }
    if (line.type !== 'response_item') continue
    switch (p.type) {
      case 'message': {
        const text = textOf(p.content)
        if (p.role === 'user') {
          if (!hasUserEvents && !injectedByCodex(text)) turns.person(text, time)
        } else if (p.role === 'assistant') turns.assistant(text, time)
        break
      }
      case 'function_call':
      case 'custom_tool_call':
        turns.toolCall(asText(p.call_id), asText(p.name) || 'tool', asText(p.arguments ?? p.input ?? ''), time)
        break
      case 'local_shell_call':
        turns.toolCall(asText(p.call_id ?? p.id), 'shell', asText(p.action ?? {}), time)
        break
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const out = outputOf(p.output)
        turns.toolResult(asText(p.call_id), out.text, out.isError, time)
        break
      }
    }
  }
  const fromName = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(basename(file))?.[1]
  return { id: sessionIdOf(session ?? fromName, basename(file).replace(/\.jsonl$/, '')), cwd, createdAt: createdAt ?? 0, events: turns.finish(), skipped }
}
