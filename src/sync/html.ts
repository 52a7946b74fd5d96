/**
 * The worker host for HTML work: one worker thread, started on demand, reused while jobs keep coming, ended after a
 * short idle time. Each job has a time limit; a job over it ends the worker (the next job starts a fresh one), so a
 * crafted page costs at most that long, off the main thread. Memory is bounded by the worker's resource limits.
 * @module dsh-knowledge-sync/sync/html
 */
import { Worker } from 'node:worker_threads'
import type { HtmlAnswer, HtmlJob } from './html-worker.js'

/** The longest one page may take to convert. */
export const HTML_JOB_TIMEOUT_MS = 30_000
const IDLE_MS = 3000

/** Why a page could not be converted (worker error, time limit). */
export class HtmlWorkError extends Error {}

// `.ts` under the tests (Node strips the types), `.js` from lib/.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './html-worker.ts' : './html-worker.js', import.meta.url)

let worker: Worker | undefined
let idle: NodeJS.Timeout | undefined
let nextId = 1
const waiting = new Map<number, { resolve(answer: HtmlAnswer): void; reject(error: Error): void }>()

function stop(reason: Error): void {
  const current = worker
  worker = undefined
  if (idle) clearTimeout(idle)
  for (const pending of waiting.values()) pending.reject(reason)
  waiting.clear()
  void current?.terminate()
}

function ensure(): Worker {
  if (worker) return worker
  const started = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: 512, stackSizeMb: 4 }, stdout: true, stderr: true })
  started.unref()
  started.on('message', (answer: HtmlAnswer) => {
    const pending = waiting.get(answer.id)
    waiting.delete(answer.id)
    pending?.resolve(answer)
  })
  started.on('error', (error) => {
    if (worker === started) stop(new HtmlWorkError(`HTML worker failed: ${error.message}`))
  })
  started.on('exit', () => {
    if (worker === started) stop(new HtmlWorkError('HTML worker exited'))
  })
  worker = started
  return started
}

/** Runs one job in the worker; rejects with {@link HtmlWorkError} on failure or after `timeoutMs`. */
export async function runHtmlJob(job: Omit<HtmlJob, 'id'>, timeoutMs = HTML_JOB_TIMEOUT_MS): Promise<HtmlAnswer & { ok: true }> {
  const id = nextId++
  const target = ensure()
  if (idle) clearTimeout(idle)
  const answer = await new Promise<HtmlAnswer>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id)
      stop(new HtmlWorkError(`converting the page took longer than ${timeoutMs} ms`))
      reject(new HtmlWorkError(`converting the page took longer than ${timeoutMs} ms`))
    }, timeoutMs)
    waiting.set(id, {
      resolve: (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      reject: (e) => {
        clearTimeout(timer)
        reject(e)
      },
    })
    target.postMessage({ ...job, id })
  }).finally(() => {
    if (worker && !waiting.size) {
      idle = setTimeout(() => stop(new HtmlWorkError('idle')), IDLE_MS)
      idle.unref()
    }
  })
  if (!answer.ok) throw new HtmlWorkError(answer.error)
  return answer
}
