/**
 * Correcting knowledge with the real `dsh-knowledge` CLI (the built `lib/cli/bin.js` in a subprocess): note, note
 * with --supersedes, search order and the "superseded by" mark, retire and restore, check with a broken link in a
 * hand-written document, and refusals with their reason. Build first (`node scripts/build.mjs`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.DSH_KNOWLEDGE_ROOT
  return spawnCollect(process.execPath, [BIN, ...args], { cwd: tmpdir(), env })
}
const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-rel-cli-${name}-`))

let root = '',
  ws = ''
/** The two notes' ids (the CLI's session folder is `notes`; the store picks the id prefix). */
let A = '',
  B = ''
beforeAll(() => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  root = join(tmp('root'), 'kb')
  ws = tmp('ws')
  mkdirSync(join(ws, '.git'))
})

describe('dsh-knowledge note / supersede / retire / restore / check', () => {
  it('notes a finding, supersedes it with a new note, and search lists the new one first with the old one marked', async () => {
    const at = ['--root', root, '--cwd', ws]
    const first = json(await cli(['note', ...at, '--json', '--title', 'Staging deploys need VPN', '--finding', 'Deploying to staging requires the office VPN because the registry is private.']))
    expect(first).toMatchObject({ id: expect.stringMatching(/^notes\w*-n1$/), kind: 'note', supersedes: [] })
    A = first.id
    const second = json(
      await cli([
        'note',
        ...at,
        '--json',
        '--title',
        'Staging deploys use the public registry mirror',
        '--finding',
        'Deploying to staging no longer requires the VPN: the registry has a public mirror since November.',
        '--supersedes',
        first.id,
        '--link',
        first.id,
      ]),
    )
    B = second.id
    expect(second).toMatchObject({ id: A.replace(/n1$/, 'n2'), supersedes: [A] })
    const hits = json(await cli(['search', 'staging deploy VPN registry', ...at, '--json']))
    expect(hits.map((h: { id: string }) => h.id)).toEqual([B, A])
    expect(hits[1]).toMatchObject({ status: 'superseded', supersededBy: B })
    const text = await cli(['search', 'staging deploy VPN registry', ...at])
    expect(text.stdout).toMatch(new RegExp(`2\\. ${A} \\(v:2\\) — Staging deploys need VPN\\n .* · superseded by ${B}`))
    const read = json(await cli(['read', A, ...at, '--json']))
    expect(read.supersededBy).toMatchObject({ id: B })
    expect(read.linkedFrom).toEqual([{ id: B, title: 'Staging deploys use the public registry mirror' }])
    expect(ledgerEntries(root).filter((e) => e.type === 'status')).toMatchObject([{ id: A, status: 'superseded', by: B, actor: 'cli' }])
  })

  it('retire takes the document out of search and list; restore brings it back; the file stays on disk throughout', async () => {
    const at = ['--root', root, '--cwd', ws]
    const missing = await cli(['retire', B, ...at])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('"reason" is required')
    json(await cli(['retire', B, ...at, '--reason', 'The public mirror was shut down again.', '--json']))
    expect(json(await cli(['search', 'staging deploy', ...at, '--json'])).map((h: { id: string }) => h.id)).toEqual([A])
    expect(json(await cli(['list', ...at, '--json'])).map((m: { id: string }) => m.id)).toEqual([A])
    expect(json(await cli(['list', ...at, '--json', '--status', 'retired'])).map((m: { id: string }) => m.id)).toEqual([B])
    const file = allDocuments(root).find((d) => d.path.includes(B))!
    expect(parseDocument(file.text, file.path, 'x', 0).meta).toMatchObject({ status: 'retired', retired: { reason: 'The public mirror was shut down again.' } })
    expect(json(await cli(['restore', B, ...at, '--json']))).toEqual({ id: B, status: 'active' })
    expect(json(await cli(['search', 'staging deploy', ...at, '--json'])).map((h: { id: string }) => h.id)).toEqual([B, A])
    const restored = allDocuments(root).find((d) => d.path.includes(B))!
    expect(restored.text).not.toContain('knowledge:status')
    expect(parseDocument(restored.text, restored.path, 'x', 0).meta.status).toBeUndefined()
  })

  it('check reports a broken link in a hand-written document (exit code 1) and refusals name the reason', async () => {
    const at = ['--root', root, '--cwd', ws]
    mkdirSync(join(root, 'manual'), { recursive: true })
    writeFileSync(join(root, 'manual', 'runbook.md'), `---\nid: runbook\ntitle: Runbook\ncwd: ${ws}\n---\n\n# Runbook\n\nSee [deploy notes](../notes/gone.md).\n`)
    const report = await cli(['check', ...at])
    expect(report.code).toBe(1)
    expect(report.stdout).toContain('- [broken-link] runbook links to notes/gone.md, which names no document')
    const checked = await cli(['check', ...at, '--json'])
    expect(JSON.parse(checked.stdout).problems).toEqual([{ type: 'broken-link', ids: ['runbook'], detail: 'runbook links to notes/gone.md, which names no document' }])
    const cycle = await cli(['supersede', B, '--by', A, ...at])
    expect(cycle.code).toBe(1)
    expect(cycle.stderr).toContain(`would make a cycle: ${A} → ${B}`)
    const bad = await cli(['note', ...at, '--title', 'x', '--finding', 'y', '--link', '../../etc/passwd'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('"links": invalid id')
    const other = await cli(['supersede', A, '--by', B, '--root', root, '--cwd', tmp('elsewhere')])
    expect(other.stderr).toContain(`"id": document ${A} is not visible from`)
  })
})
