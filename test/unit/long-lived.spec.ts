/**
 * A store that runs for days (issue 24): what a write leaves behind in the process must not grow with the number of
 * writes. Counted, not timed: performance-timeline entries and secretlint's profiler entries after N backstop writes.
 */
import { describe, expect, it } from 'vitest'
import { performance } from 'node:perf_hooks'
import { secretLintProfiler } from '@secretlint/profiler'
import { createRedactor } from '../../src/redact/redactor.js'
import { roundDraft, storeFixture } from '../harness/stores.js'

const { open, tmpRoot } = storeFixture('long-lived')

// A run of 12+ non-space characters sends the text through the secretlint backstop (the path dsh takes).
const answer = (k: number) => `Set the header X-Build-Token to build_${k}_abcdefghijklmnop and retry the deploy step ${k}.`

describe('a long-lived process', () => {
  it('keeps no performance entries per backstop redaction (secretlint profiler off)', async () => {
    const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })
    let runs = 0
    const counted = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }, { onBackstop: () => runs++ })
    await counted.redact(answer(0))
    expect(runs).toBe(1)
    const before = performance.getEntries().length
    for (let k = 1; k <= 200; k++) await redactor.redact(answer(k))
    expect(performance.getEntries().length - before).toBe(0)
    expect(await secretLintProfiler.getEntries()).toHaveLength(0)
    expect(secretLintProfiler.isEnabled).toBe(false)
  })

  it('writes N rounds through the store without timeline entries growing with N', async () => {
    const store = open(tmpRoot())
    const sizeAfter = async (from: number, to: number) => {
      for (let k = from; k < to; k++) await store.write(roundDraft(answer(k), { turn: k + 1, title: `Deploy step ${k}` }))
      return performance.getEntries().length + (await secretLintProfiler.getEntries()).length
    }
    const after10 = await sizeAfter(0, 10)
    const after110 = await sizeAfter(10, 110)
    expect(after110).toBe(after10)
  })
})
