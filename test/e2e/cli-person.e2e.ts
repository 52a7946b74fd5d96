/**
 * The CLI as a person meets it in the first minutes (issue 28, items 4, 21, 22, 23): the built `lib/cli/bin.js` in a
 * subprocess, piped or on a real terminal (`script` gives it a pseudo-terminal), with the environment a shell has.
 * Build first (`node scripts/build.mjs`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { personSession } from '../../src/knowledge/documents/paths.js'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-person-${name}-`))

/** The environment of a shell: no NO_COLOR, no FORCE_COLOR, no root from the test's own environment. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  for (const key of ['NO_COLOR', 'FORCE_COLOR', 'DSH_KNOWLEDGE_ROOT']) if (!(key in extra)) delete env[key]
  return env
}
const cli = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) =>
  spawnCollect(process.execPath, [BIN, ...args], { cwd: options.cwd ?? tmpdir(), env: shellEnv(options.env) }, options.input ?? '')
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
/** The command on a pseudo-terminal (util-linux `script`), as a person types it; its output as the terminal got it. */
const onTerminal = (args: string[], env: Record<string, string> = {}) =>
  spawnCollect('script', ['-qec', [process.execPath, BIN, ...args].map(quote).join(' '), '/dev/null'], { env: shellEnv({ TERM: 'xterm', ...env }) })

const BOLD = '\x1b[1m'
let root = ''
let ws = ''
let sub = ''
let found = ''

beforeAll(async () => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  const base = tmp('tree')
  ws = join(base, 'project')
  sub = join(ws, 'packages/app')
  mkdirSync(join(ws, '.git'), { recursive: true })
  mkdirSync(sub, { recursive: true })
  root = join(tmp('root'), 'kb')
  const round = {
    session: 'session-5a5a5a5a-1111-4222-8333-444455556666',
    turn: 1,
    cwd: sub,
    question: 'Why does the redis cache miss after deploy?',
    answer: 'The cause was the key prefix: deploys changed REDIS_PREFIX, so every key missed. Fixed by pinning `REDIS_PREFIX=app:v2` in the env file, because the prefix must outlive a deploy.',
    outcome: 'completed',
    tools: [{ name: 'bash', arguments: '{"command":"redis-cli --scan --pattern app:*"}' }],
  }
  const r = await cli(['capture', '--root', root, '--json'], { input: JSON.stringify(round) })
  expect(r.code, r.stderr).toBe(0)
  found = JSON.parse(r.stdout).id
  // A hand-written document with no workspace, and one in the project root itself.
  mkdirSync(join(root, 'manual'), { recursive: true })
  writeFileSync(join(root, 'manual/runbook.md'), '---\ntitle: Redis runbook\n---\n\n# Redis runbook\n\nFlush the redis cache only with the prefix.\n')
  writeFileSync(join(root, 'manual/top.md'), `---\ntitle: Project notes\ncwd: ${ws}\n---\n\n# Project notes\n\n## Finding\n\nredis lives on port 6380 here.\n\n## Evidence\n\nThe compose file.\n`)
}, 180_000)

