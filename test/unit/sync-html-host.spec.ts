/**
 * The HTML worker host's time limit, on an injected timer (no test waits for it): it starts when the worker takes a
 * job, not when the job is queued, and a job over it fails alone — the jobs queued behind it run on a fresh worker.
 * The worker is a real worker thread running a stand-in script whose "hang" job never finishes.
 */
import { describe, expect, it } from 'vitest'
import { HtmlWorkError, HtmlWorkerHost, type JobTimers } from '../../src/sync/html.js'

const STAND_IN = new URL('../fixtures/html-hang-worker.mjs', import.meta.url)

/** Timers that fire only when the test says so. */
function manualTimers() {
  const armed = new Map<number, { fire: () => void; ms: number }>()
  let next = 0
  const timers: JobTimers = {
    set(fire, ms) {
      armed.set(++next, { fire, ms })
      return next
    },
    clear(handle) {
      armed.delete(handle as number)
    },
  }
  return { timers, armed, fireAll: () => [...armed.values()].forEach((t) => t.fire()) }
}

describe('the HTML worker host', () => {
  it('arms one job limit at a time: a queued job does not spend its limit waiting', async () => {
    const clock = manualTimers()
    const host = new HtmlWorkerHost(STAND_IN, clock.timers)
    const jobs = ['a', 'b', 'c'].map((html) => host.run({ op: 'markdown', html }, 1000))
    expect(clock.armed.size).toBe(1)
    const answers = await Promise.all(jobs)
    expect(answers.map((a) => (a.ok ? a.markdown : a.error))).toEqual(['a', 'b', 'c'])
    expect(clock.armed.size).toBe(0)
  })

  it('a job over its limit fails alone; the queued jobs run on a fresh worker', async () => {
    const clock = manualTimers()
    const host = new HtmlWorkerHost(STAND_IN, clock.timers)
    const slow = host.run({ op: 'markdown', html: 'hang' }, 30_000)
    const rest = ['after-1', 'after-2'].map((html) => host.run({ op: 'markdown', html }, 30_000))
    expect([...clock.armed.values()].map((t) => t.ms)).toEqual([30_000])
    clock.fireAll()
    await expect(slow).rejects.toBeInstanceOf(HtmlWorkError)
    await expect(slow).rejects.toThrow(/longer than 30000 ms/)
    expect((await Promise.all(rest)).map((a) => (a.ok ? a.markdown : a.error))).toEqual(['after-1', 'after-2'])
    expect(host.started).toBe(2)
  })
})
