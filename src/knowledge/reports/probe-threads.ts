/**
 * The health probe in worker threads: each worker opens the persisted index file read-only, probes every n-th
 * document (./probe-query.ts, the code the store's thread runs) and sends back one result per document, in order; the
 * caller aggregates them as it does its own. Why: a probe is one search per document, all synchronous, and a full probe
 * of 10k documents took ~19 s of one core (docs/read-path.md "The health probe"); workers spread it over the cores and
 * leave the store's event loop free meanwhile. The workers read one committed state of the file: the caller commits
 * this process's writes before they start.
 * @module dsh-knowledge-sync/knowledge/reports/probe-threads
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { SearchIndexOptions } from '../../search/search-index.js'
import type { ProbedDoc, ProbeResult } from './probe-query.js'
import { FROM_SOURCE, moduleUrl, WORKER_PRELUDE } from '../disk/worker-code.js'

/** At most this many workers by default: past it, their start (and their SQLite page caches) cost more than they save. */
export const MAX_PROBE_THREADS = 4
/**
 * Workers by default only from this many cores. Each worker starts cold (its own planning caches, JIT, SQLite pages):
 * a full probe of 10k documents in 2 workers took ~1.4× the CPU of the store's thread (27.6-28.3 s against 18.6-21.2 s),
 * so on 2 cores that are busy anyway it was no faster (docs/read-path.md "The health probe").
 */
export const THREADED_MIN_CORES = 4
/** Below this many documents the probe stays in the store's thread by default (a worker's start is ~0.5 s). */
export const THREADED_MIN_DOCS = 1000
/** How often a worker says how far it got (the page shows "n of N"). */
const PROGRESS_MS = 100

const url = (path: string): string => moduleUrl(path, import.meta.url)
const URLS = { index: url('../../search/search-index'), file: url('../../search/index-file'), relations: url('../relations/relations'), probe: url('./probe-query') }

// Evaluated in the worker after the store's worker prelude (../disk/worker-code.ts). The search is the
// store's: the index's own search, successors first.
const WORKER = `${WORKER_PRELUDE}
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads')
const { file, options, docs, urls } = workerData
;(async () => {
  const { SearchIndex } = await import(urls.index)
  const { openIndexFile } = await import(urls.file)
  const { successorsFirst } = await import(urls.relations)
  const { probeDocument } = await import(urls.probe)
  const index = new SearchIndex(options, openIndexFile(file, { readOnly: true }))
  try {
    const probe = { text: (id) => index.body(id), search: (query, filter) => successorsFirst(index.search(query, filter)) }
    const wordsOf = new Map()
    const results = []
    let said = Date.now()
    for (const doc of docs) {
      results.push(probeDocument(probe, doc, wordsOf) ?? null)
      if (Date.now() - said >= ${PROGRESS_MS}) {
        parentPort.postMessage({ done: results.length })
        said = Date.now()
      }
    }
    parentPort.postMessage({ results })
  } finally {
    await index.close()
  }
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }))
`

/** How many workers a probe of `docs` documents gets (0: the store's thread probes); `wanted` overrides the default. */
export function probeThreads(docs: number, wanted?: number, cores = availableParallelism()): number {
  if (wanted !== undefined) return wanted >= 2 ? Math.min(Math.floor(wanted), docs) : 0
  return docs >= THREADED_MIN_DOCS && cores >= THREADED_MIN_CORES ? Math.min(MAX_PROBE_THREADS, cores) : 0
}

/** Whether the index's options reach a worker as they are (no functions, no loaded vectors, no semantic channel). */
export function cloneableOptions(options: SearchIndexOptions | undefined): boolean {
  return !options || (!options.onPlan && !options.wordVectors && !options.semantic)
}

/** A threaded probe under way: its results in the documents' order, and its end (the workers terminated). */
export interface ThreadedProbe {
  results: Promise<Array<ProbeResult | null>>
  end(): void
}

/**
 * Probes `docs` in `threads` workers over the index file `file`; `progress(done)` is told how many are done. Rejects
 * when a worker fails (the caller then probes in its own thread); every worker is gone once it settles.
 */
export function probeInThreads(file: string, options: SearchIndexOptions | undefined, docs: ProbedDoc[], threads: number, progress: (done: number) => void): ThreadedProbe {
  const workers: Worker[] = []
  const end = (): void => {
    for (const worker of workers) void worker.terminate()
  }
  const done = new Array<number>(threads).fill(0)
  const slices = Array.from({ length: threads }, (_, k) => docs.filter((_, i) => i % threads === k))
  const results = Promise.all(
    slices.map(
      (slice, k) =>
        new Promise<Array<ProbeResult | null>>((resolve, reject) => {
          const worker = new Worker(WORKER, { eval: true, workerData: { file, options, docs: slice, urls: URLS, fromSource: FROM_SOURCE }, stdout: false, stderr: false })
          workers.push(worker)
          let answer: Array<ProbeResult | null> | undefined
          let failure = ''
          worker.on('message', (message: { done?: number; results?: Array<ProbeResult | null>; error?: string }) => {
            if (message.error) failure = message.error
            else if (message.results) answer = message.results
            if (message.done === undefined && !message.results) return
            done[k] = message.results ? slice.length : message.done!
            progress(done.reduce((a, b) => a + b, 0))
          })
          worker.once('error', reject)
          // Settled once the worker is gone, so that its connection and heap are too.
          worker.once('exit', (code) => (answer ? resolve(answer) : reject(new Error(failure || `a probe worker exited with ${code}`))))
        }),
    ),
  ).then((parts) => docs.map((_, i) => parts[i % threads][Math.floor(i / threads)]))
  // One worker failing ends the others: the caller probes again in its own thread.
  results.catch(end)
  return { results, end }
}
