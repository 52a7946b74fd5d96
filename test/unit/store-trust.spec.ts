/**
 * Trust holes of the store's read path (issue 10, items 2, 6 and 8) on real files: symbolic links are never followed
 * (scan, watcher, read, a file replaced by a link, a linked folder), hard links and a linked root are what the README
 * says, a root created after start is watched, and a hand edit that breaks a document or grows it past the limit
 * takes it out of the index at once.
 */
import { describe, expect, it } from 'vitest'
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_FILE_BYTES } from '../../src/knowledge/view/files.js'
import { collectStats } from '../../src/knowledge/reports/stats.js'
import { storeFixture } from '../harness/stores.ts'

const stores = storeFixture('trust')
/** These tests watch by default: most are about what the watcher does. */
const open = (root: string, watch = true) => stores.open(root, watch)
const scratch = () => mkdtempSync(join(tmpdir(), 'dsh-ks-trust-'))
const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
const SECRET = 'outside-secret-4f1c9e'
const doc = (id: string, body: string, title = 'A title') => `---\nid: ${id}\ntitle: ${JSON.stringify(title)}\n---\n\n# ${title}\n\n${body}\n`

/** A root with one real document and a secret file outside it. */
function setUp() {
  const base = scratch()
  const root = join(base, 'kb')
  const outside = join(base, 'outside')
  mkdirSync(root, { recursive: true })
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.md'), doc('stolen', `the ${SECRET} lives here`, 'Stolen'))
  writeFileSync(join(root, 'real.md'), doc('real', 'an ordinary finding about caches'))
  return { base, root, outside }
}

