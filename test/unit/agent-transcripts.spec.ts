/**
 * Claude Code and Codex transcripts → rounds: the person's words only (no injected context, meta entries, command
 * echoes or subagent lines), tool calls joined with their results, the last assistant text as the answer, a torn or
 * unanswered last turn left for a later import; and files that must not be read (links, FIFOs, huge lines) refused.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { foldRound } from '../../src/capture/round.js'
import { turnsOf } from '../../src/capture/backfill.js'
import { claudeCodeTranscript } from '../../src/cli/transcripts/claude-code.js'
import { codexTranscript } from '../../src/cli/transcripts/codex.js'
import { openTranscripts } from '../../src/cli/transcripts/index.js'
import { MAX_LINE_BYTES, readJsonLines } from '../../src/cli/transcripts/jsonl.js'
import { AWS_SECRET, CLAUDE_SESSION, claudeCodeLines, CODEX_SESSION, codexLines } from '../fixtures/agent-transcripts.js'

const tmp = () => mkdtempSync(join(tmpdir(), 'dsh-ks-transcripts-'))
const write = (dir: string, name: string, lines: string[]) => {
  const file = join(dir, name)
  writeFileSync(file, lines.join('\n'))
  return file
}
const rounds = (t: { id: string; cwd: string; events: Parameters<typeof turnsOf>[0] }) => turnsOf(t.events).map((e) => foldRound(e, { session: t.id, cwd: t.cwd }))

describe('Claude Code transcripts', () => {
  it('yields the rounds the person asked, with tools, answers, session and workspace', () => {
    const dir = tmp()
    const { values, skipped } = readJsonLines(write(dir, `${CLAUDE_SESSION}.jsonl`, claudeCodeLines()))
    expect(skipped).toBe(1) // the torn last line
    const t = claudeCodeTranscript(`${CLAUDE_SESSION}.jsonl`, values, skipped)
    expect(t.id).toBe(`session-${CLAUDE_SESSION}`)
    expect(t.cwd).toBe('/home/dev/shop')
    const rs = rounds(t)
    // The meta caveat, /clear echo, interruption marker and subagent prompt are not the person's words; the last
    // question ("Now rename the helper") has no answer yet, so it waits for a later import.
    expect(rs.map((r) => r.question)).toEqual(['Why does the checkout snapshot test fail on CI but pass locally?', 'Thanks!'])
    expect(rs[0].answer).toMatch(/^The snapshot renders local time/)
    expect(rs[0].answer).not.toContain('chain of thought')
    expect(rs[0].tools).toEqual([{ name: 'Bash', arguments: '{"command":"cat .github/workflows/ci.yml"}', result: expect.stringContaining(AWS_SECRET), isError: false }])
    expect(rs[0].outcome).toBe('completed')
    expect(rs.map((r) => r.turn)).toEqual([1, 2])
    expect(rs[0].created).toBe('2026-11-20T10:00:00.000Z')
  })
})

describe('Codex rollouts', () => {
  it("takes the person's messages from user_message events, never the injected AGENTS.md or environment context", () => {
    const dir = tmp()
    const file = write(dir, `rollout-2026-11-21T09-00-00-${CODEX_SESSION}.jsonl`, codexLines())
    const { values, skipped } = readJsonLines(file)
    const t = codexTranscript(file, values, skipped)
    expect(t.id).toBe(`session-${CODEX_SESSION}`)
    expect(t.cwd).toBe('/home/dev/api')
    const rs = rounds(t)
    expect(rs).toHaveLength(1)
    expect(rs[0].question).toBe('Why does migration 0042 fail with a duplicate key error?')
    expect(rs[0].answer).toMatch(/^Migration 0042 inserts the seed plan row that 0041/)
    expect(rs[0].tools[0]).toMatchObject({ name: 'shell', result: expect.stringContaining('INSERT INTO plans') })
    expect(JSON.stringify(rs)).not.toContain('secretreasoning')
  })

  it('falls back to user messages (minus injected ones) in a rollout without user_message events', () => {
    const lines = codexLines().filter((l) => !l.includes('"user_message"'))
    const t = codexTranscript(
      'rollout-x.jsonl',
      lines.map((l) => JSON.parse(l)),
      0,
    )
    expect(rounds(t).map((r) => r.question)).toEqual(['Why does migration 0042 fail with a duplicate key error?'])
  })
})

describe('hostile transcript files', () => {
  it('refuses links and FIFOs, skips over-long and non-JSON lines, and reports each bad file while the others import', async () => {
    const dir = tmp()
    const project = join(dir, '-home-dev-shop')
    mkdirSync(project)
    write(project, `${CLAUDE_SESSION}.jsonl`, claudeCodeLines())
    const secret = join(tmp(), 'id_ed25519')
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\n')
    symlinkSync(secret, join(project, 'linked.jsonl'))
    execFileSync('mkfifo', [join(project, 'fifo.jsonl')])
    write(project, 'junk.jsonl', ['not json', '[1,2,3]', '"string"', `{"type":"user","pad":"${'x'.repeat(MAX_LINE_BYTES + 10)}"}`, '{"type":"summary"}'])
    const logs = openTranscripts('claude-code', dir)
    const { sessions, unreadable } = await logs.list()
    expect(sessions.map((s) => s.id)).toEqual([`session-${CLAUDE_SESSION}`])
    expect(unreadable.map((u) => u.error).sort()).toEqual([expect.stringMatching(/fifo\.jsonl is not a regular file/), expect.stringMatching(/linked\.jsonl is a symbolic link/)])
    expect(readJsonLines(join(project, 'junk.jsonl'))).toEqual({ values: [{ type: 'summary' }], skipped: 4 })
    await logs.close()
  })

  it('says clearly when the folder does not exist', () => {
    expect(() => openTranscripts('codex', join(tmp(), 'nope'))).toThrow(/no codex transcripts at .*nope \(give the folder with --transcripts\)/)
  })
})
