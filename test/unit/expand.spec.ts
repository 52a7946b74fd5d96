/**
 * Query expansion (src/search/expand/): what is expanded and what never is, how expansions rank against the user's
 * own words, Traditional ↔ Simplified, lazy loading, and hostile input.
 */
import { describe, it, expect } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import { queryTerms } from '../../src/search/tokenize.js'
import { expandQuery, loadedSources, MAX_EXTRA, segment } from '../../src/search/expand/index.js'
import { cedict } from '../../src/search/expand/cedict.js'
import type { KnowledgeDoc } from '../../src/types.js'

const doc = (id: string, body: string, title = id): KnowledgeDoc => ({
  id,
  path: `${id}.md`,
  mtimeMs: 0,
  body,
  meta: { id, title, kind: 'raw', created: '2025-01-01T00:00:00.000Z', cwd: '', tags: [], tools: [] },
})
const ids = (index: SearchIndex, q: string) => index.search(q).map((h) => h.id)

describe('query expansion', () => {
  // Runs first in this file's fresh module graph: nothing is loaded before a query needs it.
  it('loads nothing for identifiers, and no dictionary for English words over a corpus without Chinese', () => {
    expect(loadedSources()).toEqual({ glossary: false, dictionary: false, opencc: false })
    const index = new SearchIndex()
    index.upsertMany([doc('a', 'The worker got stuck after the deploy.'), doc('b', 'Unrelated notes about CSS grids.')])
    index.search('ERR_PNPM_FETCH_404')
    expect(loadedSources()).toEqual({ glossary: false, dictionary: false, opencc: false })
    expect(ids(index, 'hangs')).toEqual(['a'])
    expect(loadedSources()).toEqual({ glossary: true, dictionary: false, opencc: false })
    index.upsert(doc('zh', '请求超时，已调整为 30 秒。'))
    index.search('timeout')
    expect(loadedSources()).toEqual({ glossary: true, dictionary: true, opencc: false })
    index.search('超時')
    expect(loadedSources().opencc).toBe(true)
    index.close()
  })

  it('never expands identifiers, error codes, versions, paths or words with digits', () => {
    for (const q of ['ERR_PNPM_FETCH_404', 'TS2345', 'getUserById', 'hmr@1.0.17', 'src/search/search-index.ts', 'E11000 e2e', 'max.poll.interval.ms', 'ETIMEDOUT ENOENT', 'OOMKilled']) {
      const terms = queryTerms(q)
      const e = expandQuery(terms, { han: true })
      expect(e.extra, q).toEqual([])
      expect(e.terms, q).toEqual(terms)
    }
    // In a mixed query only the words are expanded, and nothing produced is an identifier's token.
    const e = expandQuery(queryTerms('ERR_PNPM_FETCH_404 timeout'), { han: true })
    expect(e.extra.map((x) => x.phrase)).toContain('超时')
    expect(e.extra.every((x) => x.instead.join(' ') === 'timeout')).toBe(true)
  })

  it("ranks a document with the user's own word above one with only its translation or synonym", () => {
    const index = new SearchIndex()
    index.upsertMany([
      doc('own', 'the deploy step hit a timeout on the build server today'),
      doc('zh', 'the deploy step hit a 超时 on the build server today'),
      doc('syn', 'the deploy step hit a time out on the build server today'),
      doc('x1', 'nothing to see here at all, only filler words about lunch'),
      doc('x2', 'more filler text that mentions neither of the two words'),
    ])
    expect(ids(index, 'timeout')[0]).toBe('own')
    expect(ids(index, 'timeout').slice(1).sort()).toEqual(['syn', 'zh'])
    expect(ids(index, '超时')[0]).toBe('zh')
    expect(ids(index, '超时')).toContain('own')
    // Off: only the user's words.
    const off = new SearchIndex({ expand: false })
    off.upsertMany([doc('own', 'the request timeout'), doc('zh', '请求超时')])
    expect(ids(off, 'timeout')).toEqual(['own'])
    off.close()
    index.close()
  })

  it("meets Traditional and Simplified Chinese both ways, as the user's own words (same weight)", () => {
    const index = new SearchIndex()
    index.upsertMany([doc('simp', '数据库连接池耗尽，报表接口没有释放连接。'), doc('trad', '資料庫死鎖導致訂單更新失敗，兩個交易互相等待。'), doc('en', 'unrelated English text')])
    expect(ids(index, '資料庫連接池耗盡')[0]).toBe('simp')
    expect(ids(index, '死锁 订单')[0]).toBe('trad')
    const e = expandQuery(queryTerms('数据库死锁'), { han: true })
    expect(e.terms[0].tokens).toEqual(expect.arrayContaining(['数据', '死锁', '數據', '死鎖']))
    index.close()
  })

  it('segments Chinese with the dictionary and maps words to English and back', () => {
    const d = cedict()!
    expect(d).toBeDefined()
    expect(segment('数据库连接池耗尽', d.has)).toEqual(['数据库', '连接', '耗尽'])
    expect(d.known(['数据库', '连接', '库连', '耗尽', 'x'])).toEqual(new Set(['数据库', '连接', '耗尽']))
    expect(d.english('死锁')).toContain('deadlock')
    expect(d.chinese('deadlock')).toContain('死锁')
    expect(d.traditional('据')).toBe('據')
    expect(d.traditional('出')).toBe('出')
  })

  it('finds a translation in a document written after a query that found none', () => {
    const index = new SearchIndex()
    index.upsertMany([doc('en', 'the request timeout was raised'), doc('zh', '日志收集配置')])
    expect(ids(index, 'timeout')).toEqual(['en'])
    index.upsert(doc('zh2', '请求超时，已调整为三十秒。'))
    expect(ids(index, 'timeout')).toEqual(['en', 'zh2'])
    index.close()
  })

  it('stays bounded and never throws on hostile queries', () => {
    const index = new SearchIndex()
    index.upsertMany([doc('zh', '请求超时'), doc('en', 'request timeout')])
    const huge = '超时数据库死锁'.repeat(900)
    const words = 'timeout shutdown restart deploy cache memory leak database lock backup restore upload '.repeat(400)
    for (const q of [huge, words, '\u0000\ud800超时\udfff', '"超时" AND NOT (timeout) NEAR/2 *', '{title}: 超時 ^ timeout', '😀 超时 😀']) {
      // CPU time, not wall time: a busy machine deschedules the test, it does not make the search do more work.
      const t = process.cpuUsage()
      expect(() => index.search(q)).not.toThrow()
      const used = process.cpuUsage(t)
      expect((used.user + used.system) / 1000, q.slice(0, 20)).toBeLessThan(1000)
      const e = expandQuery(queryTerms(q), { han: true })
      expect(e.extra.length).toBeLessThanOrEqual(MAX_EXTRA)
    }
    expect(ids(index, '"超时" AND NOT (timeout)')).toContain('zh')
    index.close()
  })
})