describe('symbolic links are never followed (10.2)', () => {
  it('the watcher refuses a link created while running, and reports it', async () => {
    const { root, outside } = setUp()
    const store = open(root)
    await store.start()
    symlinkSync(join(outside, 'secret.md'), join(root, 'notes.md'))
    await until(() => store.invalid.has('notes.md'))
    expect(store.get('stolen')).toBeUndefined()
    expect(store.get('notes')).toBeUndefined()
    expect(store.search(SECRET)).toEqual([])
    expect(store.invalid.get('notes.md')).toMatch(/symbolic link/)
  })

  it('an indexed file replaced by a link leaves the index, and read never returns the outside file', async () => {
    const { root, outside } = setUp()
    const store = open(root)
    await store.start()
    expect(store.get('real')).toBeDefined()
    // Read right after the swap, before the watcher could react: the read path checks on its own.
    unlinkSync(join(root, 'real.md'))
    symlinkSync(join(outside, 'secret.md'), join(root, 'real.md'))
    await expect(store.readVisible('real', undefined)).rejects.toThrow(/symbolic link/)
    expect(store.get('real')).toBeUndefined()
    await until(() => store.invalid.has('real.md'))
    expect(store.search(SECRET)).toEqual([])
    expect(store.get('stolen')).toBeUndefined()
  })

  it('the same read refuses a swap when the watcher is off (the CLI)', async () => {
    const { root, outside } = setUp()
    const store = open(root, false)
    await store.start()
    rmSync(join(root, 'real.md'))
    symlinkSync(join(outside, 'secret.md'), join(root, 'real.md'))
    await expect(store.readText('real', undefined)).rejects.toThrow(/symbolic link/)
  })

  it('a linked folder is never entered: not by the scan, not by the watcher, not by read', async () => {
    const { root, outside } = setUp()
    symlinkSync(outside, join(root, 'linked'))
    const store = open(root)
    await store.start()
    expect(store.get('stolen')).toBeUndefined()
    // A file appearing in the linked folder while running.
    writeFileSync(join(outside, 'late.md'), doc('late', `also ${SECRET}`))
    await new Promise((r) => setTimeout(r, 300))
    expect(store.get('late')).toBeUndefined()
    expect(store.search(SECRET)).toEqual([])
    // A real folder swapped for a link after its document was indexed.
    mkdirSync(join(root, 'sess'))
    writeFileSync(join(root, 'sess', 'a.md'), doc('a', 'inside'))
    await until(() => !!store.get('a'))
    renameSync(join(root, 'sess'), join(root, 'sess-old'))
    mkdirSync(join(outside, 'sess'))
    writeFileSync(join(outside, 'sess', 'a.md'), doc('a', `swapped ${SECRET}`))
    symlinkSync(join(outside, 'sess'), join(root, 'sess'))
    await expect(store.readVisible('a', undefined)).rejects.toThrow(/symbolic link/)
  })

  it('the start-up scan reports a linked document instead of skipping it silently', async () => {
    const { root, outside } = setUp()
    symlinkSync(join(outside, 'secret.md'), join(root, 'notes.md'))
    const store = open(root, false)
    await store.start()
    expect(store.get('stolen')).toBeUndefined()
    expect((await collectStats(store)).invalidFiles.map((f) => f.path)).toContain('notes.md')
  })

  it('never writes through a linked session folder', async () => {
    const { root, outside } = setUp()
    symlinkSync(outside, join(root, 'session-abc'))
    const store = open(root, false)
    await expect(store.write({ kind: 'raw', title: 'x', cwd: '/w', session: 'session-abc', turn: 1, sections: [{ heading: 'Answer', text: 'y' }] })).rejects.toThrow(/symbolic link/)
  })

  it('never appends the ledger to, or reads it from, a file outside the root through a link', async () => {
    const { root, outside } = setUp()
    const target = join(outside, 'bashrc')
    writeFileSync(target, 'export PATH=$HOME/bin:$PATH\n{"type":"failed","error":"outside text"}\n')
    mkdirSync(join(root, '.knowledge'))
    symlinkSync(target, join(root, '.knowledge', 'ledger.jsonl'))
    const store = open(root, false)
    await store.ledger.record({ type: 'dropped', session: 's', turn: 1, score: 0, reasons: ['-weak-signal'] })
    expect(readFileSync(target, 'utf8')).not.toContain('weak-signal')
    const stats = await store.ledger.stats()
    expect(stats.lastFailure).toBeUndefined()
    expect(stats.dropped).toBe(1) // still counted, in memory
    // A linked ledger folder is refused the same way.
    const { root: root2, outside: outside2 } = setUp()
    symlinkSync(outside2, join(root2, '.knowledge'))
    const store2 = open(root2, false)
    await store2.ledger.record({ type: 'dropped', session: 's', turn: 1, score: 0, reasons: ['-weak-signal'] })
    expect(existsSync(join(outside2, 'ledger.jsonl'))).toBe(false)
    // Nor are id claims written there: the write fails with the reason.
    await expect(store2.write({ kind: 'raw', title: 'x', cwd: '/w', session: 'session-abc', turn: 1, sections: [{ heading: 'Answer', text: 'y' }] })).rejects.toThrow(/symbolic link/)
    expect(existsSync(join(outside2, 'ids'))).toBe(false)
  })

  it('decision: a root that is itself a link is followed (it is the configuration); links inside it are not', async () => {
    const { base, root, outside } = setUp()
    const linkedRoot = join(base, 'kb-link')
    symlinkSync(root, linkedRoot)
    symlinkSync(join(outside, 'secret.md'), join(root, 'notes.md'))
    const store = open(linkedRoot)
    await store.start()
    expect((await store.readVisible('real', undefined)).body).toContain('ordinary finding')
    expect(store.get('stolen')).toBeUndefined()
    writeFileSync(join(linkedRoot, 'new.md'), doc('new', 'arrives through the linked root'))
    await until(() => !!store.get('new'))
  })

  it('decision: a hard link is a regular file of the root and is indexed', async () => {
    const { root } = setUp()
    mkdirSync(join(root, 'copies'))
    linkSync(join(root, 'real.md'), join(root, 'copies', 'hard.md'))
    writeFileSync(join(root, 'copies', 'hard-own.md'), doc('hard-own', 'x'))
    const store = open(root, false)
    await store.start()
    // Same file, same id: one of them holds it and the other is reported as a duplicate, like any copy.
    expect(store.get('real')).toBeDefined()
    expect([...store.invalid.values()].join('\n')).toMatch(/duplicate id real/)
  })
})

describe('a root created after start is watched (10.6)', () => {
  it('indexes documents written into a root that did not exist at start, without a restart', async () => {
    const root = join(scratch(), 'later', 'kb')
    const store = open(root)
    await store.start()
    expect(store.size).toBe(0)
    // Another process (the CLI, a person) creates the root and writes into it.
    mkdirSync(join(root, 'session-x'), { recursive: true })
    writeFileSync(join(root, 'session-x', 'first.md'), doc('first', 'written right after the root appeared'))
    await until(() => !!store.get('first'), 60_000)
    writeFileSync(join(root, 'second.md'), doc('second', 'written later'))
    await until(() => !!store.get('second'), 60_000)
    expect(store.search('written later')[0].id).toBe('second')
  })

  it('indexes what another process wrote into the new root even when this process writes first (before the poll sees it)', async () => {
    const root = join(scratch(), 'kb')
    const store = open(root)
    await store.start()
    mkdirSync(join(root, 'other'), { recursive: true })
    writeFileSync(join(root, 'other', 'theirs.md'), doc('theirs', 'written by another process'))
    await store.write({ kind: 'note', title: 'Mine', cwd: '/w', session: 'session-m', suffix: 'n1', sections: [{ heading: 'Finding', text: 'written here' }] })
    await until(() => !!store.get('theirs'), 60_000)
    expect(store.size).toBe(2)
  })

  it('looks for a root again after it was removed, and indexes it when it comes back', async () => {
    const root = join(scratch(), 'kb')
    mkdirSync(root)
    const store = open(root)
    await store.start()
    writeFileSync(join(root, 'before.md'), doc('before', 'in the first root'))
    await until(() => !!store.get('before'))
    rmSync(root, { recursive: true })
    await until(() => store.size === 0)
    mkdirSync(root)
    writeFileSync(join(root, 'back.md'), doc('back', 'the root came back'))
    await until(() => !!store.get('back'), 60_000)
  })
})

