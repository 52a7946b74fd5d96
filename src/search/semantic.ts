/**
 * The semantic channel: static word vectors (GloVe-style, one vector per English word) turn a query and each of the
 * best candidates into a mean vector, and the candidates whose meaning is closest to the query's move up. A question
 * asks "what does Melanie paint", the round says "my latest canvas is a sunset over the lake": the words differ, the
 * vectors are near. It re-ranks the candidates the words found (and their neighbours); measured against ranking every
 * document by its vector, re-ranking the best 50 kept all of the gain on LoCoMo (docs/search.md) and needs no vector
 * stored per document.
 *
 * A text's vector is the SIF mean (Arora et al., 2017, "A simple but tough-to-beat baseline for sentence embeddings"):
 * each word weighted `a / (a + p(word))`, p from the word's frequency rank (the vectors come ordered most frequent
 * first; Zipf's law gives `p ≈ 1 / (rank × H)`), minus the vocabulary's common direction, normalized. Pure: no I/O.
 * @module dsh-knowledge-sync/search/semantic
 */
import type { StatementSync } from 'node:sqlite'

/** Word vectors, most frequent word first. */
export interface WordVectors {
  dims: number
  /** Word → its row in `data`. */
  index: Map<string, number>
  /** `index.size × dims` floats. */
  data: Float32Array
  /** The common direction every mean vector shares (removed from each, as SIF's first component). */
  common: Float32Array
}

/** SIF's smoothing constant (the paper's recommended 1e-3). */
export const SIF_A = 1e-3
/** How many of the best candidates are re-ranked (50 measured as good as ranking every document; docs/search.md). */
export const SEMANTIC_DEPTH = 50
/** A document's vector is taken from its first this many characters (a long round's mean is its opening's anyway). */
export const SEMANTIC_CHARS = 2000
/** How many of the most frequent words estimate the common direction. */
const COMMON_WORDS = 20_000

const WORD = /[a-z]+(?:'[a-z]+)?/g

/** Builds {@link WordVectors} from words (most frequent first) and their `words.length × dims` floats. */
export function buildVectors(words: readonly string[], data: Float32Array, dims: number): WordVectors {
  if (!(dims > 0) || data.length < words.length * dims) throw new Error(`word vectors: ${words.length} words need ${words.length * dims} floats, got ${data.length}`)
  const index = new Map<string, number>()
  words.forEach((w, i) => {
    if (!index.has(w)) index.set(w, i)
  })
  const vectors: WordVectors = { dims, index, data, common: new Float32Array(dims) }
  // The common direction: the frequency-weighted mean of the most frequent words' SIF-weighted vectors, what a text
  // of no particular meaning averages to.
  const h = harmonic(words.length)
  const common = new Float32Array(dims)
  for (let i = 0; i < Math.min(COMMON_WORDS, words.length); i++) {
    const p = 1 / ((i + 1) * h)
    const w = p * (SIF_A / (SIF_A + p))
    for (let k = 0; k < dims; k++) common[k] += w * data[i * dims + k]
  }
  vectors.common = normalize(common) ?? common
  return vectors
}

/** The SIF vector of a text (unit length), or undefined when no word of it has a vector. */
export function textVector(vectors: WordVectors, text: string): Float32Array | undefined {
  const { dims, index, data, common } = vectors
  const h = harmonic(index.size)
  const v = new Float32Array(dims)
  let found = false
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const i = index.get(word)
    if (i === undefined) continue
    const w = SIF_A / (SIF_A + 1 / ((i + 1) * h))
    for (let k = 0; k < dims; k++) v[k] += w * data[i * dims + k]
    found = true
  }
  if (!found || !normalize(v)) return undefined
  // Remove the common direction (SIF's "first principal component"), so two texts are not near for their filler.
  const c = dot(v, common)
  for (let k = 0; k < dims; k++) v[k] -= c * common[k]
  return normalize(v)
}

/**
 * Adds `weight × best × cos / best cos` to each of the {@link SEMANTIC_DEPTH} best candidates, where `best` is the
 * best score in the pool and `cos` a candidate's cosine with the query (negative ones add nothing). The words keep
 * the lead: a document near in meaning gains at most `weight` of the best score.
 */
export function addSemantic(stmt: (sql: string) => StatementSync, pool: Map<number, number>, query: string, vectors: WordVectors, weight: number, cache?: VectorCache): void {
  if (!(weight > 0) || pool.size < 2) return
  const q = textVector(vectors, query)
  if (!q) return
  const top = [...pool].sort((a, b) => b[1] - a[1]).slice(0, SEMANTIC_DEPTH)
  const rows = stmt(`SELECT rowid AS r, substr(text, 1, ${SEMANTIC_CHARS}) AS t FROM body WHERE rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(top.map(([r]) => r))) as Array<{
    r: number
    t: string
  }>
  const docs = rows.map(({ r, t }) => ({ r, v: cache ? cache.get(r, t, vectors) : textVector(vectors, t) }))
  const cos = new Map<number, number>()
  let bestCos = 0
  for (const { r, v } of docs) {
    const c = v ? dot(q, v) : 0
    if (c > 0) cos.set(r, c)
    if (c > bestCos) bestCos = c
  }
  if (!(bestCos > 0)) return
  const best = top[0][1]
  for (const [r, c] of cos) pool.set(r, pool.get(r)! + (weight * best * c) / bestCos)
}

/** Entries a {@link VectorCache} keeps (their texts are at most {@link SEMANTIC_CHARS} each: ~8 MB at most). */
export const VECTOR_CACHE_MAX = 4096

/**
 * Documents' vectors by rowid, each with the text it was made from: a rowid whose text changed (an edit keeps its
 * rowid) is made again, so the cache needs no word from the writes. Comparing two short strings costs far less than
 * a vector (~100 µs a round here).
 */
export class VectorCache {
  private readonly entries = new Map<number, { t: string; v: Float32Array | undefined }>()

  get(rowid: number, text: string, vectors: WordVectors): Float32Array | undefined {
    const hit = this.entries.get(rowid)
    if (hit && hit.t === text) return hit.v
    if (this.entries.size >= VECTOR_CACHE_MAX) this.entries.clear()
    const v = textVector(vectors, text)
    this.entries.set(rowid, { t: text, v })
    return v
  }

  get size(): number {
    return this.entries.size
  }
}

function harmonic(n: number): number {
  return Math.log(Math.max(1, n)) + 0.5772
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  for (let k = 0; k < a.length; k++) s += a[k] * b[k]
  return s
}

/** Scales `v` to unit length in place; undefined for a zero vector. */
function normalize(v: Float32Array): Float32Array | undefined {
  const n = Math.sqrt(dot(v, v))
  if (!(n > 0)) return undefined
  for (let k = 0; k < v.length; k++) v[k] /= n
  return v
}
