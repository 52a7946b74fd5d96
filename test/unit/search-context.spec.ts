/**
 * Conversational context (src/search/context.ts): the round after (or before) a strong hit in the same session is
 * found although it shares no word with the query; rounds of other sessions, or documents without a session, are not.
 * @module dsh-knowledge-sync/test/unit/search-context
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SearchIndex } from '../../src/search/search-index.js'
import type { KnowledgeDoc } from '../../src/types.js'
import { CONVERSATIONAL_CONTEXT, DEFAULT_CONTEXT } from '../../src/search/options.js'

const turn = (id: string, body: string, session: string | undefined, n: number | undefined, cwd = '/w'): KnowledgeDoc => ({
  id,
  path: `${id}.md`,
  meta: { id, title: id, kind: 'raw', created: new Date(Date.UTC(2025, 0, 1, 0, 0, n ?? 0)).toISOString(), cwd, tools: [], tags: [], ...(session ? { session, turn: n } : {}) },
  body,
  mtimeMs: n ?? 0,
})
const filler = (i: number): string => `filler round ${i} about lunch plans and the weather and nothing else`

describe('conversational context', () => {
  it('is off unless a base turns it on', () => {
    expect(DEFAULT_CONTEXT).toBe(0)
  })
  const opened: SearchIndex[] = []
  // Context is off in the store by default (a coding base's exact searches); a conversational base turns it on.
  const open = (options = {}): SearchIndex => {
    const index = new SearchIndex({ context: CONVERSATIONAL_CONTEXT, ...options })
    opened.push(index)
    return index
  }
  afterEach(() => {
    while (opened.length) opened.pop()!.close()
  })

  /** A session where turn 3 asks about an instrument and turn 4 answers without the word; plus distractors. */
  const seed = (index: SearchIndex): void => {
    index.upsertMany([
      turn('s1-1', filler(1), 's1', 1),
      turn('s1-2', filler(2), 's1', 2),
      turn('s1-3', 'Do you still play that instrument you told me about?', 's1', 3),
      turn('s1-4', 'The violin, every evening since I was ten.', 's1', 4),
      turn('s1-5', 'Nice, my sister plays the cello in an orchestra.', 's1', 5),
      ...Array.from({ length: 30 }, (_, i) => turn(`s2-${i}`, `${filler(i)} violin strings are expensive`, 's2', i * 10)),
      turn('note', 'A note with no session about lunch plans.', undefined, undefined),
    ])
  }

  it('finds the round that answers the one matching the query (same session, next turn)', () => {
    const index = open()
    seed(index)
    const hits = index.search('which instrument').map((h) => h.id)
    expect(hits[0]).toBe('s1-3')
    expect(hits.slice(0, 3)).toContain('s1-4')
    // Two turns away it still counts, at half the share: ahead of rounds that never met the query.
    expect(hits).toContain('s1-5')
    expect(hits.indexOf('s1-4')).toBeLessThan(hits.indexOf('s1-5'))
  })

  it('lends nothing across sessions, to documents without a session, or when turned off', () => {
    const index = open()
    seed(index)
    const hits = index.search('which instrument').map((h) => h.id)
    expect(hits.filter((id) => id.startsWith('s2-') || id === 'note')).toEqual([])
    const off = open({ context: 0 })
    seed(off)
    expect(off.search('which instrument').map((h) => h.id)).toEqual(['s1-3'])
  })

  it('keeps the filters: a neighbour outside the scope never comes back', () => {
    const index = open()
    index.upsertMany([turn('a-1', 'Which instrument do you play?', 'x', 1, '/w/a'), turn('b-2', 'The violin.', 'x', 2, '/w/b')])
    expect(index.search('instrument', { scope: '/w/a' }).map((h) => h.id)).toEqual(['a-1'])
    expect(index.search('instrument').map((h) => h.id)).toEqual(['a-1', 'b-2'])
  })

  it('treats rounds of the same turn as no neighbours (a note beside its round)', () => {
    const index = open()
    index.upsertMany([turn('r', 'Which instrument do you play?', 'x', 1), turn('n', 'Unrelated words entirely.', 'x', 1)])
    expect(index.search('instrument').map((h) => h.id)).toEqual(['r'])
  })
})

describe('single Chinese characters', () => {
  const docOf = (id: string, body: string): KnowledgeDoc => turn(id, body, undefined, undefined)
  it('finds a document that shares one character and no pair with a short question, below documents holding the pair', () => {
    const index = new SearchIndex()
    try {
      index.upsertMany([docOf('spice', '小王只吃微辣，老李喜欢中辣，没有人能接受极辣。'), docOf('lunch', '楼下的面馆中午排队二十分钟。'), docOf('pair', '他说自己很能吃辣，越辣越好。')])
      expect(index.search('能吃辣吗').map((h) => h.id)).toEqual(['pair', 'spice'])
      expect(index.search('辣').map((h) => h.id)).toEqual(expect.arrayContaining(['spice', 'pair']))
      expect(index.search('辣').map((h) => h.id)).not.toContain('lunch')
      // Reversed order (锁死 / 死锁) meets through the characters too.
      index.upsert(docOf('deadlock', '两个事务以相反的顺序加锁，出现死锁。'))
      expect(index.search('锁死').map((h) => h.id)).toEqual(['deadlock'])
    } finally {
      index.close()
    }
  })

  it('ranks the own character above a translation of it (慢 → slow)', () => {
    const index = new SearchIndex()
    try {
      index.upsertMany([
        docOf('zh-slow', '首页打开很慢，图片改成懒加载。'),
        docOf('en-slow', 'The home page is slow: images are now lazy-loaded.'),
        docOf('en-slow-2', 'Slow queries: a missing index on orders.'),
      ])
      expect(index.search('慢').map((h) => h.id)[0]).toBe('zh-slow')
    } finally {
      index.close()
    }
  })

  it('is off with charWeight 0 (pairs only, as before)', () => {
    const index = new SearchIndex({ charWeight: 0 })
    try {
      index.upsertMany([docOf('spice', '小王只吃微辣，老李喜欢中辣。')])
      expect(index.search('能吃辣吗')).toEqual([])
    } finally {
      index.close()
    }
  })
})
