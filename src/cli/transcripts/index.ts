/**
 * Other agents' transcripts on this machine, as `dsh-knowledge import --from claude-code|codex` reads them: the
 * files found under the agent's transcript folder (never through a link), each parsed on its own, so one unreadable
 * or hostile file is reported and skipped while the others import.
 * @module dsh-knowledge-sync/cli/transcripts
 */
import { readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { SessionHeaderLike, SessionLogReader, Unreadable } from '../dsh-sessions.js'
import { claudeCodeTranscript } from './claude-code.js'
import { codexTranscript } from './codex.js'
import { readJsonLines } from './jsonl.js'
import type { Transcript } from './turns.js'

export const AGENTS = ['claude-code', 'codex'] as const
export type Agent = (typeof AGENTS)[number]

/** At most this many transcript files are read in one import (a folder with more is cut, and the summary says so). */
export const MAX_TRANSCRIPTS = 100_000

/** Where an agent keeps its transcripts: `--transcripts`, else the agent's own environment variable, else its default. */
export function transcriptFolder(agent: Agent, explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit)
  if (agent === 'claude-code') return join(env.CLAUDE_CONFIG_DIR ? resolve(env.CLAUDE_CONFIG_DIR) : join(homedir(), '.claude'), 'projects')
  return join(env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(homedir(), '.codex'), 'sessions')
}

/** `.jsonl` files below `dir` (Claude Code: `<project>/<session>.jsonl`; Codex: `YYYY/MM/DD/rollout-*.jsonl`). */
function transcriptFiles(agent: Agent, dir: string, unreadable: Unreadable[]): string[] {
  const out: string[] = []
  const walk = (folder: string, depth: number) => {
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    } catch (error) {
      unreadable.push({ session: folder, error: (error as Error).message.split('\n')[0] })
      return
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_TRANSCRIPTS) return
      // Links are not followed (a linked folder or file could lead anywhere); subagent folders are not sessions.
      if (e.isDirectory() && depth > 0 && e.name !== 'subagents') walk(join(folder, e.name), depth - 1)
      else if ((e.isFile() || e.isFIFO() || e.isSymbolicLink()) && e.name.endsWith('.jsonl') && (agent === 'claude-code' || e.name.startsWith('rollout-'))) out.push(join(folder, e.name))
    }
  }
  walk(dir, agent === 'claude-code' ? 1 : 4)
  return out
}

/** Opens an agent's transcripts as session logs for the import path; a clear error when the folder is missing. */
export function openTranscripts(agent: Agent, dir: string): SessionLogReader & { files: number } {
  const unreadable: Unreadable[] = []
  let files: string[]
  try {
    readdirSync(dir)
    files = transcriptFiles(agent, dir, unreadable)
  } catch {
    throw new Error(`no ${agent} transcripts at ${dir} (give the folder with --transcripts)`)
  }
  const parse = agent === 'claude-code' ? claudeCodeTranscript : codexTranscript
  const read = (file: string): Transcript => {
    const { values, skipped } = readJsonLines(file)
    return parse(file, values, skipped)
  }
  // Only which file holds each session is kept between list() and events(): a folder of many large transcripts is
  // read one file at a time, twice (once for the headers, once when the session's rounds are imported), never held.
  const owner = new Map<string, { file: string; events: number }>()
  return {
    files: files.length,
    async list() {
      // One header per session, from the copy whose events are kept (its workspace and start go with its rounds).
      const sessions = new Map<string, SessionHeaderLike>()
      for (const file of files) {
        try {
          const t = read(file)
          if (!t.events.length) continue // no answered round in it (yet)
          // Two files naming one session (a resumed session copied forward) keep the longer.
          const known = owner.get(t.id)
          if (known && known.events >= t.events.length) continue
          owner.set(t.id, { file, events: t.events.length })
          sessions.set(t.id, { id: t.id, createdAt: t.createdAt, cwd: t.cwd })
        } catch (error) {
          unreadable.push({ session: file, error: (error as Error).message.split('\n')[0] })
        }
      }
      return { sessions: [...sessions.values()], unreadable }
    },
    async events(id) {
      const known = owner.get(id)
      if (!known) throw new Error(`unknown session ${id}`)
      // Read again: the agent may have written more since list(); a file that now names another session is refused.
      const t = read(known.file)
      if (t.id !== id) throw new Error(`${known.file} no longer holds session ${id}`)
      return t.events
    },
    async close() {
      owner.clear()
    },
  }
}