describe('search and read speak to a person (item 4)', () => {
  it('piped: no Markdown marks, no ANSI, and the hint is a dsh-knowledge command', async () => {
    const r = await cli(['search', 'redis', 'prefix', '--root', root])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(found)
    expect(r.stdout).toContain('Read one with: dsh-knowledge read <id>')
    expect(r.stdout).not.toContain('knowledge_read(')
    expect(r.stdout).not.toContain('**')
    expect(r.stdout).not.toContain('\x1b[')
    expect(r.stdout).toMatch(/REDIS_PREFIX|prefix/)
  })

  it('on a terminal: matches in bold; NO_COLOR turns that off; --json keeps the documented ** marks', async () => {
    const tty = await onTerminal(['search', 'redis', 'prefix', '--root', root])
    expect(tty.code, tty.stdout).toBe(0)
    expect(tty.stdout).toContain(`${BOLD}prefix\x1b[22m`)
    expect(tty.stdout).not.toContain('**')
    const plain = await onTerminal(['search', 'redis', 'prefix', '--root', root], { NO_COLOR: '1' })
    expect(plain.stdout).toContain(found)
    expect(plain.stdout).not.toContain('\x1b[1m')
    expect(plain.stdout).not.toContain('**')
    const forced = await cli(['search', 'redis', 'prefix', '--root', root], { env: { FORCE_COLOR: '1' } })
    expect(forced.stdout).toContain(BOLD)
    const hits = JSON.parse((await cli(['search', 'redis', 'prefix', '--root', root, '--json'])).stdout)
    expect(hits.find((h: { id: string }) => h.id === found).snippet).toMatch(/\*\*\w+\*\*/)
  })

  it('read on a terminal: links as ids, the status notice without its marker, bold as bold; piped: the file as on disk', async () => {
    const at = join(tmp('read'), 'kb')
    const old = JSON.parse((await cli(['note', '--title', 'Cache key', '--finding', 'The key holds the **lockfile** hash.', '--root', at, '--json'])).stdout)
    const now = JSON.parse(
      (await cli(['note', '--title', 'Cache key with Node', '--finding', 'The key holds the lockfile hash and the Node version.', '--supersedes', old.id, '--root', at, '--json'])).stdout,
    )
    const disk = readFileSync(join(at, old.path), 'utf8')
    expect(disk).toContain('<!-- knowledge:status -->')
    expect(disk).toMatch(/\]\(\.{1,2}\/[^)]+\.md\)/)
    const piped = await cli(['read', old.id, '--root', at])
    expect(piped.stdout).toBe(disk)
    const tty = await onTerminal(['read', old.id, '--root', at])
    expect(tty.code, tty.stdout).toBe(0)
    const shown = tty.stdout.replace(/\r\n/g, '\n')
    expect(shown).toContain(`${BOLD}Superseded\x1b[22m by [Cache key with Node](${now.id})`)
    expect(shown).toContain(`${BOLD}lockfile\x1b[22m hash`)
    expect(shown).not.toContain('knowledge:status')
    expect(shown).not.toMatch(/\]\(\.{1,2}\//)
    expect(shown.startsWith(disk.slice(0, disk.indexOf('# Cache key')))).toBe(true)
  })

  it('an unknown id points to dsh-knowledge search, not to the model tool', async () => {
    const r = await cli(['read', 'deadbeef-t9', '--root', root])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no document deadbeef-t9; find ids with `dsh-knowledge search <words>` or `dsh-knowledge list`')
    expect(r.stderr).not.toContain('knowledge_search')
  })
})

