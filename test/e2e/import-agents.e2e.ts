/**
 * `dsh-knowledge import --from claude-code|codex` as a user runs it (the built CLI in a subprocess, the agents'
 * default folders found through their own environment variables): rounds become documents through the live capture
 * path (redacted), a second run writes nothing, a dry run writes nothing. Build first (`node scripts/build.mjs`).
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { AWS_SECRET, CLAUDE_SESSION, claudeCodeLines, CODEX_SESSION, codexLines } from '../fixtures/agent-transcripts.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-import-${name}-`))
const cli = (args: string[], env: Record<string, string>) => spawnCollect(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env } })

describe('import --from other agents', () => {
  it('Claude Code: imports the answered rounds from $CLAUDE_CONFIG_DIR/projects, redacted, once', async () => {
    const config = tmp('claude')
    mkdirSync(join(config, 'projects/-home-dev-shop'), { recursive: true })
    writeFileSync(join(config, `projects/-home-dev-shop/${CLAUDE_SESSION}.jsonl`), claudeCodeLines().join('\n'))
    const root = join(tmp('root'), 'kb')
    const env = { CLAUDE_CONFIG_DIR: config }
    const dry = await cli(['import', '--from', 'claude-code', '--root', root, '--dry-run', '--json'], env)
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({ sessions: 1, rounds: 2, dryRun: true })
    expect(allDocuments(root)).toHaveLength(0)

    const first = await cli(['import', '--from', 'claude-code', '--root', root, '--json'], env)
    expect(first.code, first.stderr).toBe(0)
    const summary = JSON.parse(first.stdout)
    expect(summary).toMatchObject({ sessions: 1, rounds: 2, kept: 1, dropped: 1, skipped: 0 })
    const docs = allDocuments(root)
    expect(docs).toHaveLength(1)
    expect(docs[0].text).toContain('Why does the checkout snapshot test fail on CI but pass locally?')
    expect(docs[0].text).toContain('cwd: /home/dev/shop')
    expect(docs[0].text).toMatch(/^id: 7f3c2a10-t1$/m)
    expect(docs[0].text).not.toContain(AWS_SECRET)

    const again = await cli(['import', '--from', 'claude-code', '--root', root, '--json'], env)
    expect(JSON.parse(again.stdout)).toMatchObject({ kept: 0, skipped: 2 })
    expect(allDocuments(root)).toHaveLength(1)
  }, 180_000)

  it('Codex: imports from $CODEX_HOME/sessions/YYYY/MM/DD', async () => {
    const home = tmp('codex')
    mkdirSync(join(home, 'sessions/2026/11/21'), { recursive: true })
    writeFileSync(join(home, `sessions/2026/11/21/rollout-2026-11-21T09-00-00-${CODEX_SESSION}.jsonl`), codexLines().join('\n'))
    const root = join(tmp('root'), 'kb')
    const run = await cli(['import', '--from', 'codex', '--root', root], { CODEX_HOME: home })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^imported: 1 new round\(s\) of 1 session\(s\), 1 round\(s\)/)
    const docs = allDocuments(root)
    expect(docs).toHaveLength(1)
    expect(docs[0].text).toContain('ON CONFLICT DO NOTHING')
    expect(docs[0].text).not.toContain('AGENTS.md instructions')
  }, 180_000)

  it('refuses an unknown agent with a usage error', async () => {
    const run = await cli(['import', '--from', 'cursor', '--root', join(tmp('root'), 'kb')], {})
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/--from must be one of dsh, claude-code, codex/)
  })
})
