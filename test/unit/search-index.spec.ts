/**
 * The search index: ranking, filters, paging, facets, incremental updates, and robustness against hostile queries.
 * @module dsh-knowledge-sync/test/unit/search-index
 */
import { describe, it, expect, beforeEach, afterEach } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import { scopeRange } from '../../src/search/scope.js'
import type { DocKind, KnowledgeDoc } from '../../src/types.js'

let clock = Date.UTC(2025, 0, 1)
function doc(id: string, body: string, over: { title?: string; kind?: DocKind; cwd?: string; tags?: string[]; tools?: string[]; created?: string } = {}): KnowledgeDoc {
  clock += 60_000
  return {
    id,
    path: `s/${id}.md`,
    meta: {
      id,
      title: over.title ?? id,
      kind: over.kind ?? 'raw',
      created: over.created ?? new Date(clock).toISOString(),
      cwd: over.cwd ?? '/home/u/proj',
      tools: over.tools ?? [],
      tags: over.tags ?? [],
      session: 'session-1',
      turn: 1,
    },
    body,
    mtimeMs: clock,
  }
}
const ids = (hits: Array<{ id: string }>): string[] => hits.map((h) => h.id)

describe('SearchIndex', () => {
  let index: SearchIndex
  beforeEach(() => {
    index = new SearchIndex()
  })
  afterEach(() => index.close())

  it('finds a document by a word of its body and returns a complete hit', () => {
    index.upsert(doc('a', 'The corporate proxy blocks npm.', { title: 'npm behind a proxy', tags: ['Network'], tools: ['bash'], cwd: '/w' }))
    index.upsert(doc('b', 'Unrelated text about cooking.'))
    const [hit, ...rest] = index.search('proxy')
    expect(rest).toEqual([])
    expect(hit).toMatchObject({ id: 'a', title: 'npm behind a proxy', kind: 'raw', path: 's/a.md', cwd: '/w', tags: ['Network'], tools: ['bash'] })
    expect(hit.score).toBeGreaterThan(0)
    expect(hit.snippet).toContain('**proxy**')
    expect(typeof hit.created).toBe('string')
  })

  it('is searchable as soon as upsert returns (no flush, no rebuild)', () => {
    index.upsert(doc('a', 'first'))
    expect(ids(index.search('first'))).toEqual(['a'])
    index.upsert(doc('b', 'second words'))
    expect(ids(index.search('second'))).toEqual(['b'])
  })

  it('stems: running finds run', () => {
    index.upsert(doc('a', 'the job runs nightly'))
    expect(ids(index.search('running job'))).toEqual(['a'])
  })

  it('matches identifiers whole and by their parts', () => {
    index.upsert(doc('code', 'pnpm install failed with ERR_PNPM_FETCH_404 on @acme/ui-kit@2.3.1'))
    index.upsert(doc('camel', 'getUserById returns null for soft-deleted users'))
    index.upsert(doc('path', 'the index lives in src/search/search-index.ts'))
    index.upsert(doc('other', 'a fetch of user data'))
    expect(ids(index.search('ERR_PNPM_FETCH_404'))[0]).toBe('code')
    expect(ids(index.search('pnpm fetch 404'))[0]).toBe('code')
    expect(ids(index.search('getUserById'))[0]).toBe('camel')
    expect(ids(index.search('user by id'))[0]).toBe('camel')
    expect(ids(index.search('search-index.ts'))[0]).toBe('path')
    expect(ids(index.search('search_index'))[0]).toBe('path')
    expect(ids(index.search('ui-kit@2.3.1'))[0]).toBe('code')
  })

  it('matches Chinese and Japanese by character bigrams, in the text and in the query', () => {
    index.upsert(doc('zh', '默认的 registry 在公司网络访问很慢，安装依赖经常超时，配置镜像之后恢复正常。'))
    index.upsert(doc('ja', 'ビルドが失敗する原因は tsconfig の paths でした。'))
    index.upsert(doc('en', 'install dependencies timeout'))
    // The English document is found too, through the query's translations (issue 17). In a three-document corpus its
    // three words outweigh the long Chinese text (bm25 length normalisation), so only membership is asserted here;
    // expand.spec.ts asserts the weighting on documents of equal length.
    expect(ids(index.search('安装依赖超时')).sort()).toEqual(['en', 'zh'])
    expect(ids(index.search('依赖安装的时候超时怎么办'))[0]).toBe('zh')
    expect(ids(index.search('ビルド失敗'))).toEqual(['ja'])
    expect(index.search('超时')[0].snippet).toContain('**超时**')
  })

  it('ranks a note above a raw round with the same words (default boost), and follows a custom boost', () => {
    index.upsert(doc('raw', 'redis keepalive fixes idle disconnects', { kind: 'raw' }))
    index.upsert(doc('note', 'redis keepalive fixes idle disconnects', { kind: 'note' }))
    index.upsert(doc('filler', 'something else entirely'))
    expect(ids(index.search('redis keepalive'))).toEqual(['note', 'raw'])
    const flipped = new SearchIndex({ boost: { raw: 3, note: 1 } })
    flipped.upsertMany([doc('raw', 'redis keepalive fixes idle disconnects', { kind: 'raw' }), doc('note', 'redis keepalive fixes idle disconnects', { kind: 'note' })])
    expect(ids(flipped.search('redis keepalive'))).toEqual(['raw', 'note'])
    flipped.close()
  })

  it('gives documents holding every query term a bonus over ones repeating a single term', () => {
    const docs = [doc('one', 'redis redis redis redis redis'), doc('both', 'a redis timeout happened once')]
    for (let i = 0; i < 8; i++) docs.push(doc(`f${i}`, `unrelated filler ${i} ${i < 2 ? 'timeout' : 'words'}`))
    index.upsertMany(docs)
    expect(ids(index.search('redis timeout'))[0]).toBe('both')
    // The same corpus without the bonus ranks the repeated single term first: the bonus is what decides.
    const flat = new SearchIndex({ allTermsBonus: 1 })
    flat.upsertMany(docs)
    expect(ids(flat.search('redis timeout'))[0]).toBe('one')
    flat.close()
  })

  it('weights the title above the body', () => {
    index.upsert(doc('body', 'we talked about kafka consumers and other things at length today'))
    index.upsert(doc('title', 'nothing much here at all in this body text today', { title: 'kafka consumers' }))
    expect(ids(index.search('kafka consumers'))[0]).toBe('title')
  })

  it('scope: the directory and below plus global documents, never a sibling with the same prefix', () => {
    index.upsert(doc('self', 'scoped word', { cwd: '/a/b' }))
    index.upsert(doc('child', 'scoped word', { cwd: '/a/b/c/d' }))
    index.upsert(doc('sibling', 'scoped word', { cwd: '/a/bc' }))
    index.upsert(doc('parent', 'scoped word', { cwd: '/a' }))
    index.upsert(doc('global', 'scoped word', { cwd: '', kind: 'manual' }))
    const inScope = ids(index.search('scoped', { scope: '/a/b' })).sort()
    expect(inScope).toEqual(['child', 'global', 'self'])
    expect(ids(index.search('scoped', { scope: '/a/b/' })).sort()).toEqual(['child', 'global', 'self'])
    expect(index.count({ scope: '/a/b' })).toBe(3)
    expect(
      index
        .list({ scope: '/a/b' })
        .items.map((m) => m.id)
        .sort(),
    ).toEqual(['child', 'global', 'self'])
    expect(ids(index.search('scoped')).length).toBe(5)
  })

  it('scopeRange bounds exactly the paths under the scope', () => {
    const { exact, lo, hi } = scopeRange('/a/b/')
    expect(exact).toBe('/a/b')
    const under = (p: string): boolean => p >= lo && p < hi
    expect(under('/a/b/c')).toBe(true)
    expect(under('/a/bc')).toBe(false)
    expect(under('/a/b')).toBe(false)
    expect(under('/a/b0')).toBe(false)
    expect(scopeRange('C:\\work\\app')).toEqual({ exact: 'C:\\work\\app', lo: 'C:\\work\\app\\', hi: 'C:\\work\\app]' })
  })

  it('upsert replaces by id: no duplicates, old words gone, new words found', () => {
    index.upsert(doc('a', 'original wording', { tools: ['bash'], tags: ['old'] }))
    index.upsert(doc('a', 'replacement text', { tools: ['grep'], tags: ['new'], kind: 'note' }))
    expect(index.size).toBe(1)
    expect(index.search('original')).toEqual([])
    expect(ids(index.search('replacement'))).toEqual(['a'])
    expect(index.get('a')).toMatchObject({ kind: 'note', tools: ['grep'], tags: ['new'] })
    expect(index.facets().tools).toEqual({ grep: 1 })
    expect(index.count({ tag: 'old' })).toBe(0)
  })

  it('remove deletes a document and reports whether it existed', () => {
    index.upsert(doc('a', 'removable words', { tools: ['bash'] }))
    index.upsert(doc('b', 'staying words'))
    expect(index.remove('a')).toBe(true)
    expect(index.remove('a')).toBe(false)
    expect(index.size).toBe(1)
    expect(index.get('a')).toBeUndefined()
    expect(index.search('removable')).toEqual([])
    expect(index.count({ tool: 'bash' })).toBe(0)
    expect(ids(index.search('words'))).toEqual(['b'])
  })

  it('get returns the metadata without the body', () => {
    index.upsert(doc('a', 'secret body text', { title: 'T', tags: ['x'], tools: ['bash'], cwd: '/w' }))
    const meta = index.get('a')!
    expect(meta).toMatchObject({ id: 'a', path: 's/a.md', kind: 'raw', title: 'T', cwd: '/w', tags: ['x'], tools: ['bash'], session: 'session-1', turn: 1 })
    expect(typeof meta.mtimeMs).toBe('number')
    expect(JSON.stringify(meta)).not.toContain('secret body')
    expect(index.get('missing')).toBeUndefined()
  })

  it('tool filter is a glob over tool names; a document matches when any of its tools does', () => {
    index.upsert(doc('b', 'tool word', { tools: ['bash'] }))
    index.upsert(doc('bb', 'tool word', { tools: ['read_file', 'bash_background'] }))
    index.upsert(doc('r', 'tool word', { tools: ['read_file'] }))
    index.upsert(doc('none', 'tool word'))
    expect(ids(index.search('tool', { tool: 'bash*' })).sort()).toEqual(['b', 'bb'])
    expect(ids(index.search('tool', { tool: 'bash' }))).toEqual(['b'])
    expect(ids(index.search('tool', { tool: '*_file' })).sort()).toEqual(['bb', 'r'])
    expect(index.search('tool', { tool: 'nothing*' })).toEqual([])
    expect(index.count({ tool: '{bash,read_file}' })).toBe(3)
    expect(() => index.search('tool', { tool: '[' })).not.toThrow()
  })

  it('tag filter is exact and case-insensitive; kind filter is exact', () => {
    index.upsert(doc('a', 'filter word', { tags: ['Docker'] }))
    index.upsert(doc('b', 'filter word', { tags: ['docker-compose'], kind: 'note' }))
    expect(ids(index.search('filter', { tag: 'docker' }))).toEqual(['a'])
    expect(ids(index.search('filter', { tag: 'DOCKER' }))).toEqual(['a'])
    expect(ids(index.search('filter', { kind: 'note' }))).toEqual(['b'])
    expect(index.search('filter', { kind: 'bogus' as DocKind })).toEqual([])
  })

  it('pages with offset and limit; list totals count before paging', () => {
    for (let i = 0; i < 25; i++) index.upsert(doc(`d${String(i).padStart(2, '0')}`, `paging word ${i}`, { kind: i % 5 === 0 ? 'note' : 'raw' }))
    const page1 = index.list({ limit: 10 })
    const page3 = index.list({ limit: 10, offset: 20 })
    expect(page1.total).toBe(25)
    expect(page1.items).toHaveLength(10)
    expect(page3.total).toBe(25)
    expect(page3.items).toHaveLength(5)
    expect(page1.items[0].id).toBe('d24') // newest first
    expect(index.list({ kind: 'note', limit: 2 })).toMatchObject({ total: 5 })
    expect(index.list({ sort: 'title', limit: 3 }).items.map((m) => m.id)).toEqual(['d00', 'd01', 'd02'])
    const all = ids(index.search('paging', { limit: 25 }))
    expect(all).toHaveLength(25)
    expect(ids(index.search('paging', { limit: 10, offset: 10 }))).toEqual(all.slice(10, 20))
    expect(index.search('paging', { limit: 0 })).toEqual([])
    expect(index.count()).toBe(25)
  })

  it('an empty or whitespace query lists newest first under the filters', () => {
    index.upsert(doc('old', 'x', { created: '2024-01-01T00:00:00Z', cwd: '/p' }))
    index.upsert(doc('new', 'y', { created: '2025-06-01T00:00:00Z', cwd: '/p' }))
    index.upsert(doc('mid', 'z', { created: '2024-06-01T00:00:00+08:00', cwd: '/other' }))
    expect(ids(index.search(''))).toEqual(['new', 'mid', 'old'])
    expect(ids(index.search('   ', { scope: '/p' }))).toEqual(['new', 'old'])
    expect(index.search('')[0]).toMatchObject({ score: 0 })
  })

  it('facets count kinds, tags, tools and workspaces under a filter', () => {
    index.upsert(doc('a', 'w', { kind: 'raw', tags: ['Docker', 'ci'], tools: ['bash'], cwd: '/a' }))
    index.upsert(doc('b', 'w', { kind: 'note', tags: ['docker'], tools: ['bash', 'grep'], cwd: '/a/x' }))
    index.upsert(doc('c', 'w', { kind: 'manual', cwd: '' }))
    index.upsert(doc('d', 'w', { kind: 'raw', cwd: '/b', tools: ['grep'] }))
    expect(index.facets()).toEqual({
      kinds: { raw: 2, note: 1, manual: 1 },
      tags: { docker: 2, ci: 1 },
      tools: { bash: 2, grep: 2 },
      workspaces: { '/a': 1, '/a/x': 1, '': 1, '/b': 1 },
    })
    expect(index.facets({ scope: '/a' }).workspaces).toEqual({ '/a': 1, '/a/x': 1, '': 1 })
    expect(index.facets({ tool: 'grep' }).kinds).toEqual({ note: 1, raw: 1 })
  })

  it('never throws on hostile queries and returns arrays', () => {
    index.upsert(doc('a', 'some text with AND OR NOT NEAR words and "quotes" (parens) col:on star* caret^'))
    const hostile = [
      'AND',
      'OR',
      'NOT',
      'NEAR',
      'NEAR(a b, 2)',
      'a AND',
      'OR b',
      'NOT NOT',
      '"',
      '""',
      '"unbalanced',
      "'",
      'a"b',
      '*',
      'star*',
      '^caret',
      'col:on',
      'title:x',
      '{title}: x',
      '(',
      ')',
      '((a)',
      'a)',
      '-',
      '--',
      '-a -b',
      '+a',
      'a - b',
      'x AND (y OR',
      '\u0000',
      'a\u0000b',
      '🎉',
      '👩‍💻 emoji',
      '\uD800',
      '\uDFFF lone',
      '\\',
      '%',
      '_',
      '?',
      'SELECT * FROM doc; --',
      "'; DROP TABLE doc; --",
      'x'.repeat(10_000),
      'word '.repeat(2_000),
      'ERR_'.repeat(500),
      '安装'.repeat(3000),
      '.'.repeat(5000),
      '@@@@',
      'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.' + '1.'.repeat(100),
    ]
    for (const q of hostile) {
      const hits = index.search(q)
      expect(Array.isArray(hits), q.slice(0, 30)).toBe(true)
      expect(() => index.search(q, { scope: '/home', tool: '*', tag: 'x', kind: 'raw', limit: 3, offset: 1 })).not.toThrow()
    }
    expect(ids(index.search('NEAR'))).toEqual(['a'])
    expect(ids(index.search('"quotes" AND (parens)'))).toEqual(['a'])
    expect(index.search('🎉')).toEqual([])
  })

  it('counts the documents recorded at exactly one workspace', () => {
    index.upsert(doc('a', 'x', { cwd: '/w/app' }))
    index.upsert(doc('b', 'x', { cwd: '/w/app/sub' }))
    index.upsert(doc('c', 'x', { cwd: '/w/app' }))
    expect(index.workspaceCount('/w/app')).toBe(2)
    expect(index.workspaceCount('/w')).toBe(0)
  })

  it('filters by a tag nobody uses without error', () => {
    index.upsert(doc('a', 'word', { tags: ['x'] }))
    expect(index.search('word', { tag: 'nobody' })).toEqual([])
    expect(index.count({ tag: 'nobody' })).toBe(0)
    expect(index.list({ tag: 'nobody' })).toEqual({ total: 0, items: [] })
  })

  it('tolerates odd paging values', () => {
    index.upsert(doc('a', 'word'))
    expect(ids(index.search('word', { limit: -1 }))).toEqual(['a'])
    expect(ids(index.search('word', { limit: Number.NaN, offset: Number.NaN }))).toEqual(['a'])
    expect(index.search('word', { offset: 5 })).toEqual([])
    expect(index.list({ offset: 99 }).items).toEqual([])
  })

  it('plans large queries: pruning of a single term is exact, and an approximate plan still puts complete matches first', () => {
    const common = ['数据', '连接', '超时', '配置', '部署']
    const docs: KnowledgeDoc[] = []
    for (let i = 0; i < 400; i++) {
      const words = common.filter((_, k) => (i * (k + 3)) % (k + 2) === 0)
      const rare = i % 37 === 0 ? '罕见错误' : ''
      docs.push(doc(`p${i}`, `${words.join('，')} ${rare} 普通内容 filler text number ${i} ${i % 53 === 0 ? 'zebra' : ''}`, { kind: i % 7 === 0 ? 'note' : 'raw' }))
    }
    let plan = ''
    const planned_ = new SearchIndex({
      onPlan: (p) => {
        plan = p
      },
    })
    planned_.upsertMany(docs)
    let tightPlan = ''
    const tight = new SearchIndex({
      scoreBudget: 40,
      onPlan: (p) => {
        tightPlan = p
      },
    })
    tight.upsertMany(docs)
    let pruned = 0
    for (const q of ['罕见错误数据', '数据罕见错误', '连接罕见错误超时']) {
      const exact = planned_.search(q, { limit: 5 })
      expect(plan).toBe('exact')
      const planned = tight.search(q, { limit: 5 })
      if (tightPlan === 'pruned') {
        pruned++
        expect(ids(planned), q).toEqual(ids(exact))
        expect(planned.map((h) => h.score)).toEqual(exact.map((h) => h.score))
      }
    }
    expect(pruned).toBeGreaterThan(0)
    // Several terms, one of them rare: an approximate plan, but the documents holding every term come first.
    const hits = tight.search('zebra filler text', { limit: 5 })
    expect(tightPlan).toBe('approx')
    expect(hits.length).toBe(5)
    for (const h of hits.slice(0, 5)) expect(Number(h.id.slice(1)) % 53, h.id).toBe(0)
    tight.close()
    planned_.close()
  })

  it('merges segments in the background after a bulk load and stays searchable meanwhile', async () => {
    const docs: KnowledgeDoc[] = []
    for (let i = 0; i < 600; i++) docs.push(doc(`m${i}`, `bulk word${i % 50} merge test ${i % 97 === 0 ? 'needle' : ''}`))
    for (const d of docs) index.upsert(d)
    expect(ids(index.search('needle')).sort()).toEqual(['m0', 'm194', 'm291', 'm388', 'm485', 'm582', 'm97'])
    const settled = index.settle()
    expect(ids(index.search('needle'))).toHaveLength(7)
    await settled
    expect(ids(index.search('needle'))).toHaveLength(7)
    expect(index.size).toBe(600)
  })

  it('closes idempotently', () => {
    index.upsert(doc('a', 'x'))
    index.close()
    expect(() => index.close()).not.toThrow()
  })
})
