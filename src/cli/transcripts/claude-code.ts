/**
 * Claude Code's session transcripts: one JSONL file per session under `<config>/projects/<project>/<session>.jsonl`
 * (`<config>` is `$CLAUDE_CONFIG_DIR`, else `~/.claude`). Each line is an entry with `type` (`user`, `assistant`,
 * and bookkeeping types such as `summary` or `file-history-snapshot`, which are skipped), `message` (`role`,
 * `content`: a string or blocks `text`, `thinking`, `tool_use {id, name, input}`, `tool_result {tool_use_id,
 * content, is_error}`), `sessionId`, `cwd`, `timestamp`, `isSidechain` (a subagent's line) and `isMeta` (text the
 * harness injected).
 *
 * The person's words are `user` entries whose content is text, minus what Claude Code writes in the person's name:
 * meta entries, slash-command echoes (`<command-name>…`, `<local-command-stdout>…`) and interruption markers.
 * A `user` entry of `tool_result` blocks carries tool results. Subagent (sidechain) lines are skipped, as live
 * capture skips subagent sessions. Thinking blocks are never read.
 * @module dsh-knowledge-sync/cli/transcripts/claude-code
 */
import { basename } from 'node:path'
import { asText, sessionIdOf, timeOf, type Transcript, TurnBuilder } from './turns.js'

interface Block {
  type?: unknown
  text?: unknown
  id?: unknown
  name?: unknown
  input?: unknown
  tool_use_id?: unknown
  content?: unknown
  is_error?: unknown
}

interface Entry {
  type?: unknown
  message?: { role?: unknown; content?: unknown }
  sessionId?: unknown
  cwd?: unknown
  timestamp?: unknown
  isSidechain?: unknown
  isMeta?: unknown
}

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content.filter((b) => b && typeof b === 'object') as Block[]) : [])

/** The text of text blocks (or a string). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  return blocksOf(content)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n')
}

/** Text Claude Code writes as a `user` entry that the person did not type. */
export function injectedByHarness(text: string): boolean {
  const t = text.trimStart()
  return /^<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|system-reminder)>/.test(t) || /^\[Request interrupted by user/.test(t)
}

/** One Claude Code transcript (its parsed lines) as a session of dsh-shaped events. */
export function claudeCodeTranscript(file: string, lines: unknown[], skipped: number): Transcript {
  const turns = new TurnBuilder()
  let session: unknown
  let cwd = ''
  let createdAt: number | undefined
  for (const raw of lines) {
    const entry = raw as Entry
    if (entry.type !== 'user' && entry.type !== 'assistant') continue
    if (entry.isSidechain === true) continue
    session ??= entry.sessionId
    if (!cwd && typeof entry.cwd === 'string') cwd = entry.cwd
    const time = timeOf(entry.timestamp)
    createdAt ??= time
    const content = entry.message?.content
    if (entry.type === 'user') {
      const results = blocksOf(content).filter((b) => b.type === 'tool_result')
      for (const r of results) turns.toolResult(asText(r.tool_use_id), typeof r.content === 'string' ? r.content : textOf(r.content), r.is_error === true, time)
      if (results.length || entry.isMeta === true) continue
      const text = textOf(content)
      if (!injectedByHarness(text)) turns.person(text, time)
      continue
    }
    for (const block of blocksOf(content)) {
      if (block.type === 'tool_use') turns.toolCall(asText(block.id), asText(block.name) || 'tool', asText(block.input ?? {}), time)
    }
    turns.assistant(textOf(content), time)
  }
  return { id: sessionIdOf(session, basename(file).replace(/\.jsonl$/, '')), cwd, createdAt: createdAt ?? 0, events: turns.finish(), skipped }
}
