/**
 * What a reused index leaves to be loaded later is loaded a slice at a time in the background, and a reader never
 * sees a half-filled table: the generic loader, the revision log folded in slices (the same revisions as one fold),
 * and a watching store over a persisted index whose tables fill after its start.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Loading } from '../../src/knowledge/index-cache/loading.js'
import { Revisions } from '../../src/knowledge/logs/revisions.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { FrontMatter } from '../../src/types.js'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

describe('loading a table in slices', () => {
  it('stops at the deadline, goes on where it stopped, and completes at once when asked', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => i)
    const table: number[] = []
    const loading = new Loading(
      () => rows,
      (row: number) => table.push(row),
    )
    expect(loading.step(performance.now() - 1)).toBe(false) // past the deadline: one check's worth of rows
    expect(table.length).toBe(256)
    expect(loading.step(Number.POSITIVE_INFINITY)).toBe(true)
    expect(table).toEqual(rows) // each row once, in order
    expect(loading.step(0)).toBe(true)
    expect(table.length).toBe(10_000)
  })

  it('keeps what was read when its source fails (the index closed under it)', () => {
    const table: number[] = []
    const loading = new Loading(
      function* () {
        yield 1
        throw new Error('closed')
      },
      (row: number) => table.push(row),
    )
    expect(loading.step(Number.POSITIVE_INFINITY)).toBe(true)
    expect(table).toEqual([1])
  })
})

describe('the revision log folded in slices', () => {
  it('gives the same revisions as one fold, a line longer than the slice included', () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-warm-')), 'kb')
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const lines: string[] = []
    for (let i = 0; i < 3000; i++) lines.push(`doc${i % 700} ${(i % 3 === 0 ? 'a' : 'b').repeat(15)}${i % 10} 2026-01-01T00:00:00.000Z`)
    lines.splice(1500, 0, `long-one 0123456789abcdef ${'x'.repeat(3000)}`) // longer than a slice, under the 4 KiB line cap
    writeFileSync(join(root, '.knowledge', 'revisions.log'), `${lines.join('\n')}\n`)
    const whole = new Revisions(root)
    whole.refresh()
    const sliced = new Revisions(root)
    let slices = 0
    while (!sliced.refresh(1024)) slices++
    expect(slices).toBeGreaterThan(50)
    for (let i = 0; i < 700; i++) expect(sliced.get(`doc${i}`)).toBe(whole.get(`doc${i}`))
    expect(sliced.get('long-one')).toBe(1)
    expect(whole.get('doc0')).toBeGreaterThan(1)
  })
})

describe('a watching store over a persisted index', () => {
  it('fills its tables after the start, in the background, and answers the same', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-warm-')), 'kb')
    mkdirSync(join(root, 'notes'), { recursive: true })
    const old = new Date(Date.now() - 60_000)
    for (let i = 0; i < 600; i++) {
      const file = join(root, 'notes', `d${i}-doc.md`)
      writeFileSync(
        file,
        formatDocument(
          { id: `d${i}`, title: `Doc ${i}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter,
          `note ${i} links to [the next](d${i + 1})`,
        ),
      )
      utimesSync(file, old, old)
    }
    const open = (watch: boolean) => {
      const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch })
      stores.push(store)
      return store
    }
    const first = open(false)
    await first.start()
    await first.close()
    stores.pop()
    const store = open(true)
    await store.start()
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Loaded in the background: the first write and lookups by path or id find what the index holds.
    expect(store.linkedFrom('d10')).toEqual(['d9'])
    const written = await store.write({ kind: 'manual', title: 'A later note', cwd: '', sections: [{ heading: 'Note', text: 'links to [d5](d5)' }] })
    expect(store.get(written.id)?.path).toBe(written.path)
    expect(store.linkedFrom('d5')).toEqual(expect.arrayContaining(['d4', written.id]))
  })
})
