/**
 * Snippets: the best ~200-character window around the matches, marked with `**`, on word boundaries, whitespace
 * collapsed, never splitting a surrogate pair.
 * @module dsh-knowledge-sync/test/unit/snippet
 */
import { describe, it, expect } from 'vitest'
import { cleanText, findMatches, snippet } from '../../src/search/snippet.js'

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const unmarked = (s: string): string => s.replace(/\*\*/g, '')

describe('snippet', () => {
  const filler = (s: string, n: number): string => Array.from({ length: n }, () => s).join(' ')
  const body = `${filler('Intro words that say nothing useful.', 12)} The corporate proxy rejected the request, so HTTPS_PROXY had to be set for npm. ${filler('Closing words that also say nothing.', 12)}`

  it('picks the window around the matches and marks them with **', () => {
    const s = snippet(body, ['proxy', 'https_proxy'])
    expect(s).toContain('**proxy**')
    expect(s).toContain('**HTTPS_PROXY**')
    expect(s.startsWith('…')).toBe(true)
    expect(s.endsWith('…')).toBe(true)
  })

  it('stays within the width (plus marks and ellipses) and cuts on word boundaries', () => {
    const s = snippet(body, ['proxy'])
    expect(unmarked(s).length).toBeLessThanOrEqual(202)
    const inner = unmarked(s).replace(/^…|…$/g, '')
    expect(body).toContain(inner.split(' ')[0] + ' ')
    expect(inner.split(' ').every((w) => body.includes(w))).toBe(true)
  })

  it('prefers the window holding the most distinct query terms', () => {
    const text = `redis ${filler('x y z', 80)} redis timeout keepalive here ${filler('x y z', 80)} timeout`
    const s = snippet(text, ['redis', 'timeout', 'keepalive'])
    expect(s).toContain('**redis** **timeout** **keepalive**')
  })

  it('marks stemmed variants of a query word', () => {
    expect(snippet('The runner runs twice while tests are running.', ['running'])).toBe('The runner **runs** twice while tests are **running**.')
  })

  it('marks a whole identifier when the query named it, and its parts otherwise', () => {
    const text = 'pnpm install fails with ERR_PNPM_FETCH_404 for @acme/ui-kit'
    expect(snippet(text, ['err_pnpm_fetch_404'])).toContain('**ERR_PNPM_FETCH_404**')
    expect(snippet(text, ['fetch'])).toContain('ERR_PNPM_**FETCH**_404')
  })

  it('marks Chinese matches inside an unsegmented run', () => {
    expect(snippet('默认的镜像访问很慢，经常超时。', ['超时'])).toBe('默认的镜像访问很慢，经常**超时**。')
  })

  it('merges overlapping bigram matches into one mark', () => {
    expect(snippet('安装依赖失败', ['安装', '装依', '依赖'])).toBe('**安装依赖**失败')
  })

  it('collapses whitespace and strips Markdown that would clash with the marks', () => {
    expect(cleanText('## Answer\n\n```ts\nconst  x = 1\n```\n\nUse **bold**   and `code`.')).toBe('Answer const x = 1 Use bold and code.')
    expect(snippet('A **bold** word and proxy', ['proxy'])).toBe('A bold word and **proxy**')
  })

  it('returns the start of the text when nothing matches', () => {
    expect(snippet('first words here', ['absent'])).toBe('first words here')
    expect(snippet(filler('word', 100), []).startsWith('word word')).toBe(true)
  })

  it('never cuts a surrogate pair, whatever the window edges fall on', () => {
    for (const pad of [148, 149, 150, 151]) {
      const emoji = '😀'.repeat(pad) + ' target ' + '😀'.repeat(pad)
      expect(LONE_SURROGATE.test(snippet(emoji, ['target']))).toBe(false)
      const ext = '𠀀'.repeat(pad) + '锁' + '𠀁'.repeat(pad)
      expect(LONE_SURROGATE.test(snippet(ext, ['锁']))).toBe(false)
      expect(LONE_SURROGATE.test(snippet('𠀀'.repeat(pad), []))).toBe(false)
    }
  })

  it('matches diacritic-insensitively, as the index does', () => {
    expect(snippet('café naïve', ['cafe'])).toBe('**café** naïve')
  })

  it('is empty for an empty body', () => {
    expect(snippet('  \n ', ['x'])).toBe('')
  })
})

describe('findMatches', () => {
  it('finds the same matches on its fast path as with a full scan', () => {
    const text = 'The runner runs: ERR_PNPM_FETCH_404 at src/search/search-index.ts (v1.2.3) — proxy.corp.local, rerun it; fetchUser() and getUserById.'
    const queries = [['running'], ['fetch'], ['err_pnpm_fetch_404'], ['search_index_ts', 'index'], ['proxy', 'corp'], ['user', 'get'], ['v1_2_3']]
    for (const q of queries) {
      // A non-ASCII token forces the full scan; it matches nothing here.
      const slow = findMatches(text, [...q, 'ñandú']).filter((m) => m.key !== 'ñandú')
      expect(findMatches(text, q), q.join(' ')).toEqual(slow)
      expect(slow.length, q.join(' ')).toBeGreaterThan(0)
    }
  })

  it('reports positions in the cleaned text', () => {
    const text = 'alpha beta alpha'
    expect(findMatches(text, ['alpha']).map((m) => [m.start, m.end])).toEqual([
      [0, 5],
      [11, 16],
    ])
  })
})
