/**
 * The store on real files: atomic writes, two processes on one root, crashes mid-write, unwritable roots, hand
 * edits picked up by the watcher, malformed files reported and skipped.
 */
import { describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DocumentDraft } from '../../src/knowledge/store.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { allDocuments, allFiles, ledgerEntries } from '../harness/files.ts'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { roundDraft, storeFixture } from '../harness/stores.ts'

const { open, tmpRoot } = storeFixture('store')
const draft = (over: Partial<DocumentDraft> = {}): DocumentDraft => roundDraft('Because the key includes a timestamp.', over)
const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('writing', () => {
  it('writes atomically: no temporary file is left and the document is complete', async () => {
    const root = tmpRoot()
    const store = open(root)
    const written = await store.write(draft())
    expect(written.path).toBe('session-11112222-0000-4000-8000-000000000000/11112222-t1-why-does-the-cache-miss.md')
    expect(allFiles(root).filter((f) => f.path.endsWith('.tmp'))).toEqual([])
    expect(store.search('timestamp cache')[0].id).toBe('11112222-t1')
  })

  it('redacts every field, the title and tags included, before anything touches disk', async () => {
    const root = tmpRoot()
    const token = 'ghp_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B'
    const written = await open(root).write(
      draft({
        title: `rotate ${token}`,
        tags: [token],
        sections: [{ heading: 'Answer', text: `use ${token}` }],
        tools: [{ name: 'bash', arguments: JSON.stringify({ command: `gh auth login --with-token ${token}` }) }],
      }),
    )
    expect(written.redaction.count).toBeGreaterThanOrEqual(4)
    for (const file of allFiles(root)) expect(file.text).not.toContain(token.slice(4))
    expect(written.path).not.toContain('zx9yw8')
  })

  it('replaces a document in place when the same session rewrites its round', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.write(draft())
    await store.write(draft({ replaceId: '11112222-t1', kind: 'distilled', sections: [{ heading: 'Summary', text: 'Timestamp in the key.' }] }))
    expect(allDocuments(root)).toHaveLength(1)
    expect(store.get('11112222-t1')?.kind).toBe('distilled')
  })

  it('never collides when two processes write into one root at once', async () => {
    const root = tmpRoot()
    const script = join(PROJECT_ROOT, 'test/harness/write-many.ts')
    const run = (session: string) =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [script, root, session, '40'], { stdio: 'inherit' })
        child.on('close', (code) => resolve(code ?? 1))
      })
    const codes = await Promise.all([run('session-aaaa0000-0000-4000-8000-000000000001'), run('session-aaaa0000-0000-4000-8000-000000000002')])
    expect(codes).toEqual([0, 0])
    const docs = allDocuments(root)
    expect(docs).toHaveLength(80)
    const ids = new Set(docs.map((d) => parseDocument(d.text, d.path, 'x', 0).meta.id))
    expect(ids.size).toBe(80)
    expect(ledgerEntries(root)).toHaveLength(80)
  }, 180_000)

  it('leaves no partial document when the writer is killed mid-write', async () => {
    const root = tmpRoot()
    const script = join(PROJECT_ROOT, 'test/harness/write-many.ts')
    const child = spawn(process.execPath, [script, root, 'session-bbbb0000-0000-4000-8000-000000000001', '100000', 'big'], { stdio: 'ignore' })
    await until(() => allDocuments(root).length >= 3, 60_000)
    child.kill('SIGKILL')
    await new Promise((r) => child.on('close', r))
    const docs = allDocuments(root)
    for (const doc of docs) expect(() => parseDocument(doc.text, doc.path, 'x', 0)).not.toThrow()
    // A fresh store sweeps what the crash left once it is old, and indexes only whole documents.
    const store = open(root)
    await store.start()
    expect(store.size).toBe(docs.length)
  }, 180_000)

  it('reports an unwritable root with its path, and counts the failure', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dsh-ks-ro-'))
    writeFileSync(join(parent, 'file'), 'not a directory')
    const store = open(join(parent, 'file', 'kb'))
    await expect(store.write(draft())).rejects.toThrow(/cannot write .*\/file\/kb\/.*ENOTDIR/)
    const result = await captureRound(
      store,
      {
        session: 'session-11112222-0000-4000-8000-000000000000',
        turn: 2,
        cwd: '/ws',
        created: new Date().toISOString(),
        question: 'Why does the cache miss?',
        answer: 'The cause was the timestamp in the cache key; removed it because keys must be stable.',
        outcome: 'completed',
        tools: [],
      },
      { minScore: 0 },
    )
    expect(result.kept).toBe(false)
    expect(result.error).toMatch(/cannot write .*ENOTDIR/)
    expect((await store.ledger.stats()).failed).toBe(1)
  })
})

describe('reading the files as the source of truth', () => {
  it('indexes hand-written files, reports malformed ones and keeps going', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, 'manual'), { recursive: true })
    writeFileSync(join(root, 'manual/deploy.md'), '---\ntitle: Deploy checklist\ntags: [deploy]\n---\nRun `make deploy` after tagging.\n')
    writeFileSync(join(root, 'manual/broken.md'), '---\ntitle: [oops\n---\nbody\n')
    writeFileSync(join(root, 'manual/plain.md'), 'no front matter here')
    const store = open(root)
    await store.start()
    expect(store.get('deploy')?.kind).toBe('manual')
    expect(store.search('make deploy tagging')[0].id).toBe('deploy')
    expect([...store.invalid.keys()].sort()).toEqual(['manual/broken.md', 'manual/plain.md'])
    expect(store.invalid.get('manual/broken.md')).toMatch(/malformed front matter/)
  })

  it('picks up hand edits, new files and deletions through the watcher, one file at a time', async () => {
    const root = tmpRoot()
    const store = open(root, true)
    await store.write(draft())
    const changes: string[] = []
    store.onChange((c) => changes.push(`${c.type}:${c.id}`))
    const file = join(root, allDocuments(root)[0].path)
    const text = allDocuments(root)[0].text.replace('Because the key includes a timestamp.', 'Because the key includes a nonce from crypto.randomUUID.')
    writeFileSync(file, text)
    await until(() => store.search('randomUUID nonce').length === 1)
    mkdirSync(join(root, 'other'))
    writeFileSync(join(root, 'other/new.md'), '---\nid: handmade\ntitle: Handmade\n---\nZanzibar protocol notes.\n')
    await until(() => store.search('Zanzibar').length === 1)
    unlinkSync(join(root, 'other/new.md'))
    await until(() => store.get('handmade') === undefined)
    expect(changes).toEqual(expect.arrayContaining(['written:11112222-t1', 'written:handmade', 'removed:handmade']))
  })

  it('does not let a hand-written duplicate id shadow an existing document', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.write(draft())
    await store.close()
    writeFileSync(join(root, 'dupe.md'), '---\nid: 11112222-t1\ntitle: impostor\n---\nx\n')
    const again = open(root)
    await again.start()
    expect(again.get('11112222-t1')?.title).toBe('Why does the cache miss?')
    expect(again.invalid.get('dupe.md')).toMatch(/duplicate id/)
  })
})

// Keep the helper honest: it must exist and run standalone.
it('has a standalone writer for the multi-process tests', () => {
  const result = spawnSync(
    process.execPath,
    [join(PROJECT_ROOT, 'test/harness/write-many.ts'), join(mkdtempSync(join(tmpdir(), 'dsh-ks-w-')), 'kb'), 'session-cccc0000-0000-4000-8000-000000000001', '2'],
    { encoding: 'utf8' },
  )
  expect(result.status, result.stderr).toBe(0)
})