describe('first-minutes rough edges (item 21)', () => {
  it.each([
    ['a --root that does not exist', () => ['--root', join(root, 'nope')], {}, /no knowledge base at .*nope: the folder does not exist \(named by --root\)/],
    ['a --root that is a file', () => ['--root', join(root, 'manual/runbook.md')], {}, /runbook\.md is not a folder: --root must name the folder/],
  ])('%s is a clear error with exit 2, for every reading command', async (_name, flags, env, message) => {
    for (const command of [['search', 'redis'], ['list'], ['stats'], ['read', found], ['check'], ['health']]) {
      const r = await cli([...command, ...flags()], { env })
      expect(r.code, `${command[0]}: ${r.stdout}${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(message)
    }
  })

  it('a missing $DSH_KNOWLEDGE_ROOT is named as such; capture and note still create a new base', async () => {
    const missing = join(tmp('env'), 'kb')
    const r = await cli(['search', 'redis'], { env: { DSH_KNOWLEDGE_ROOT: missing } })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`no knowledge base at ${missing}: the folder does not exist (named by $DSH_KNOWLEDGE_ROOT)`)
    const note = await cli(['note', '--title', 'First note', '--finding', 'A new base starts with a note.', '--root', missing])
    expect(note.code, note.stderr).toBe(0)
    expect(allDocuments(missing)).toHaveLength(1)
  })

  it('`list | head -1` ends quietly: no EPIPE stack trace, exit 0', async () => {
    const many = join(tmp('many'), 'kb')
    mkdirSync(join(many, 'manual'), { recursive: true })
    for (let k = 0; k < 3000; k++) writeFileSync(join(many, `manual/doc-${k}.md`), `---\ntitle: Document number ${k} with a fairly long title to fill the pipe\n---\n\nbody ${k}\n`)
    const r = await spawnCollect('bash', ['-c', `${quote(process.execPath)} ${quote(BIN)} list --root ${quote(many)} | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], { env: shellEnv() })
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1)
    expect(r.stderr).not.toMatch(/EPIPE|Error|at .*\.js/)
    expect(r.stderr).toContain('status=0')
  }, 180_000)

  it('read --section picks one section like the tool (exact or unique prefix) and refuses an unknown one', async () => {
    const [top] = JSON.parse((await cli(['list', '--root', root, '--json'])).stdout).filter((m: { title: string }) => m.title === 'Project notes')
    const r = await cli(['read', top.id, '--root', root, '--section', 'evid'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`---\ntitle: Project notes\ncwd: ${ws}\n---\n\n## Evidence\n\nThe compose file.\n`)
    const j = JSON.parse((await cli(['read', top.id, '--root', root, '--section', 'Finding', '--json'])).stdout)
    expect(j).toMatchObject({ section: 'Finding', sections: ['Finding', 'Evidence'] })
    expect(j.text).toContain('port 6380')
    const bad = await cli(['read', top.id, '--root', root, '--section', 'Appendix'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`document ${top.id} has no section "Appendix"; its sections: Finding · Evidence`)
  })

  it('--help names --status and --section', async () => {
    const r = await cli(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/search <query> .*--status S/)
    expect(r.stdout).toMatch(/list .*--status S/)
    expect(r.stdout).toMatch(/read <id> \[--section NAME\]/)
    expect(r.stdout).toContain('--status is active|superseded|retired|all')
  })

  it('text stats lists documents per workspace, a sub-folder counted under its git root', async () => {
    const r = await cli(['stats', '--root', root])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    const at = lines.indexOf('by workspace (2):')
    expect(at, r.stdout).toBeGreaterThan(0)
    expect(lines.slice(at + 1, at + 3).map((l) => l.trim().split(/\s+/))).toEqual([
      ['2', ws],
      ['1', '(no', 'workspace:', 'hand-written,', 'visible', 'everywhere)'],
    ])
  })
})

describe("a person's notes (items 22, 23)", () => {
  const name =
    userInfo()
      .username.toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 16) || 'me'

  it('keeps tags in any script, Unicode-normalised, and finds them with --tag', async () => {
    const at = join(tmp('tags'), 'kb')
    const r = await cli(['note', '--title', 'Redis latency', '--finding', 'SCAN on a big keyspace stalls redis.', '--tags', 'redis,性能，ＣＩ、Café', '--root', at, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const [doc] = allDocuments(at)
    expect(doc.text).toMatch(/^tags: \["redis", "性能", "ci", "café"\]$/m)
    const hits = JSON.parse((await cli(['search', 'redis', '--tag', '性能', '--root', at, '--json'])).stdout)
    expect(hits.map((h: { id: string }) => h.id)).toEqual([JSON.parse(r.stdout).id])
    const list = JSON.parse((await cli(['list', '--tag', 'ＣＩ', '--root', at, '--json'])).stdout)
    expect(list).toHaveLength(1)
  })

  it('land under the person who wrote them, with ids that read well; an old "notes" id still reads', async () => {
    const at = join(tmp('ids'), 'kb')
    // A note written by an earlier version, in the old shared "notes" session.
    mkdirSync(join(at, 'notes'), { recursive: true })
    writeFileSync(
      join(at, 'notes/notesab5-n1-old-finding.md'),
      '---\nid: notesab5-n1\ntitle: Old finding\nkind: note\nsession: notes\ncreated: 2026-01-01T00:00:00.000Z\n---\n\n# Old finding\n\n## Finding\n\nStill here.\n',
    )
    const first = JSON.parse((await cli(['note', '--title', 'One', '--finding', 'The first finding of the day.', '--root', at, '--json'])).stdout)
    const second = JSON.parse((await cli(['note', '--title', 'Two', '--finding', 'The second finding of the day.', '--root', at, '--json'])).stdout)
    expect([first.id, second.id]).toEqual([`${name}-n1`, `${name}-n2`])
    const session = personSession(userInfo().username, hostname())
    expect(session).toMatch(new RegExp(`^person-${name}-[0-9a-f]{8}$`))
    expect(first.path.startsWith(`${session}/${name}-n1-`)).toBe(true)
    expect(readFileSync(join(at, first.path), 'utf8')).toContain(`\nsession: ${session}\n`)
    const old = await cli(['read', 'notesab5-n1', '--root', at])
    expect(old.code, old.stderr).toBe(0)
    expect(old.stdout).toContain('Still here.')
  })

  it('two machines of one person write different sessions, so a shared root never gets one id twice', () => {
    expect(personSession('alice', 'laptop')).not.toBe(personSession('alice', 'desktop'))
    expect(personSession('Alice Émile', 'x')).toMatch(/^person-aliceemile-[0-9a-f]{8}$/)
    expect(personSession('张三', 'x')).toMatch(/^person-me-[0-9a-f]{8}$/)
  })
})
