/**
 * `dsh-knowledge init --git` inside a project's repository (the default root is `./knowledge` in the project) adds
 * the attributes and ignores to that repository instead of nesting a new one, and says so; elsewhere it makes one.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { init } from '../../src/cli/init.js'

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd, encoding: 'utf8' })

async function run(root: string, json = false): Promise<string> {
  const out: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk))
    return true
  })
  try {
    expect(await init({ values: { git: true, root, json }, positionals: [] })).toBe(0)
  } finally {
    spy.mockRestore()
  }
  return out.join('')
}
afterEach(() => vi.restoreAllMocks())

describe('init --git', () => {
  it('inside a project work tree: no nested repository, the rules apply to the project, and git add -A works', async () => {
    const project = mkdtempSync(join(tmpdir(), 'dsh-ks-project-'))
    git(project, 'init', '-q')
    writeFileSync(join(project, 'app.js'), 'console.log(1)\n')
    const root = join(project, 'knowledge')
    const said = JSON.parse(await run(root, true))
    expect(said).toMatchObject({ gitInitialized: false, insideProject: true })
    expect(existsSync(join(root, '.git'))).toBe(false)
    expect(await run(root)).toMatch(/is inside the git work tree .*no new repository made/)
    mkdirSync(join(root, '.knowledge/ids'), { recursive: true })
    writeFileSync(join(root, '.knowledge/ids/abcd'), 'session')
    writeFileSync(join(root, '.knowledge/ledger.jsonl'), '{}\n')
    git(project, 'add', '-A')
    const staged = git(project, 'diff', '--cached', '--name-only').split('\n')
    expect(staged).toContain('knowledge/.knowledge/ledger.jsonl')
    expect(staged).not.toContain('knowledge/.knowledge/ids/abcd')
    expect(git(project, 'check-attr', 'merge', 'knowledge/.knowledge/ledger.jsonl')).toMatch(/merge: union/)
  })

  it('outside any work tree: makes the root a repository of its own', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-alone-')), 'kb')
    expect(JSON.parse(await run(root, true))).toMatchObject({ gitInitialized: true, insideProject: false })
    expect(existsSync(join(root, '.git'))).toBe(true)
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toContain('.knowledge/ids/')
  })
})
