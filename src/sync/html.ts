/**
 * The worker host for HTML work: one worker thread, started on demand, reused while jobs keep coming, ended after a
 * short idle time. Jobs wait in a queue and the worker runs one at a time, so a job's time limit starts when the
 * worker takes it and counts only its own run, never the time spent waiting behind other pages. A job over its
 * limit ends the worker and fails alone: the jobs behind it run on a fresh worker. Memory is bounded by the
 * worker's resource limits.
 * @module dsh-knowledge-sync/sync/html
 */
import { Worker } from 'node:worker_threads'
import type { HtmlAnswer, HtmlJob } from './html-worker.js'

/** The longest one page may take to convert (its own run time in the worker). */
export const HTML_JOB_TIMEOUT_MS = 30_000
const IDLE_MS = 3000

/** Why a page could not be converted (worker error, time limit). */
export class HtmlWorkError extends Error {}

/** The timer the time limit runs on (injected by tests, so no test waits 30 s). */
export interface JobTimers {
  set(fire: () => void, ms: number): unknown
  clear(handle: unknown): void
}
const REAL_TIMERS: JobTimers = {
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

// `.ts` under the tests (Node strips the types), `.js` from lib/.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './html-worker.ts' : './html-worker.js', import.meta.url)

interface Queued {
  job: HtmlJob
  timeoutMs: number
  resolve(answer: HtmlAnswer): void
  reject(error: Error): void
}

/** One worker and its queue. */
export class HtmlWorkerHost {
  private worker?: Worker
  private idle?: NodeJS.Timeout
  private nextId = 1
  private readonly queue: Queued[] = []
  private running?: { item: Queued; timer: unknown }
  /** Workers started so far (a timeout or a crash starts a fresh one for the next job). */
  started = 0

  constructor(
    private readonly url: URL = WORKER_URL,
    private readonly timers: JobTimers = REAL_TIMERS,
  ) {}

  /** Runs one job; rejects with {@link HtmlWorkError} on failure or after `timeoutMs` of its own run. */
  run(job: Omit<HtmlJob, 'id'>, timeoutMs = HTML_JOB_TIMEOUT_MS): Promise<HtmlAnswer> {
    return new Promise<HtmlAnswer>((resolve, reject) => {
      this.queue.push({ job: { ...job, id: this.nextId++ } as HtmlJob, timeoutMs, resolve, reject })
      this.pump()
    })
  }

  private pump(): void {
    if (this.running) return
    const item = this.queue.shift()
    if (!item) {
      if (this.worker && !this.idle) {
        this.idle = setTimeout(() => this.stop(), IDLE_MS)
        this.idle.unref()
      }
      return
    }
    if (this.idle) clearTimeout(this.idle)
    this.idle = undefined
    const worker = this.ensure()
    // The limit starts now, when the worker takes this job.
    const timer = this.timers.set(() => this.fail(new HtmlWorkError(`converting the page took longer than ${item.timeoutMs} ms`)), item.timeoutMs)
    this.running = { item, timer }
    worker.postMessage(item.job)
  }

  /** Ends the running job with `error`, ends its worker, and lets the queue go on with a fresh one. */
  private fail(error: Error): void {
    const running = this.running
    this.running = undefined
    this.stop()
    if (running) {
      this.timers.clear(running.timer)
      running.item.reject(error)
    }
    this.pump()
  }

  private ensure(): Worker {
    if (this.worker) return this.worker
    const started = new Worker(this.url, { resourceLimits: { maxOldGenerationSizeMb: 512, stackSizeMb: 4 }, stdout: true, stderr: true })
    started.unref()
    this.started++
    started.on('message', (answer: HtmlAnswer) => {
      const running = this.running
      if (this.worker !== started || !running || running.item.job.id !== answer.id) return
      this.running = undefined
      this.timers.clear(running.timer)
      running.item.resolve(answer)
      this.pump()
    })
    started.on('error', (error) => {
      if (this.worker === started) this.fail(new HtmlWorkError(`HTML worker failed: ${error.message}`))
    })
    started.on('exit', () => {
      if (this.worker === started) this.fail(new HtmlWorkError('HTML worker exited'))
    })
    this.worker = started
    return started
  }

  /** Ends the worker (queued jobs stay queued; the next one starts a fresh worker). */
  private stop(): void {
    const current = this.worker
    this.worker = undefined
    if (this.idle) clearTimeout(this.idle)
    this.idle = undefined
    void current?.terminate()
  }
}

const shared = new HtmlWorkerHost()

/** Runs one job in the shared worker; rejects with {@link HtmlWorkError} on failure or after `timeoutMs` of its run. */
export async function runHtmlJob(job: Omit<HtmlJob, 'id'>, timeoutMs = HTML_JOB_TIMEOUT_MS): Promise<HtmlAnswer & { ok: true }> {
  const answer = await shared.run(job, timeoutMs)
  if (!answer.ok) throw new HtmlWorkError(answer.error)
  return answer
}
