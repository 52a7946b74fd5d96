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

describe('one session in two transcript files', () => {
  it('files the session under the longer copy’s workspace and start, not the first file’s', async () => {
    const dir = tmp()
    mkdirSync(join(dir, 'proj'))
    const line = (o: object) => JSON.stringify(o)
    const turn = (n: number, cwd: string, at: string) => [
      line({ type: 'user', sessionId: 'dup-session-1', cwd, timestamp: at, message: { role: 'user', content: `Question number ${n} about the flaky build?` } }),
      line({ type: 'assistant', sessionId: 'dup-session-1', cwd, timestamp: at, message: { role: 'assistant', content: [{ type: 'text', text: `Answer number ${n}: pin the toolchain.` }] } }),
    ]
    write(join(dir, 'proj'), 'a-short.jsonl', [...turn(1, '/ws/old', '2026-11-01T10:00:00Z')])
    write(join(dir, 'proj'), 'b-long.jsonl', [...turn(1, '/ws/new', '2026-11-05T10:00:00Z'), ...turn(2, '/ws/new', '2026-11-05T10:05:00Z'), ...turn(3, '/ws/new', '2026-11-05T10:09:00Z')])
    const reader = openTranscripts('claude-code', dir)
    const { sessions } = await reader.list()
    expect(sessions).toHaveLength(1)
    expect(sessions[0].cwd).toBe('/ws/new')
    expect(sessions[0].createdAt).toBe(Date.parse('2026-11-05T10:00:00Z'))
    expect((await reader.events(sessions[0].id)).filter((e) => e.type === 'turn/start')).toHaveLength(3)
  })

  it('holds no transcript between list() and events(): each session is read from its file when its rounds are asked for', async () => {
    const dir = tmp()
    mkdirSync(join(dir, 'proj'))
    const line = (o: object) => JSON.stringify(o)
    const turn = (id: string, n: number) => [
      line({ type: 'user', sessionId: id, cwd: '/ws', timestamp: '2026-11-05T10:00:00Z', message: { role: 'user', content: `Question number ${n} about the flaky build?` } }),
      line({
        type: 'assistant',
        sessionId: id,
        cwd: '/ws',
        timestamp: '2026-11-05T10:00:01Z',
        message: { role: 'assistant', content: [{ type: 'text', text: `Answer number ${n}: pin the toolchain.` }] },
      }),
    ]
    write(join(dir, 'proj'), 's1.jsonl', turn('held-session-1', 1))
    write(join(dir, 'proj'), 's2.jsonl', turn('held-session-2', 1))
    const reader = openTranscripts('claude-code', dir)
    const { sessions } = await reader.list()
    expect(sessions).toHaveLength(2)
    const [one, two] = sessions.map((s) => s.id).sort()
    // The agent wrote on since list(): the rounds come from the file as it is now, not from a copy kept in memory.
    write(join(dir, 'proj'), 's1.jsonl', [...turn('held-session-1', 1), ...turn('held-session-1', 2)])
    expect((await reader.events(one)).filter((e) => e.type === 'turn/start')).toHaveLength(2)
    // A file that now names another session is refused, not imported under the old id.
    write(join(dir, 'proj'), 's2.jsonl', turn('someone-else', 1))
    await expect(reader.events(two)).rejects.toThrow(/no longer holds session session-held-session-2/)
  })
})

describe('hostile timestamps', () => {
  it('reads an out-of-range numeric timestamp as no time, never a crash while folding the round', () => {
    const line = (o: object) => JSON.stringify(o)
    const lines = [1e300, -1e20, 8.64e15 + 1].flatMap((timestamp, i) => [
      line({ type: 'user', sessionId: 'time-session-1', timestamp, message: { role: 'user', content: `Question ${i} about the broken deploy?` } }),
      line({ type: 'assistant', sessionId: 'time-session-1', timestamp, message: { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}: roll back first.` }] } }),
    ])
    const t = claudeCodeTranscript(
      'time.jsonl',
      lines.map((l) => JSON.parse(l)),
      0,
    )
    const rs = rounds(t)
    expect(rs).toHaveLength(3)
    for (const r of rs) expect(Number.isNaN(Date.parse(r.created))).toBe(false)
  })
})
