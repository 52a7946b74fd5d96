/**
 * The wiki against a hostile root (a team's git repo: any file may be planted): log.md or index.md as a link out of
 * the root or a FIFO, a hand-written page claiming a page's file, a page id in a note's inline link; and the
 * originals hook firing for a summary with a file, with the store's real write path.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPageIngested, Wiki } from '../../src/knowledge/wiki/wiki.js'
import { storeFixture } from '../harness/stores.ts'

const { open, tmpRoot } = storeFixture('wiki-attack')
const caller = { actor: 'tool', scope: undefined }
const page = (slug: string, content = 'Plain text.') => ({ type: 'concept', slug, title: `Page ${slug}`, content, fields: [] })

describe('a hostile root', () => {
  it('never appends through a log.md that links out of the root, and says why', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    const outside = join(mkdtempSync(join(tmpdir(), 'dsh-ks-outside-')), 'victim.md')
    writeFileSync(outside, 'untouched\n')
    symlinkSync(outside, join(root, 'log.md'))
    const store = open(root)
    const wiki = new Wiki(store)
    await expect(wiki.log('lint', 'nothing', [], caller)).rejects.toThrow(/log\.md is a symbolic link; links are never followed/)
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n')
    expect(() => wiki.readLog()).toThrow(/log\.md is a symbolic link/)
    wiki.close()
  })

  it('neither blocks on nor writes into a FIFO planted as log.md', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    execFileSync('mkfifo', [join(root, 'log.md')])
    const store = open(root)
    const wiki = new Wiki(store)
    await expect(wiki.log('lint', 'nothing', [], caller)).rejects.toThrow(/log\.md/)
    expect(() => wiki.readLog()).toThrow(/log\.md is not a regular file|cannot read log\.md/)
    wiki.close()
  })

  it('replaces an index.md that links out of the root instead of writing through it', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    const outside = join(mkdtempSync(join(tmpdir(), 'dsh-ks-outside-')), 'victim.md')
    writeFileSync(outside, 'untouched\n')
    symlinkSync(outside, join(root, 'index.md'))
    const store = open(root)
    const wiki = new Wiki(store)
    await wiki.create([page('alpha')], caller)
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n')
    expect(readFileSync(join(root, 'index.md'), 'utf8')).toContain('[Page alpha](concepts/alpha.md)')
    wiki.close()
  })

  it('refuses to create a page whose file a hand-written document already holds, and keeps that file', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, 'concepts'), { recursive: true })
    writeFileSync(join(root, 'concepts/alpha.md'), '---\nid: my-own\ntitle: Mine\n---\n\n# Mine\n')
    const store = open(root)
    const wiki = new Wiki(store)
    await expect(wiki.create([page('alpha')], caller)).rejects.toThrow(/concepts\/alpha\.md is already the file of my-own/)
    expect(readFileSync(join(root, 'concepts/alpha.md'), 'utf8')).toContain('title: Mine')
    wiki.close()
  })

  it('a batch with one bad page writes none of them: nothing on disk, no ledger line, no index.md', async () => {
    const root = tmpRoot()
    const store = open(root)
    const wiki = new Wiki(store)
    await expect(wiki.create([page('alpha', 'See [beta](concept/beta).'), page('beta'), { ...page('gamma'), fields: [{ name: 'colour', value: 'red' }] }], caller)).rejects.toThrow(/no field "colour"/)
    expect(existsSync(join(root, 'concepts'))).toBe(false)
    expect(existsSync(join(root, 'index.md'))).toBe(false)
    expect(existsSync(join(root, '.knowledge/ledger.jsonl'))).toBe(false)
    wiki.close()
  })
})

describe('the originals hook', () => {
  it('reports a summary created with a file, and again only when its file changes', async () => {
    const store = open(tmpRoot())
    const wiki = new Wiki(store)
    const seen: Array<{ id: string; file: string }> = []
    const off = onPageIngested(store, (event) => seen.push(event))
    const summary = { type: 'summary', slug: 'tides-pdf', title: 'Tide tables', content: 'What the tables say.', fields: [{ name: 'file', value: 'originals/tides.pdf' }] }
    await wiki.create([summary, page('no-file')], caller)
    await wiki.edit('summary/tides-pdf', 'What the tables say.', 'What the 2026 tables say.', [], caller)
    await wiki.edit('summary/tides-pdf', 'the 2026', 'the new', [{ name: 'file', value: 'originals/tides-2027.pdf' }], caller)
    off()
    await wiki.edit('summary/tides-pdf', 'the new', 'the', [{ name: 'file', value: 'originals/tides-2028.pdf' }], caller)
    expect(seen).toEqual([
      { id: 'summary/tides-pdf', file: 'originals/tides.pdf' },
      { id: 'summary/tides-pdf', file: 'originals/tides-2027.pdf' },
    ])
    const doc = await store.read('summary/tides-pdf')
    expect(doc?.meta.file).toBe('originals/tides-2028.pdf')
    expect(typeof doc?.meta.ingested).toBe('string')
    wiki.close()
  })
})

describe('a create with also, all or none on the disk', () => {
  it('takes back the pages already written when a later one fails on the disk: no file, no index entry, no ledger line', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    // A plain file where the concepts folder goes (a push can put one there): the second page's write fails.
    writeFileSync(join(root, 'concepts'), 'not a folder\n')
    const store = open(root)
    const wiki = new Wiki(store)
    const ingested: string[] = []
    const off = onPageIngested(store, (event) => ingested.push(event.id))
    const summary = { type: 'summary', slug: 'tides', title: 'Tide tables zqxtides', content: 'What the tables say.', fields: [{ name: 'file', value: 'originals/tides.pdf' }] }
    await expect(wiki.create([summary, page('springs', 'Spring tides, see [the tables](summary/tides).')], caller)).rejects.toThrow()
    expect(existsSync(join(root, 'summaries/tides.md'))).toBe(false)
    expect(store.get('summary/tides')).toBeUndefined()
    expect(store.search('zqxtides')).toEqual([])
    expect(ingested).toEqual([])
    expect((await store.ledger.entries()).filter((e) => e.type === 'page')).toEqual([])
    // Nothing is left in the way: the same call succeeds once the folder can be made.
    execFileSync('rm', [join(root, 'concepts')])
    const again = await wiki.create([summary, page('springs', 'Spring tides, see [the tables](summary/tides).')], caller)
    expect(again.map((p) => [p.id, p.version])).toEqual([
      ['summary/tides', 2], // the revision log keeps the taken-back text's line (docs/wiki.md, Known limitations)
      ['concept/springs', 1],
    ])
    expect(store.search('zqxtides').map((h) => h.id)).toEqual(['summary/tides'])
    expect(ingested).toEqual(['summary/tides'])
    off()
    wiki.close()
  })
})
