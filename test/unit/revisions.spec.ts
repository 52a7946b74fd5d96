/**
 * Store-assigned revisions (`v:N`): +1 per change of a document's text by anyone, never for a touch, a restart or
 * another process starting; two processes agree; a git merge of the revision log keeps both sides.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { contentHash, Revisions } from '../../src/knowledge/logs/revisions.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHandler } from '../../src/http/routes.js'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

const tmpRoot = () => join(mkdtempSync(join(tmpdir(), 'dsh-ks-rev-')), 'kb')
const open = async (root: string, watch = true) => {
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch })
  stores.push(store)
  await store.start()
  return store
}
const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const logLines = (root: string, id: string) =>
  readFileSync(join(root, '.knowledge/revisions.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${id} `))
const child = (root: string, ...args: string[]) => {
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'test/harness/revise.ts'), root, ...args], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(result.stderr)
  return JSON.parse(result.stdout.trim().split('\n').pop()!)
}
const childAsync = (root: string, ...args: string[]) =>
  new Promise<any>((resolve, reject) => {
    const p = spawn(process.execPath, [join(PROJECT_ROOT, 'test/harness/revise.ts'), root, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = '',
      err = ''
    p.stdout.on('data', (d) => {
      out += d
    })
    p.stderr.on('data', (d) => {
      err += d
    })
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(err))))
  })

async function seed(store: KnowledgeStore, answer = 'Because the cache key includes a timestamp.', turn = 1) {
  return store.write({
    kind: 'raw',
    title: `Why does build ${turn} miss the cache?`,
    cwd: '/ws',
    session: 'session-0ev10000-0000-4000-8000-000000000000',
    turn,
    sections: [
      { heading: 'Question', text: 'Why?' },
      { heading: 'Answer', text: answer },
    ],
  })
}

describe('revisions', () => {
  it('start at 1, and every store write of new text adds one', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const first = await seed(store)
    expect(first.version).toBe(1)
    expect(store.versionOf(first.id)).toBe(1)
    expect(store.search('cache timestamp')[0].version).toBe(1)
    expect(store.list().items[0].version).toBe(1)
    const again = await store.write({
      kind: 'distilled',
      title: 'Why does build 1 miss the cache?',
      cwd: '/ws',
      replaceId: first.id,
      sections: [{ heading: 'Finding', text: 'The key has a timestamp.' }],
    })
    expect(again.version).toBe(2)
    expect((await store.read(first.id))!.version).toBe(2)
    expect(logLines(root, first.id)).toHaveLength(2)
  })

  it('a hand edit bumps once, a touch does not, a restart does not; an edit made while stopped counts at the next start', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const { id, path } = await seed(store)
    const file = join(root, path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('includes a timestamp', 'includes the build time'))
    await until(() => store.versionOf(id) === 2)
    await sleep(300) // editors write in steps; the watcher must not count the same text twice
    expect(store.versionOf(id)).toBe(2)
    const future = new Date(Date.now() + 60_000)
    utimesSync(file, future, future)
    await until(() => store.get(id)!.mtimeMs > Date.now() + 30_000) // the watcher did re-read the touched file
    expect(store.versionOf(id)).toBe(2)
    // CRLF line endings (a git autocrlf checkout) are the same text.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'))
    await sleep(300)
    expect(store.versionOf(id)).toBe(2)
    await store.close()
    const second = await open(root)
    expect(second.versionOf(id)).toBe(2)
    // Edited beside a watching store: a store started an instant later, on that store's word (no walk), counts the
    // edit once the watching one has indexed it.
    writeFileSync(file, readFileSync(file, 'utf8').replace('build time', 'build clock'))
    const third = await open(root)
    await until(() => third.versionOf(id) === 3 && second.versionOf(id) === 3)
    // Edited while no store runs: the next start counts it at once.
    while (stores.length) await stores.pop()!.close()
    writeFileSync(file, readFileSync(file, 'utf8').replace('build clock', 'build instant'))
    expect((await open(root)).versionOf(id)).toBe(4)
    expect(logLines(root, id)).toHaveLength(4)
  })

  it('sees a hand edit of a file another process replaced by rename, and files in a folder created after start', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const { id, path } = await seed(store)
    expect(child(root, 'replace', id, 'Rewritten by another process.').version).toBe(2)
    await until(() => store.list().items[0]?.version === 2)
    const file = join(root, path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('Rewritten', 'Hand-edited after being rewritten'))
    await until(() => store.list().items[0]?.version === 3)
    expect(store.search('hand edited rewritten')[0]?.id).toBe(id)
    // A session folder another process creates while this one watches; then a person edits its file in place.
    const other = spawnSync(process.execPath, [join(PROJECT_ROOT, 'test/harness/write-many.ts'), root, 'session-f01de500-0000-4000-8000-000000000001', '1'], { encoding: 'utf8' })
    expect(other.status).toBe(0)
    await until(() => store.get('f01de500-t1') !== undefined)
    const fresh = join(root, store.get('f01de500-t1')!.path)
    writeFileSync(fresh, readFileSync(fresh, 'utf8').replace('timestamp', 'wall clock'))
    await until(() => store.versionOf('f01de500-t1') === 2 && store.search('wall clock').length === 1)
    // The folder is removed and created again (a git checkout does that): still watched.
    const folder = join(root, store.get('f01de500-t1')!.path.split('/')[0])
    const text = readFileSync(fresh, 'utf8')
    rmSync(folder, { recursive: true })
    await until(() => store.get('f01de500-t1') === undefined)
    mkdirSync(folder)
    writeFileSync(fresh, text)
    await until(() => store.get('f01de500-t1') !== undefined)
    writeFileSync(fresh, text.replace('wall clock', 'sundial'))
    await until(() => store.versionOf('f01de500-t1') === 3 && store.search('sundial').length === 1)
  })

  it('a status change in the front matter is a change', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const { id } = await seed(store)
    child(root, 'status', id, 'superseded')
    await until(() => store.versionOf(id) === 2)
    expect((await store.read(id))!.meta.status).toBe('superseded')
  })

  it('two processes agree: another process writes, both see the same revision', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const { id } = await seed(store)
    const written = child(root, 'replace', id, 'The key includes the commit time, not a timestamp.')
    expect(written.version).toBe(2)
    await until(() => store.versionOf(id) === 2)
    expect(child(root, 'versions', id)).toEqual({ [id]: 2 })
    // The CLI of a third process says the same.
    const cli = spawnSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'list', '--root', root, '--json'], { encoding: 'utf8' })
    expect(JSON.parse(cli.stdout).find((d: { id: string }) => d.id === id).version).toBe(2)
    // Another process starting changes nothing.
    expect(logLines(root, id)).toHaveLength(2)
  })

  it('processes that see the same hand edit at the same moment record it once', async () => {
    const root = tmpRoot()
    const store = await open(root, false)
    const docs = [await seed(store, 'a', 1), await seed(store, 'b', 2), await seed(store, 'c', 3)]
    await store.close()
    for (const doc of docs) {
      const file = join(root, doc.path)
      writeFileSync(file, readFileSync(file, 'utf8').replace('## Answer', '## Answer\n\nEdited by hand.'))
    }
    const seen = await Promise.all([1, 2, 3, 4].map(() => childAsync(root, 'versions', ...docs.map((d) => d.id))))
    for (const versions of seen) expect(Object.values(versions)).toEqual([2, 2, 2])
    for (const doc of docs) expect(logLines(root, doc.id)).toHaveLength(2)
  })

  it('a git merge of two branches that both changed documents keeps both sides (merge=union), and revisions only grow', async () => {
    const root = tmpRoot()
    const store = await open(root, false)
    const a = await seed(store, 'a', 1),
      b = await seed(store, 'b', 2)
    await store.close()
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root, encoding: 'utf8' })
      if (r.status !== 0) throw new Error(r.stderr + r.stdout)
      return r.stdout
    }
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git('commit', '-qm', 'base')
    const edit = (path: string, text: string) => {
      const f = join(root, path)
      writeFileSync(f, readFileSync(f, 'utf8').replace('## Answer', `## Answer\n\n${text}`))
    }
    git('checkout', '-qb', 'other')
    edit(a.path, 'Edited on other.')
    expect(child(root, 'versions', a.id)[a.id]).toBe(2)
    git('commit', '-qam', 'other')
    git('checkout', '-q', 'main')
    edit(b.path, 'Edited on main.')
    expect(child(root, 'versions', b.id)[b.id]).toBe(2)
    git('commit', '-qam', 'main')
    git('merge', '-q', '--no-edit', 'other')
    expect(child(root, 'versions', a.id, b.id)).toEqual({ [a.id]: 2, [b.id]: 2 })
    expect(readFileSync(join(root, '.knowledge/.gitattributes'), 'utf8')).toContain('revisions.log merge=union')
  })
})

describe('version on the wire', () => {
  it('the routes carry the version of list rows, search hits and a document', async () => {
    const root = tmpRoot()
    const store = await open(root)
    const { id, path } = await seed(store)
    const file = join(root, path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('timestamp', 'wall-clock timestamp'))
    await until(() => store.list().items[0]?.version === 2)
    const server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50 }))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    const get = (p: string) =>
      new Promise<any>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: p, headers: { host: `127.0.0.1:${port}` } }, (res) => {
          let text = ''
          res.on('data', (d) => {
            text += d
          })
          res.on('end', () => resolve(JSON.parse(text)))
        })
          .on('error', reject)
          .end()
      })
    try {
      expect((await get('/knowledge/documents')).items[0]).toMatchObject({ id, version: 2 })
      expect((await get('/knowledge/documents?q=wall%20clock')).items[0]).toMatchObject({ id, version: 2 })
      expect(await get(`/knowledge/documents/${id}`)).toMatchObject({ id, version: 2 })
    } finally {
      server.close()
    }
    const cli = spawnSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'search', 'wall clock', '--root', root, '--json'], { encoding: 'utf8' })
    expect(JSON.parse(cli.stdout)[0]).toMatchObject({ id, version: 2 })
    const text = spawnSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'list', '--root', root], { encoding: 'utf8' })
    expect(text.stdout).toContain(`${id} (v:2)\traw`)
    const read = spawnSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'read', id, '--root', root, '--json'], { encoding: 'utf8' })
    expect(JSON.parse(read.stdout)).toMatchObject({ id, version: 2 })
  })
})

describe('the revision log', () => {
  it('ignores torn and foreign lines and starts a new line after a torn one', () => {
    const root = tmpRoot()
    const log = new Revisions(root)
    expect(log.observe('abc-t1', contentHash('one'))).toBe(1)
    writeFileSync(join(root, '.knowledge/revisions.log'), 'garbage line\nabc-t1 0123', { flag: 'a' })
    const other = new Revisions(root)
    other.refresh()
    expect(other.get('abc-t1')).toBe(1)
    expect(other.observe('abc-t1', contentHash('two'))).toBe(2)
    expect(new Revisions(root).observe('abc-t1', contentHash('two'))).toBe(2)
    expect(contentHash('\ufeffa\r\nb')).toBe(contentHash('a\nb'))
  })

  it('breaks a lock left by a killed process, and never loses a revision to a lock that is held too long', () => {
    const root = tmpRoot()
    const log = new Revisions(root)
    log.observe('abc-t1', contentHash('one'))
    const lock = join(root, '.knowledge/revisions.lock')
    writeFileSync(lock, '')
    const old = new Date(Date.now() - 60_000)
    utimesSync(lock, old, old)
    // The stale lock is broken, not waited out: no "held for over" warning (what a wait would end with), and the
    // lock file is this writer's own, released after the append. Asserted without a clock: a busy machine stretches
    // any wall-clock bound.
    const warnings: string[] = []
    const first = new Revisions(root, { warn: (f: string) => warnings.push(f) })
    expect(first.observe('abc-t1', contentHash('two'))).toBe(2)
    expect(warnings).toEqual([])
    expect(existsSync(lock)).toBe(false)
    writeFileSync(lock, '') // a fresh lock nobody releases
    const other = new Revisions(root, { warn: (f: string) => warnings.push(f) })
    expect(other.observe('abc-t1', contentHash('three'))).toBe(3)
    expect(warnings.join()).toMatch(/held for over/)
    expect(new Revisions(root).observe('abc-t1', contentHash('three'))).toBe(3)
  })
})
