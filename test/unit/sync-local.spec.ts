/**
 * `type: local` sources from a hostile sources.yml: only files inside the project (the root's enclosing git work
 * tree) or a folder the person allowed, never a hidden path, never a link leading out, never a FIFO, device or /proc
 * file, and never more bytes than the bound, whatever stat says.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { allowedLocalRoots, readLocalFile } from '../../src/sync/local-file.js'
import { KnowledgeSync } from '../../src/sync/service.js'
import type { SyncReport } from '../../src/wire.js'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

const doc = (id: string, body: string) => `---\nid: ${id}\ntitle: ${id}\n---\n${body}`
const section = (name: string) => `<!-- upstream:start name="${name}" -->\nold\n<!-- upstream:end -->\n`
const byName = (report: SyncReport) => Object.fromEntries(report.results.map((r) => [r.name, r]))

/** A project (a git work tree) with the knowledge root at `<project>/knowledge`, and a folder outside it. */
function project(entries: Array<{ name: string; path: string }>, { git = true, localRoots = [] as string[] } = {}) {
  const base = mkdtempSync(join(tmpdir(), 'dsh-ks-local-'))
  const outside = mkdtempSync(join(tmpdir(), 'dsh-ks-outside-'))
  const root = join(base, 'knowledge')
  mkdirSync(root)
  if (git) execFileSync('git', ['init', '-q', base])
  const yml = `sources:\n${entries.map((e) => `  - { name: ${e.name}, type: local, path: ${JSON.stringify(e.path)}, target: { file: d.md, section: ${e.name} } }`).join('\n')}\n`
  writeFileSync(join(root, 'sources.yml'), yml)
  writeFileSync(join(root, 'd.md'), doc('d', entries.map((e) => section(e.name)).join('')))
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  stores.push(store)
  return { base, outside, root, sync: new KnowledgeSync(store, { localRoots }) }
}

describe('local sources stay inside the project', () => {
  it('reads a file of the work tree, and refuses absolute paths, `..` and links leading out of it', async () => {
    const { base, outside, root, sync } = project([
      { name: 'adr', path: 'adr.md' },
      { name: 'absolute', path: '' },
      { name: 'dotdot', path: '../../x/secret.txt' },
      { name: 'linked', path: 'knowledge/leak.md' },
      { name: 'linkdir', path: 'knowledge/out/secret.txt' },
      { name: 'passwd', path: '/etc/passwd' },
      { name: 'environ', path: '/proc/self/environ' },
    ])
    writeFileSync(join(base, 'adr.md'), 'We use pnpm.\n')
    writeFileSync(join(outside, 'secret.txt'), 'internal-host.corp deploy key\n')
    const yml = readFileSync(join(root, 'sources.yml'), 'utf8')
      .replace('path: ""', `path: ${JSON.stringify(join(outside, 'secret.txt'))}`)
      .replace('../../x/secret.txt', `../${basename(outside)}/secret.txt`)
    writeFileSync(join(root, 'sources.yml'), yml)
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.md'))
    symlinkSync(outside, join(root, 'out'))
    const r = byName(await sync.run())
    expect(r.adr.status).toBe('changed')
    for (const name of ['absolute', 'dotdot', 'linked', 'linkdir', 'passwd', 'environ'])
      expect(r[name], name).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/outside the folders/) })
    const after = readFileSync(join(root, 'd.md'), 'utf8')
    expect(after).toContain('We use pnpm.')
    expect(after).not.toContain('internal-host')
    expect(after).not.toMatch(/root:|PATH=/)
  })

  it('never reads a hidden path of the project (.git, .env), even inside the work tree', async () => {
    const { base, sync } = project([
      { name: 'env', path: '.env' },
      { name: 'gitconfig', path: '.git/config' },
    ])
    writeFileSync(join(base, '.env'), 'DATABASE_URL=postgres://u:p@db.internal/x\n')
    const r = byName(await sync.run())
    expect(r.env).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/hidden/) })
    expect(r.gitconfig).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/hidden/) })
  })

  it('outside any work tree only the knowledge root itself is readable, unless the person allowed more', async () => {
    const first = project([{ name: 'beside', path: 'adr.md' }], { git: false })
    writeFileSync(join(first.base, 'adr.md'), 'beside the root\n')
    expect(byName(await first.sync.run()).beside).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/outside the folders/) })
    const allowed = mkdtempSync(join(tmpdir(), 'dsh-ks-allowed-'))
    writeFileSync(join(allowed, 'adr.md'), 'allowed by the person\n')
    const second = project([{ name: 'allowed', path: join(allowed, 'adr.md') }], { git: false, localRoots: [allowed] })
    expect(byName(await second.sync.run()).allowed.status).toBe('changed')
  })

  it('a sources.yml inside the root cannot widen the allowed folders by making the root a work tree of its own', async () => {
    const { root, outside, sync } = project([{ name: 'up', path: '' }], { git: false })
    writeFileSync(join(outside, 'secret.txt'), 'secret\n')
    mkdirSync(join(root, '.git'))
    writeFileSync(join(root, 'sources.yml'), readFileSync(join(root, 'sources.yml'), 'utf8').replace('path: ""', `path: ${JSON.stringify(join(outside, 'secret.txt'))}`))
    expect(byName(await sync.run()).up).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/outside the folders/) })
  })
})

describe('local sources never block and never read without bound', () => {
  it('refuses a FIFO in the work tree at once (four of them do not hang the thread pool) and a folder', async () => {
    const names = ['f1', 'f2', 'f3', 'f4', 'f5']
    const { base, sync } = project([...names.map((name) => ({ name, path: `${name}.md` })), { name: 'folder', path: 'docs' }])
    for (const name of names) execFileSync('mkfifo', [join(base, `${name}.md`)])
    mkdirSync(join(base, 'docs'))
    const r = byName(await sync.run())
    for (const name of [...names, 'folder']) expect(r[name], name).toMatchObject({ status: 'fetch-error', reason: expect.stringMatching(/not a regular file/) })
  })

  it('bounds the bytes read, not the size stat reports (/proc/self/pagemap says 0)', async () => {
    const allowed = allowedLocalRoots(tmpdir(), ['/proc/self'])
    await expect(readLocalFile('/proc/self/pagemap', allowed, 256 * 1024)).rejects.toMatchObject({ kind: 'too-large' })
  })
})