describe('hand edits never leave the index stale (10.8)', () => {
  it('a hand edit that breaks the front matter takes the document out of search at once, and says why', async () => {
    const { root } = setUp()
    const store = open(root)
    await store.start()
    expect(store.search('ordinary finding')).toHaveLength(1)
    writeFileSync(join(root, 'real.md'), '---\nid: real\ntitle: [unclosed\n---\n\nan ordinary finding about caches\n')
    await until(() => store.search('ordinary finding').length === 0)
    expect(store.get('real')).toBeUndefined()
    expect(store.invalid.get('real.md')).toMatch(/front matter/)
    expect((await collectStats(store)).invalidFiles.map((f) => f.path)).toContain('real.md')
    // Fixed again: back in.
    writeFileSync(join(root, 'real.md'), doc('real', 'an ordinary finding about caches, fixed'))
    await until(() => store.search('fixed').length === 1)
    expect(store.invalid.has('real.md')).toBe(false)
  })

  it('a file grown past 4 MiB leaves the index, and read has the same bound', async () => {
    const { root } = setUp()
    const store = open(root, false)
    await store.start()
    writeFileSync(join(root, 'real.md'), doc('real', 'ordinary finding ' + 'x'.repeat(MAX_FILE_BYTES)))
    // The CLI has no watcher: read itself refuses and evicts.
    await expect(store.readVisible('real', undefined)).rejects.toThrow(/too large/)
    expect(store.get('real')).toBeUndefined()
    expect(store.search('ordinary finding')).toEqual([])
    expect((await collectStats(store)).invalidFiles[0].error).toMatch(/too large/)
  })

  it('the watcher evicts a document grown past the limit', async () => {
    const { root } = setUp()
    const store = open(root)
    await store.start()
    writeFileSync(join(root, 'real.md'), doc('real', 'ordinary finding ' + 'x'.repeat(MAX_FILE_BYTES)))
    await until(() => !store.get('real'))
    expect(store.invalid.get('real.md')).toMatch(/too large/)
  })

  it('read of a document broken after indexing (no watcher) evicts it and names the file', async () => {
    const { root } = setUp()
    const store = open(root, false)
    await store.start()
    writeFileSync(join(root, 'real.md'), 'no front matter any more\n')
    await expect(store.readVisible('real', undefined)).rejects.toThrow(/real\.md: no YAML front matter/)
    expect(store.search('ordinary finding')).toEqual([])
  })
})

describe('one id, two files in one scan slice (found while testing 10.7)', () => {
  it("indexes the product's own file, never the hand-written duplicate, whatever order the scan reads them in", { repeats: 30 }, async () => {
    const root = join(scratch(), 'kb')
    const first = open(root, false)
    const written = await first.write({
      kind: 'raw',
      title: 'Why does the cache miss?',
      cwd: '/ws',
      session: 'session-11112222-0000-4000-8000-000000000000',
      turn: 1,
      sections: [{ heading: 'Answer', text: 'Because the key includes a timestamp.' }],
    })
    await first.close()
    writeFileSync(join(root, 'dupe.md'), '---\nid: 11112222-t1\ntitle: impostor\n---\nx\n')
    // Same mtime: the scan reads `dupe.md` first (path order), then the product's file displaces it.
    const now = new Date()
    utimesSync(join(root, 'dupe.md'), now, now)
    utimesSync(join(root, written.path), now, now)
    const again = open(root, false)
    await again.start()
    expect(again.get('11112222-t1')?.title).toBe('Why does the cache miss?')
    expect(again.search('impostor')).toEqual([])
    expect(again.invalid.get('dupe.md')).toMatch(/duplicate id/)
  })
})
