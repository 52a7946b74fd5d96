/**
 * Token expansion shared by indexing and querying: identifiers as wholes and parts, CJK bigrams, stopwords, bounds.
 * @module dsh-knowledge-sync/test/unit/tokenize
 */
import { describe, it, expect } from 'vitest'
import { cjkBigrams, compoundTokens, indexStreams, indexText, indexTokens, MAX_QUERY_TERMS, MAX_QUERY_TOKENS, queryTerms, stem } from '../../src/search/tokenize.js'

describe('indexTokens', () => {
  it('lowercases plain words and drops single characters', () => {
    expect(indexTokens('The Quick brown fox, a b c 7')).toEqual(['the', 'quick', 'brown', 'fox'])
  })

  it('keeps an error code whole and yields its words', () => {
    expect(indexTokens('ERR_PNPM_FETCH_404')).toEqual(['err_pnpm_fetch_404', 'err', 'pnpm', 'fetch', '404'])
  })

  it('splits camelCase and acronyms but keeps the whole identifier', () => {
    expect(indexTokens('getUserById')).toEqual(['getuserbyid', 'get', 'user', 'by', 'id'])
    expect(indexTokens('XMLHttpRequest')).toEqual(['xmlhttprequest', 'xml', 'http', 'request'])
  })

  it('keeps error codes that mix letters and digits whole and split', () => {
    expect(indexTokens('TS2345')).toEqual(['ts2345', 'ts', '2345'])
    expect(indexTokens('E11000')).toEqual(['e11000', '11000'])
    expect(indexTokens('ORA-00942')).toEqual(['ora_00942', 'ora', '00942'])
  })

  it('turns package@version into the pin, the version and the name', () => {
    const tokens = indexTokens('hmr@1.0.17')
    expect(tokens).toContain('hmr_1_0_17')
    expect(tokens).toContain('1_0_17')
    expect(tokens).toContain('hmr')
  })

  it('gives a path its whole, its file name with and without extension, and its words', () => {
    const tokens = indexTokens('see src/recall/search-index.ts.')
    expect(tokens).toEqual(expect.arrayContaining(['src_recall_search_index_ts', 'search_index_ts', 'search_index', 'src', 'recall', 'search', 'index', 'ts']))
    // A sentence-ending period is not a connector.
    expect(tokens).not.toContain('src_recall_search_index_ts_')
  })

  it('makes dotted, dashed and snake names the same whole token', () => {
    expect(compoundTokens('search-index')[0]).toBe('search_index')
    expect(compoundTokens('search.index')[0]).toBe('search_index')
    expect(compoundTokens('search_index')[0]).toBe('search_index')
  })

  it('indexes Chinese and Japanese runs as overlapping character bigrams', () => {
    expect(indexTokens('安装依赖失败')).toEqual(['安装', '装依', '依赖', '赖失', '失败'])
    expect(indexTokens('ビルドが失敗する')).toEqual(['ビル', 'ルド', 'ドが', 'が失', '失敗', '敗す', 'する'])
    expect(indexTokens('API接口')).toEqual(['api', '接口'])
  })

  it('builds bigrams by code point, so CJK extension characters stay intact', () => {
    expect(cjkBigrams('𠀀𠀁𠀂')).toEqual(['𠀀𠀁', '𠀁𠀂'])
    for (const t of indexTokens('𠀀𠀁𠀂')) expect(t).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
  })

  it('normalizes full-width Latin letters to ASCII', () => {
    expect(indexTokens('ＡＰＩ接口 ｆｏｏＢａｒ')).toEqual(['api', '接口', 'foobar', 'foo', 'bar'])
  })

  it('keeps non-ASCII words whole', () => {
    expect(indexTokens('café Привет')).toEqual(['café', 'привет'])
  })

  it('produces the same tokens as indexText, wholes in their own stream', () => {
    const text = 'Fix ERR_PNPM_FETCH_404 in src/app.ts for hmr@1.0.17 — 安装依赖失败 𠀀𠀁 ＡＰＩ'
    expect(indexText(text).trim().split(' ').sort()).toEqual(indexTokens(text).sort())
    const { words, wholes } = indexStreams('see ERR_PNPM_FETCH_404 now')
    expect(words.trim().split(' ')).toEqual(['see', 'err', 'pnpm', 'fetch', '404', 'now'])
    expect(wholes.trim()).toBe('err_pnpm_fetch_404')
  })

  it('drops giant blobs instead of indexing them as wholes', () => {
    const blob = 'a'.repeat(100) + '.' + 'b'.repeat(100)
    expect(indexTokens(blob)).toEqual([])
  })
})

describe('queryTerms', () => {
  it('drops English stopwords and keeps the content words', () => {
    expect(queryTerms('how do I fix the proxy').map((t) => t.tokens)).toEqual([['fix'], ['proxy']])
  })

  it('falls back to the stopwords when nothing else is left', () => {
    expect(queryTerms('the and').map((t) => t.source)).toEqual(['the', 'and'])
  })

  it('describes an identifier by its whole and its parts', () => {
    const [t] = queryTerms('ERR_PNPM_FETCH_404')
    expect(t.kind).toBe('ident')
    expect(t.tokens[0]).toBe('err_pnpm_fetch_404')
    expect(t.parts).toEqual(['err', 'pnpm', 'fetch', '404'])
  })

  it('splits a Chinese query at particles and drops question framing', () => {
    const terms = queryTerms('安装依赖的时候怎么办')
    expect(terms.map((t) => t.tokens)).toEqual([['安装', '装依', '依赖']])
  })

  it('returns nothing searchable for punctuation, emoji and NUL', () => {
    for (const q of ['', '   ', '!!!', '🎉🎉', '\u0000', '() * ^ : " \'', '-- ++ ::']) expect(queryTerms(q)).toEqual([])
  })

  it('bounds a pasted 10 KB query', () => {
    const q = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ')
    const terms = queryTerms(q)
    expect(terms.length).toBeLessThanOrEqual(MAX_QUERY_TERMS)
    expect(terms.reduce((n, t) => n + t.tokens.length, 0)).toBeLessThanOrEqual(MAX_QUERY_TOKENS)
  })

  it('merges repeated words', () => {
    expect(queryTerms('redis redis Redis')).toHaveLength(1)
  })
})

describe('stem', () => {
  it('applies the Porter rules', () => {
    expect(['running', 'connections', 'caresses', 'ponies', 'relational', 'generalization'].map(stem)).toEqual(['run', 'connect', 'caress', 'poni', 'relat', 'gener'])
  })

  it('leaves non-ASCII words and short words alone', () => {
    expect(stem('café')).toBe('café')
    expect(stem('is')).toBe('is')
  })
})
