/**
 * A store that runs for days (issue 24): what a write leaves behind in the process must not grow with the number of
 * writes. Counted, not timed: performance-timeline entries and secretlint's profiler entries after N backstop writes.
 */
import { describe, expect, it } from 'vitest'
import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import type { FrontMatter } from '../../src/types.js'
import { secretLintProfiler } from '@secretlint/profiler'
import { createRedactor } from '../../src/redact/redactor.js'
import { GROWTH_DAYS_MAX, growthOf, Ledger, UNWRITTEN_MAX } from '../../src/knowledge/logs/ledger.js'
import { healthSummary } from '../../src/knowledge/reports/health.js'
import { REVISIONS_FILE, Revisions } from '../../src/knowledge/logs/revisions.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { PLANNING_CACHE_MAX } from '../../src/search/planner.js'
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

  it('keeps none of the file texts a scan read: a parsed id is a view into its whole file', async () => {
    // 300 files of ~64 KB: ~19 MB of text, with ids long enough for V8 to slice (13 characters and up). The store
    // keeps their ids and revisions (a few dozen bytes each); a key that is a view into the text (V8's sliced string)
    // keeps the whole text alive for the life of the process.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const root = tmpRoot()
    mkdirSync(join(root, 'notes'), { recursive: true })
    const filler = 'the deploy step retried the build and the cache missed again; '.repeat(1000)
    for (let k = 0; k < 300; k++) {
      const meta = { id: `deploy-note-number-${k}`, title: `Big ${k}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter
      writeFileSync(join(root, 'notes', `big-${k}.md`), formatDocument(meta, `${filler} number ${k}`))
    }
    gc()
    const before = getHeapStatistics().used_heap_size
    const store = open(root)
    await store.start()
    expect(store.size).toBe(300)
    gc()
    const grown = getHeapStatistics().used_heap_size - before
    expect(grown).toBeLessThan(8 * 1024 * 1024)
  })

  it('holds a folded revision log in well under 130 bytes of heap per document id', () => {
    // Kept for the life of the process, one per document: at a million documents every 100 bytes here is 100 MB. An
    // object per id with its hash string and a boxed time came to ~180 bytes; the id's key and a typed slot ~90.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const root = tmpRoot()
    const ids = 50_000
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    writeRevisionLog(join(root, '.knowledge', REVISIONS_FILE), ids)
    gc()
    const before = getHeapStatistics().used_heap_size
    const revisions = new Revisions(root)
    expect(revisions.current('round-2026-01-01-session-7')).toBe(1)
    gc()
    const perId = (getHeapStatistics().used_heap_size - before) / ids
    expect(revisions.firstSeen('round-2026-01-01-session-7')).toBe(Date.parse('2026-01-08T00:00:00.000Z'))
    // The last id's slot lies past every growth of the table.
    expect([revisions.get('round-2026-01-01-session-49999'), revisions.firstSeen('round-2026-01-01-session-49999')]).toEqual([1, Date.parse('2026-01-05T00:00:00.000Z')])
    expect(perId).toBeLessThan(130)
  })

  it("bounds the query planner's caches in a process that searches for days without writing", () => {
    const index = new SearchIndex()
    const words = Array.from({ length: PLANNING_CACHE_MAX + 2000 }, (_, k) => `zq${k.toString(36)}x`)
    const meta = { id: 'big', title: 'Many words', kind: 'raw' as const, created: '2025-01-01T00:00:00.000Z', cwd: '/ws', tools: [], tags: [], session: 'session-1', turn: 1 }
    index.upsert({ id: 'big', path: 's/big.md', meta, body: words.join(' '), mtimeMs: 0 })
    const planner = (index as unknown as { planner: { df(t: string): number; noteAbsent(p: string): void; cached: { df: number; absent: number } } }).planner
    for (const w of words) expect(planner.df(w)).toBe(1)
    for (const w of words) planner.noteAbsent(`${w} missing`)
    expect(planner.cached.df).toBeLessThanOrEqual(PLANNING_CACHE_MAX)
    expect(planner.cached.absent).toBeLessThanOrEqual(PLANNING_CACHE_MAX)
    index.close()
  })

  it('counts every ledger entry a full disk refused, but keeps only the last ones in memory', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, '.knowledge'), 'not a folder') // every append fails, as on a full or read-only disk
    const ledger = new Ledger(root)
    const n = UNWRITTEN_MAX + 500
    for (let k = 0; k < n; k++) await ledger.record({ type: 'kept', session: 's', turn: k, id: `s-t${k}`, score: 3, redacted: 0 })
    expect((await ledger.stats()).kept).toBe(n)
    expect(await ledger.entries()).toHaveLength(UNWRITTEN_MAX)
  })

  it("answers the page's recent rounds from the ledger's end, whatever its length", async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const lines: string[] = []
    for (let k = 0; k < 20_000; k++) {
      const entry = k % 3 ? { type: 'dropped', session: 's', turn: k, score: -1, reasons: ['-ack'], title: `第${k}轮 确认一下` } : { type: 'note', id: `s-n${k}`, redacted: 0 }
      lines.push(JSON.stringify({ t: '2026-01-01T00:00:00.000Z', ...entry }))
    }
    writeFileSync(join(root, '.knowledge', 'ledger.jsonl'), `${lines.join('\n')}\n{"t":"torn`)
    const ledger = new Ledger(root)
    const dropped = (e: { type: string }) => e.type === 'dropped'
    const all = (await ledger.entries()).filter(dropped)
    expect(await ledger.recent(200, dropped)).toEqual(all.slice(-200))
    expect(ledger.recentBytes).toBeLessThan(256 * 1024)
    expect(await ledger.recent(50_000, dropped)).toEqual(all)
  })
  it("folds the health view's growth per day from what was appended since the last look, not the whole ledger", async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const file = join(root, '.knowledge', 'ledger.jsonl')
    const lines: string[] = []
    for (let k = 0; k < 20_000; k++) {
      const t = `2026-0${1 + (k % 9)}-1${k % 10}T00:00:00.000Z`
      const entry =
        k % 3 ? { type: 'dropped', session: 's', turn: k, score: -1, reasons: [k % 2 ? '-ack' : '-terse-status'] } : { type: 'kept', session: 's', turn: k, id: `s-t${k}`, score: 3, redacted: 0 }
      lines.push(JSON.stringify({ t, ...entry }))
    }
    // A torn line, a line dated by a number and one with no date: skipped, as growthOf skips them.
    writeFileSync(file, `${lines.join('\n')}\n{"t":"torn\n{"t":123,"type":"kept"}\n{"type":"note","id":"n"}\n`)
    const ledger = new Ledger(root)
    const first = await ledger.growth()
    expect(first).toEqual(growthOf(await ledger.entries()))
    expect(first).toHaveLength(90)
    expect(first.reduce((n, g) => n + g.kept + g.dropped, 0)).toBe(20_000)
    expect(ledger.foldedBytes).toBe(statSync(file).size)
    // Nothing new: nothing read. One round more: that line only.
    await ledger.growth()
    expect(ledger.foldedBytes).toBe(statSync(file).size)
    const before = statSync(file).size
    await ledger.record({ type: 'note', id: 'later', redacted: 0 })
    const after = await ledger.growth()
    expect(statSync(file).size).toBeGreaterThan(before)
    expect(ledger.foldedBytes).toBe(statSync(file).size) // each byte once: the new line only
    expect(after.at(-1)?.notes).toBe(1)
    expect(after).toEqual(growthOf(await ledger.entries()))
    // What a caller does with the answer does not reach the fold.
    after[0].reasons['-ack'] = -1
    expect((await ledger.growth())[0].reasons['-ack']).not.toBe(-1)
  })

  it("keeps the growth fold's days bounded whatever dates a hand-edited ledger holds", async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const file = join(root, '.knowledge', 'ledger.jsonl')
    const day = (k: number) => new Date(Date.UTC(1990, 0, 1) + k * 86_400_000).toISOString()
    const n = GROWTH_DAYS_MAX + 1500
    writeFileSync(file, Array.from({ length: n }, (_, k) => JSON.stringify({ t: day(k), type: 'kept', session: 's', turn: k, id: `s-t${k}`, score: 3, redacted: 0 })).join('\n') + '\n')
    const ledger = new Ledger(root)
    const days = await ledger.growth()
    expect(days).toHaveLength(GROWTH_DAYS_MAX)
    expect(days[0].day).toBe(day(n - GROWTH_DAYS_MAX).slice(0, 10))
    expect(days.at(-1)!.day).toBe(day(n - 1).slice(0, 10))
    // An older day arriving later is not let back in.
    appendFileSync(file, `${JSON.stringify({ t: day(0), type: 'kept', session: 's', turn: -1, id: 'old', score: 3, redacted: 0 })}\n`)
    expect((await ledger.growth())[0].day).toBe(day(n - GROWTH_DAYS_MAX).slice(0, 10))
  })

  it("answers the page's health summary twice without reading the ledger again", async () => {
    const store = open(tmpRoot())
    for (let k = 0; k < 30; k++) await store.write(roundDraft(answer(k), { turn: k + 1, title: `Deploy step ${k}` }))
    for (let k = 0; k < 30; k++) await store.ledger.record({ type: 'kept', session: 's', turn: k + 1, id: `s-t${k}`, score: 3, redacted: 0 })
    const first = await healthSummary(store, undefined)
    expect(first.growth.reduce((n, g) => n + g.kept, 0)).toBeGreaterThanOrEqual(30)
    const read = store.ledger.foldedBytes
    expect(read).toBeGreaterThan(0)
    expect((await healthSummary(store, undefined)).growth).toEqual(first.growth)
    expect(store.ledger.foldedBytes).toBe(read)
  })
})

/** A log of `ids` ids, one line each, written from a frame of its own: its text is garbage once this returns. */
function writeRevisionLog(file: string, ids: number): void {
  const line = (k: number) => {
    const hash = `${((k * 2654435761) % 2 ** 32).toString(16).padStart(8, '0')}00c0ffee`
    return `round-2026-01-01-session-${k} ${hash} 2026-01-0${1 + (k % 9)}T00:00:00.000Z\n`
  }
  writeFileSync(file, Array.from({ length: ids }, (_, k) => line(k)).join(''))
}
