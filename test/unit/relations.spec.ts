/**
 * Relations as pure functions and over a real store: link parsing and rewriting (ids ↔ relative paths, hostile
 * targets), the one-line status notice (added, replaced, removed, the body otherwise byte-identical), the search
 * index's status bits (retired out by default, superseded ranked below, a `status` filter, counts without a scan),
 * and the store's status write path (redacted reason, ledger entry, a file changed underneath).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { applyStatus, idsToPaths, linkTarget, NOTICE_MARK, parseLinks, pathsToIds, RelationGraph, stripNotice, successorsFirst, withNotice } from '../../src/knowledge/relations/relations.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { retire, restore, supersede } from '../../src/knowledge/corrections/correct.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { ledgerEntries } from '../harness/files.ts'
import type { KnowledgeDoc } from '../../src/types.js'

const BODY = '# Title\n\n## Finding\n\nSomething true.\n'

describe('links', () => {
  it('tells ids, document paths and everything else apart', () => {
    expect(linkTarget('abc12345-t3', 's/x.md')).toEqual({ kind: 'id', id: 'abc12345-t3' })
    expect(linkTarget('../other/y.md#part', 's/x.md')).toEqual({ kind: 'path', path: 'other/y.md', outside: false })
    expect(linkTarget('../../../etc/passwd.md', 's/x.md')).toMatchObject({ outside: true })
    for (const other of ['https://example.com/a.md', 'javascript:alert(1)', '/etc/passwd.md', '#anchor', 'a/b', 'x.txt', 'mailto:a@b.c', '..']) {
      expect(linkTarget(other, 's/x.md'), other).toBeUndefined()
    }
    // A bare word is an id link (hand-written documents get it reported as broken by the check when it names nothing).
    expect(linkTarget('README', 's/x.md')).toEqual({ kind: 'id', id: 'README' })
    expect(linkTarget('../%zz.md', 's/x.md')).toEqual({ kind: 'path', path: '%zz.md', outside: false })
    expect(parseLinks('![img](abc12345-t3) and [a](abc12345-t3) and [b](../s2/z.md) and [c](https://x.y)', 's/x.md').map((l) => l.target)).toEqual([
      { kind: 'id', id: 'abc12345-t3' },
      { kind: 'path', path: 's2/z.md', outside: false },
    ])
  })

  it('writes ids as paths relative to the note and reads them back as ids', () => {
    const paths: Record<string, string> = { 'aaaa1111-n1': 'session-aaaa/aaaa1111-n1-first.md' }
    const text = 'See [first](aaaa1111-n1), [gone](bbbb2222-n9) and [web](https://x.y).'
    const onDisk = idsToPaths(text, 'session-cccc/cccc3333-n1-third.md', (id) => paths[id])
    expect(onDisk).toBe('See [first](../session-aaaa/aaaa1111-n1-first.md), [gone](bbbb2222-n9) and [web](https://x.y).')
    expect(pathsToIds(onDisk, 'session-cccc/cccc3333-n1-third.md', (p) => Object.keys(paths).find((id) => paths[id] === p))).toBe(text)
  })

  it('computes backlinks by id and by path, and forgets a removed document', () => {
    const paths = new Map([
      ['a', 's/a.md'],
      ['b', 's/b.md'],
      ['c', 't/c.md'],
      ['d', 's/d.md'],
    ])
    const graph = new RelationGraph({ pathOf: (id) => paths.get(id), idAt: (path) => [...paths].find(([, p]) => p === path)?.[0] })
    const doc = (id: string, path: string, body: string, meta: Record<string, unknown> = {}) => ({
      id,
      path,
      body,
      meta: { id, title: id, kind: 'note', created: '', cwd: '', tools: [], tags: [], ...meta } as KnowledgeDoc['meta'],
    })
    graph.set(doc('a', 's/a.md', BODY))
    // A document without relations gets no node: the graph costs nothing for plain captured rounds.
    expect(graph.size).toBe(0)
    graph.set(doc('b', 's/b.md', 'see [a](a)'))
    graph.set(doc('c', 't/c.md', 'see [a](../s/a.md) and [ghost](../s/ghost.md)'))
    graph.set(doc('d', 's/d.md', withNotice(BODY, '**Superseded** by [a](./a.md)'), { status: 'superseded', superseded_by: 'a' }))
    expect(graph.linkedFrom('a')).toEqual(['b', 'c'])
    expect(graph.supersededOnes('a')).toEqual(['d'])
    expect(graph.resolve('path:s/ghost.md')).toBeUndefined()
    expect(graph.resolve('path:s/a.md')).toBe('a')
    expect(graph.resolve('id:zzz')).toBeUndefined()
    expect(graph.size).toBe(3)
    graph.remove('b')
    expect(graph.linkedFrom('a')).toEqual(['c'])
  })
})

describe('hostile bodies', () => {
  it('parses crafted link soup in linear time and bounds what it keeps', () => {
    // A hand-written file may be up to 4 MB: a quadratic regex would hang the start-up scan on one of these.
    const soup = '['.repeat(1_000_000) + '](' + 'a'.repeat(100_000) + ')' + '[x]('.repeat(100_000) + `[${'b'.repeat(499)}](`.repeat(2_000)
    const many = Array.from({ length: 10_000 }, (_, k) => `[n${k}](id-${k})`).join(' ')
    const started = performance.now()
    expect(parseLinks(soup, 's/x.md')).toEqual([])
    expect(parseLinks(many, 's/x.md')).toHaveLength(10_000)
    expect(idsToPaths(soup, 's/x.md', () => 'y/z.md')).toBe(soup)
    expect(stripNotice(withNotice(soup, 'x'))).toBe(soup)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe('the status notice', () => {
  it('adds one line under the title, replaces it, and removes it leaving the body byte-identical', () => {
    const once = withNotice(BODY, '**Retired** on 2026-12-01: wrong')
    expect(once).toBe(`# Title\n\n> **Retired** on 2026-12-01: wrong ${NOTICE_MARK}\n\n## Finding\n\nSomething true.\n`)
    const twice = withNotice(once, 'other\nline')
    expect(twice.split(NOTICE_MARK)).toHaveLength(2)
    expect(twice).toContain('> other line ')
    expect(stripNotice(twice)).toBe(BODY)
    expect(withNotice('no heading', 'x')).toBe(`> x ${NOTICE_MARK}\n\nno heading`)
    // A marker far down the body (a quoted example) is not a notice.
    const quoted = `${BODY}\n${'line\n'.repeat(10)}> x ${NOTICE_MARK}\n`
    expect(stripNotice(quoted)).toBe(quoted)
  })

  it('applies and undoes statuses in the front matter', () => {
    const doc = { path: 's/a.md', body: BODY, meta: { id: 'a', title: 'A', kind: 'note', created: '', cwd: '', tools: [], tags: [] } as KnowledgeDoc['meta'] }
    const sup = applyStatus(doc, { to: 'superseded', by: 'b', byPath: 's/b.md', byTitle: 'B [x]', reason: 'newer' }, '2026-12-01T00:00:00.000Z')
    expect(sup.meta).toMatchObject({ status: 'superseded', superseded_by: 'b' })
    expect(sup.body).toContain('> **Superseded** by [B x](./b.md) on 2026-12-01: newer')
    const ret = applyStatus({ ...doc, ...sup }, { to: 'retired', reason: 'wrong' }, '2026-12-02T00:00:00.000Z')
    expect(ret.meta).toMatchObject({ status: 'retired', superseded_by: 'b', retired: { at: '2026-12-02T00:00:00.000Z', reason: 'wrong' } })
    const back = applyStatus({ ...doc, ...ret }, { to: 'restored' }, '2026-12-03T00:00:00.000Z')
    expect(back.meta.status).toBe('superseded')
    expect(back.meta.retired).toBeUndefined()
    expect(back.body).toContain('> **Superseded** by `b`')
  })
})

describe('status in the search index', () => {
  const meta = (id: string, kind: string, status?: string, by?: string) => ({
    id,
    title: `pnpm cache ${id}`,
    kind,
    created: '2026-01-01T00:00:00Z',
    cwd: '/w',
    tools: [],
    tags: [],
    ...(status ? { status } : {}),
    ...(by ? { superseded_by: by } : {}),
  })
  const doc = (id: string, kind: string, status?: string, by?: string): KnowledgeDoc => ({
    id,
    path: `s/${id}.md`,
    body: 'pnpm cache store key lockfile',
    mtimeMs: 1,
    meta: meta(id, kind, status, by) as KnowledgeDoc['meta'],
  })

  it('keeps five kinds and three statuses apart; retired out by default, superseded below, a filter shows them', () => {
    const index = new SearchIndex()
    index.upsert(doc('old', 'note', 'superseded', 'new'))
    index.upsert(doc('new', 'note'))
    index.upsert(doc('gone', 'note', 'retired'))
    index.upsert(doc('pref', 'preference'))
    index.upsert(doc('raw', 'raw'))
    const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id)
    expect(ids(index.search('pnpm cache'))).toEqual(['pref', 'new', 'raw', 'old'])
    expect(index.search('pnpm cache').find((h) => h.id === 'old')).toMatchObject({ status: 'superseded', supersededBy: 'new' })
    expect(ids(index.search('pnpm cache', { status: 'retired' }))).toEqual(['gone'])
    expect(ids(index.search('pnpm cache', { status: 'all' })).sort()).toEqual(['gone', 'new', 'old', 'pref', 'raw'])
    expect(ids(index.search('pnpm cache', { kind: 'preference' }))).toEqual(['pref'])
    expect(index.count()).toBe(4)
    expect(index.count({ status: 'all' })).toBe(5)
    expect(index.list().total).toBe(4)
    expect(index.facets().kinds).toEqual({ note: 2, preference: 1, raw: 1 })
    expect(index.get('gone')?.status).toBe('retired')
    // Restoring (a re-upsert without status) brings it back, and the count follows.
    index.upsert(doc('gone', 'note'))
    expect(index.count()).toBe(5)
    index.remove('old')
    expect(index.count()).toBe(4)
    index.close()
  })

  it('puts a superseded hit after its successor even when BM25 alone would not', () => {
    expect(successorsFirst([{ id: 'a', supersededBy: 'c' }, { id: 'b' }, { id: 'c' }]).map((h) => h.id)).toEqual(['b', 'c', 'a'])
    expect(successorsFirst([{ id: 'c' }, { id: 'a', supersededBy: 'c' }]).map((h) => h.id)).toEqual(['c', 'a'])
  })
})

describe("the store's status write path", () => {
  let store: KnowledgeStore | undefined
  afterEach(async () => {
    await store?.close()
    store = undefined
  })
  const open = () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-rel-')), 'kb')
    store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    return store
  }
  const note = (s: KnowledgeStore, session: string, title: string) => s.write({ kind: 'note', title, cwd: '/w', session, suffix: 'n1', sections: [{ heading: 'Finding', text: `${title}: true.` }] })

  it('redacts the reason, records the change, and never touches the sections', async () => {
    const s = open()
    const a = await note(s, 'session-aaaa1111-0000-4000-8000-000000000000', 'First finding')
    const token = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
    await retire(s, { id: a.id, reason: `it leaked GITHUB_TOKEN=${token}` }, '/w', 'cli')
    const text = readFileSync(join(s.root, a.path), 'utf8')
    expect(text).not.toContain(token)
    const parsed = parseDocument(text, a.path, 'x', 0)
    expect((parsed.meta.retired as { reason: string }).reason).toBe('it leaked GITHUB_TOKEN=[REDACTED]')
    expect(stripNotice(parsed.body)).toBe('# First finding\n\n## Finding\n\nFirst finding: true.\n')
    expect(ledgerEntries(s.root).at(-1)).toMatchObject({ type: 'status', id: a.id, status: 'retired', reason: 'it leaked GITHUB_TOKEN=[REDACTED]', actor: 'cli' })
    await expect(retire(s, { id: a.id, reason: 'again' }, '/w', 'cli')).rejects.toThrow(/already retired/)
    await restore(s, { id: a.id }, '/w', 'cli')
    expect(readFileSync(join(s.root, a.path), 'utf8')).toBe(text.replace(/^status: retired\nretired: .*\n/m, '').replace(/\n> \*\*Retired\*\*.*\n/, ''))
  })

  it('a rewrite in place (distillation) keeps the status, the reason and the notice of the document it replaces', async () => {
    const s = open()
    const raw = await s.write({
      kind: 'raw',
      title: 'Round one',
      cwd: '/w',
      session: 'session-aaaa1111-0000-4000-8000-000000000000',
      turn: 1,
      outcome: 'completed',
      sections: [{ heading: 'Answer', text: 'The cause was X.' }],
    })
    await retire(s, { id: raw.id, reason: 'wrong cause' }, '/w', 'tool')
    await s.write({
      kind: 'distilled',
      title: 'Round one',
      cwd: '/w',
      session: 'session-aaaa1111-0000-4000-8000-000000000000',
      turn: 1,
      replaceId: raw.id,
      sections: [{ heading: 'Summary', text: 'X.' }],
    })
    const parsed = parseDocument(readFileSync(join(s.root, raw.path), 'utf8'), raw.path, 'x', 0)
    expect(parsed.meta).toMatchObject({ kind: 'distilled', status: 'retired', retired: { reason: 'wrong cause' } })
    expect(parsed.body).toMatch(/^# Round one\n\n> \*\*Retired\*\* on .*: wrong cause <!-- knowledge:status -->\n\n## Summary/)
    expect(s.count({ scope: '/w' })).toBe(0)
  })

  it('works from the file as it is now (a hand edit underneath is kept) and refuses cycles and retired successors', async () => {
    const s = open()
    const a = await note(s, 'session-aaaa1111-0000-4000-8000-000000000000', 'First finding')
    const b = await note(s, 'session-bbbb2222-0000-4000-8000-000000000000', 'Second finding')
    const file = join(s.root, a.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('First finding: true.', 'First finding: true (edited by hand).'))
    await supersede(s, { id: a.id, by: b.id, reason: 'newer' }, '/w', 'tool')
    expect(readFileSync(file, 'utf8')).toContain('edited by hand')
    await expect(supersede(s, { id: b.id, by: a.id }, '/w', 'tool')).rejects.toThrow(/would make a cycle/)
    await expect(supersede(s, { id: a.id, by: a.id }, '/w', 'tool')).rejects.toThrow(/cannot supersede itself/)
    await retire(s, { id: b.id, reason: 'wrong too' }, '/w', 'tool')
    const c = await note(s, 'session-cccc3333-0000-4000-8000-000000000000', 'Third finding')
    await expect(supersede(s, { id: c.id, by: b.id }, '/w', 'tool')).rejects.toThrow(/is retired/)
    await expect(supersede(s, { id: c.id, by: b.id, reason: 'x'.repeat(501) }, '/w', 'tool')).rejects.toThrow(/is retired|limit is 500/)
  })
})
