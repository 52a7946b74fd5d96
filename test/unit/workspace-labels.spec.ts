/**
 * Workspace labels and groups (issue 28 item 5): two repositories whose folders end alike read apart, a subfolder is
 * folded into its git root (the scoping rule), a folder outside any repository stays its own workspace, Windows and
 * home spellings are named sensibly. The groups are checked over a real store on real folders with real `git init`,
 * through the real route, and counted as selecting them lists.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createHandler } from '../../src/http/routes.js'
import { workspaceGroups } from '../../src/http/workspaces.js'
import type { DocumentPage } from '../../src/wire.js'
import { elideMiddle, folderLabel, folderName, groupLabel, relativeWithin, tildePath } from '../../src/wire-workspaces.js'
import { roundDraft, storeFixture } from '../harness/stores.js'

const stores = storeFixture('workspaces')

describe('workspace names', () => {
  it('names two repositories with the same tail apart (the old label was "…/packages/core" for both)', () => {
    const alpha = '/home/ann/src/alpha'
    const beta = '/home/ann/work/beta'
    expect(folderLabel(`${alpha}/packages/core`, alpha)).toBe('alpha/packages/core')
    expect(folderLabel(`${beta}/packages/core`, beta)).toBe('beta/packages/core')
    expect(folderLabel(alpha, alpha)).toBe('alpha')
    expect(groupLabel({ name: 'alpha', where: tildePath(alpha, '/home/ann') })).toBe('alpha — ~/src/alpha')
    // Same repository name in two places: where it is tells them apart.
    expect(groupLabel({ name: 'alpha', where: tildePath('/srv/mirror/alpha', '/home/ann') })).toBe('alpha — /srv/mirror/alpha')
  })

  it('writes the home folder as ~ only on a segment boundary', () => {
    expect(tildePath('/home/ann', '/home/ann')).toBe('~')
    expect(tildePath('/home/ann/', '/home/ann/')).toBe('~')
    expect(tildePath('/home/ann/src/x', '/home/ann')).toBe('~/src/x')
    expect(tildePath('/home/anna/src/x', '/home/ann')).toBe('/home/anna/src/x')
    expect(tildePath('/home/ann/src/x', undefined)).toBe('/home/ann/src/x')
    expect(tildePath('/home/ann/src/x', '/')).toBe('/home/ann/src/x')
    expect(folderName('/')).toBe('/')
    expect(groupLabel({ name: folderName('/'), where: tildePath('/', '/home/ann') })).toBe('/')
  })

  it('reads Windows spellings: drives, either separator, case-insensitive home, UNC shares', () => {
    const home = 'C:\\Users\\Ann'
    expect(tildePath('C:\\Users\\Ann\\src\\alpha', home)).toBe('~\\src\\alpha')
    expect(tildePath('c:\\users\\ann\\src\\alpha', home)).toBe('~\\src\\alpha')
    expect(tildePath('D:\\src\\alpha', home)).toBe('D:\\src\\alpha')
    expect(tildePath('C:/Users/Ann/src/alpha', home)).toBe('~/src/alpha')
    expect(folderName('C:\\Users\\Ann\\src\\alpha\\')).toBe('alpha')
    expect(folderName('C:\\')).toBe('C:\\')
    expect(folderName('\\\\fileserver\\share\\alpha')).toBe('alpha')
    expect(folderLabel('C:\\Users\\Ann\\src\\alpha\\packages\\core', 'C:\\Users\\Ann\\src\\alpha')).toBe('alpha/packages/core')
    expect(relativeWithin('C:\\src\\alphabet', 'C:\\src\\alpha')).toBeUndefined()
  })

  it('elides a long place in the middle, keeping its head and its tail', () => {
    const long = '~/clients/northwind/2026/q4/projects/billing-service'
    const short = elideMiddle(long, 32)
    expect(short.length).toBeLessThanOrEqual(32)
    expect(short).toBe('~/…/q4/projects/billing-service')
    expect(elideMiddle('/opt/a/very/long/path/to/some/deeply/nested/repository', 30)).toBe('/opt/…/nested/repository')
    expect(elideMiddle('C:\\a\\very\\long\\path\\to\\some\\deeply\\nested\\repo', 24)).toBe('C:\\…\\deeply\\nested\\repo')
    expect(elideMiddle('~/src/alpha', 32)).toBe('~/src/alpha')
  })

  it('groups Windows folders by an injected rule (no Windows file system here)', () => {
    const rule = { scopeFor: (cwd: string) => (cwd.toLowerCase().startsWith('c:\\src\\alpha') ? 'C:\\src\\alpha' : cwd), isGitRoot: (dir: string) => dir === 'C:\\src\\alpha', home: 'C:\\Users\\Ann' }
    const groups = workspaceGroups({ 'C:\\src\\alpha': 1, 'C:\\src\\alpha\\packages\\core': 2, 'D:\\notes': 4, '': 3 }, rule)
    expect(groups).toEqual([
      { path: 'D:\\notes', name: 'notes', where: 'D:\\notes', git: false, count: 4, folded: [], foldedCount: 0 },
      { path: 'C:\\src\\alpha', name: 'alpha', where: 'C:\\src\\alpha', git: true, count: 3, folded: ['packages/core'], foldedCount: 1 },
    ])
  })
})

function git(cwd: string): void {
  const run = spawnSync('git', ['init', '-q'], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } })
  if (run.status !== 0) throw new Error(`git init failed: ${run.stderr}`)
}

describe('workspace groups over a real store', () => {
  it('folds a subfolder into its git root, keeps a non-git folder its own, and counts what selecting lists', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ks-home-')))
    const alpha = join(home, 'src', 'alpha')
    const beta = join(home, 'work', 'beta')
    const scratch = join(home, 'scratch')
    for (const dir of [join(alpha, 'packages', 'core'), join(beta, 'packages', 'core'), join(scratch, 'deep')]) mkdirSync(dir, { recursive: true })
    git(alpha)
    git(beta)
    const store = stores.open(stores.tmpRoot())
    let turn = 0
    const at = (cwd: string, n: number) =>
      Array.from({ length: n }, () => store.write(roundDraft(`answer ${++turn}`, { cwd, turn, session: `session-${String(turn).padStart(8, '0')}-0000-4000-8000-000000000000` })))
    await Promise.all([...at(join(alpha, 'packages', 'core'), 2), ...at(alpha, 1), ...at(join(beta, 'packages', 'core'), 3), ...at(scratch, 1), ...at(join(scratch, 'deep'), 1)])
    await Promise.all(at('', 1))

    const server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50 }))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/knowledge`
    try {
      const page = (await (await fetch(`${base}/documents`)).json()) as DocumentPage
      const groups = workspaceGroups(page.facets.workspaces, { scopeFor: (cwd) => store.scopeFor(cwd), home })
      expect(page.workspaces?.map((g) => [g.path, g.count, g.git, g.folded])).toEqual(groups.map((g) => [g.path, g.count, g.git, g.folded]))
      const byPath = new Map(groups.map((g) => [g.path, g]))
      // A git root takes its subfolder: one "alpha", not "alpha" and "alpha/packages/core".
      expect(byPath.get(alpha)).toMatchObject({ name: 'alpha', where: '~/src/alpha', git: true, count: 3, folded: ['packages/core'], foldedCount: 1 })
      expect(byPath.get(beta)).toMatchObject({ name: 'beta', where: '~/work/beta', git: true, count: 3, folded: ['packages/core'] })
      expect(byPath.has(join(alpha, 'packages', 'core'))).toBe(false)
      // Outside a repository each recorded folder is a workspace of its own; the parent's lists the child's too.
      expect(byPath.get(scratch)).toMatchObject({ name: 'scratch', git: false, count: 2, folded: ['deep'] })
      expect(byPath.get(join(scratch, 'deep'))).toMatchObject({ name: 'deep', git: false, count: 1, folded: [] })
      expect(groups.map((g) => g.path)).toHaveLength(4)

      // Each count is what selecting the workspace lists (less the hand-written documents everyone sees).
      const everywhere = page.items.filter((i) => !i.cwd).length
      for (const group of groups) {
        const listed = (await (await fetch(`${base}/documents?cwd=${encodeURIComponent(group.path)}&limit=200`)).json()) as DocumentPage
        expect(listed.total - everywhere).toBe(group.count)
      }
      // Rows carry their workspace: the two repositories' packages/core read apart.
      const labels = new Set(page.items.filter((i) => i.cwd.endsWith('core')).map((i) => folderLabel(i.cwd, i.workspace)))
      expect([...labels].sort()).toEqual(['alpha/packages/core', 'beta/packages/core'])
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})
