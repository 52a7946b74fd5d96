/**
 * The pager over the store's list (src/knowledge/pager.ts), on real stores: 2,500 documents across kinds and
 * statuses come back exactly once each, newest first, the last partial page included; and when the list changes
 * between two pages (documents written before the point reached, one removed before it, more than a page written at
 * once) no document of the scan is skipped or repeated. Offset paging alone repeats one in the first case and skips
 * one in the second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eachListed, LIST_PAGE, listedPages, listedPagesWithTurns, type ScanFilter } from '../../src/knowledge/pager.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { DocKind, DocStatus } from '../../src/types.js'
import { roundDraft, storeFixture } from '../harness/stores.js'

const fixture = storeFixture('pager')
const KINDS: DocKind[] = ['raw', 'note', 'distilled']
const STATUSES: DocStatus[] = ['active', 'active', 'superseded', 'retired', 'active']
const T0 = Date.UTC(2026, 0, 1)

interface Seeded {
  k: number
  id: string
  kind: DocKind
  status: DocStatus
}

/** Document k of a seeded root: created k minutes after T0, so the list's order (newest first) is k descending. */
function seeded(k: number): Seeded {
  return { k, id: `${String(k).padStart(8, '0')}-t1`, kind: KINDS[k % KINDS.length], status: STATUSES[k % STATUSES.length] }
}

/** Writes `count` documents straight to disk (the store indexes them when it starts): much faster than `write`. */
function seedRoot(count: number, statuses = true): { root: string; docs: Seeded[] } {
  const root = fixture.tmpRoot()
  const docs = Array.from({ length: count }, (_, k) => ({ ...seeded(k), ...(statuses ? {} : { status: 'active' as const }) }))
  for (const d of docs) {
    const session = `session-${String(d.k).padStart(8, '0')}-aaaa`
    mkdirSync(join(root, session), { recursive: true })
    const front = [
      `id: ${d.id}`,
      `title: "Doc ${d.k}"`,
      `kind: ${d.kind}`,
      `session: ${session}`,
      'turn: 1',
      `created: ${new Date(T0 + d.k * 60_000).toISOString()}`,
      'cwd: /ws',
      'tools: []',
      'tags: []',
      'redacted: 0',
    ]
    if (d.status !== 'active') front.push(`status: ${d.status}`)
    writeFileSync(join(root, session, `${d.id}-doc-${d.k}.md`), `---\n${front.join('\n')}\n---\n\n# Doc ${d.k}\n\n## Answer\n\nanswer ${d.k}\n`)
  }
  return { root, docs }
}

/** The ids a filter selects, newest first, from what was seeded. */
function expected(docs: Seeded[], pick: (d: Seeded) => boolean): string[] {
  return docs
    .filter(pick)
    .sort((a, b) => b.k - a.k)
    .map((d) => d.id)
}

/** A new round (its own session), created at `created` (default: now, so the newest of all). */
async function writeRound(store: KnowledgeStore, n: number, created?: string): Promise<string> {
  const session = `session-new${String(n).padStart(5, '0')}-bbbb`
  return (await store.write(roundDraft(`answer new ${n}`, { title: `New ${n}`, session, ...(created ? { created } : {}) }))).id
}

describe('a scan of 2,500 documents across kinds and statuses', () => {
  let store: KnowledgeStore
  let docs: Seeded[]
  beforeAll(async () => {
    const seed = seedRoot(2500)
    docs = seed.docs
    // Not the fixture's: it closes its stores after each test, and this one serves all of them.
    store = new KnowledgeStore({ root: seed.root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    await store.start()
  }, 60_000)
  afterAll(() => store.close())

  it('yields every document of the filter exactly once, newest first, the last partial page too', () => {
    const cases: Array<[ScanFilter, (d: Seeded) => boolean]> = [
      [{ status: 'active', scope: '/ws' }, (d) => d.status === 'active'],
      [{ status: 'all', scope: '/ws' }, () => true],
      [{ kind: 'note', status: 'active', scope: '/ws' }, (d) => d.kind === 'note' && d.status === 'active'],
      [{ kind: 'raw', scope: '/ws' }, (d) => d.kind === 'raw' && d.status !== 'retired'],
    ]
    for (const [filter, pick] of cases) expect([...eachListed(store, filter)].map((m) => m.id)).toEqual(expected(docs, pick))
  })

  it('reads 1,000 a page (the list call cap), each page after the first right after the last one read', () => {
    expect([...listedPages(store, { status: 'active', scope: '/ws' })].map((p) => p.length)).toEqual([1000, 500])
    expect([...listedPages(store, { status: 'all', scope: '/ws' })].map((p) => p.length)).toEqual([1000, 1000, 500])
    expect(LIST_PAGE).toBe(1000)
  })

  it('asks for every page after the first by its anchor, never by an offset past the first page, and counts once', () => {
    const calls: Array<{ offset?: number; after?: string }> = []
    const lister = {
      list: (f: Parameters<KnowledgeStore['list']>[0] = {}) => (calls.push({ offset: f.offset, after: f.after }), store.list(f)),
      get: (id: string) => store.get(id),
    }
    const ids = [...eachListed(lister, { status: 'all', scope: '/ws' })].map((m) => m.id)
    expect(ids).toEqual(expected(docs, () => true))
    expect(calls.map((c) => c.offset ?? c.after)).toEqual([0, ids[999], ids[1999]])
  })

  it('a document written between pages (the newest) is not yielded and makes none repeat', async () => {
    // Written in another workspace, so the scans of /ws above stay as seeded.
    const seen: string[] = []
    let written = ''
    for (const page of listedPages(store, { status: 'active' })) {
      seen.push(...page.map((m) => m.id))
      if (!written) written = await store.write(roundDraft('written between pages', { cwd: '/elsewhere', session: 'session-between0-cccc' })).then((w) => w.id)
    }
    expect(store.list({ status: 'active', limit: 1 }).items[0].id).toBe(written)
    expect(seen).toEqual(expected(docs, (d) => d.status === 'active'))
  })
})

describe('the list changing between pages (pages of 10 over 30 documents)', () => {
  const SIZE = 10
  async function open(): Promise<{ store: KnowledgeStore; ids: string[] }> {
    const { root, docs } = seedRoot(30, false)
    const store = fixture.open(root)
    await store.start()
    return { store, ids: expected(docs, () => true) }
  }

  /** The ids a scan yields, running `between(pageIndex, page)` after each page. */
  async function scanWith(store: KnowledgeStore, between: (k: number, page: string[]) => Promise<void>): Promise<string[]> {
    const seen: string[] = []
    let k = 0
    for (const page of listedPages(store, { status: 'active' }, SIZE)) {
      const ids = page.map((m) => m.id)
      seen.push(...ids)
      await between(k++, ids)
    }
    return seen
  }

  it('new documents written before the point reached: none repeats, the new ones are not yielded', async () => {
    const { store, ids } = await open()
    let n = 0
    expect(await scanWith(store, async () => void (await writeRound(store, n++)))).toEqual(ids)
    expect(store.count({ status: 'active' })).toBe(30 + n)
  })

  it('a document before the point reached retired: none is skipped', async () => {
    const { store, ids } = await open()
    const seen = await scanWith(store, async (k, page) => {
      if (k < 2) await store.setStatus(page[0], { to: 'retired', reason: 'gone' }, 'test')
    })
    expect(seen).toEqual(ids)
  })

  it('the anchor itself retired: the scan resumes after the last document it yielded', async () => {
    const { store, ids } = await open()
    const seen = await scanWith(store, async (k, page) => {
      if (k === 0) await store.setStatus(page[page.length - 1], { to: 'retired', reason: 'gone' }, 'test')
    })
    expect(seen).toEqual(ids)
  })

  it('the anchor gone from the index (its file broken): the scan resumes after the last yielded one still there', async () => {
    const { store, ids } = await open()
    const seen = await scanWith(store, async (k, page) => {
      if (k !== 0) return
      const anchor = store.get(page[page.length - 1])
      writeFileSync(join(store.root, anchor?.path ?? ''), '---\nid: [broken\n---\n')
      // A read of a file that is no longer a document takes it out of the index at once.
      await store.read(page[page.length - 1]).catch(() => undefined)
      expect(store.get(page[page.length - 1])).toBeUndefined()
    })
    expect(seen).toEqual(ids)
  })

  it('more than a page written at once before the point reached: the scan finds its place again', async () => {
    const { store, ids } = await open()
    let n = 0
    const seen = await scanWith(store, async (k) => {
      if (k === 0) for (let j = 0; j < SIZE + 2; j++) await writeRound(store, n++)
    })
    expect(seen).toEqual(ids)
  })

  it('a document written between pages that sorts after the point reached is yielded once, in its place', async () => {
    const { store, ids } = await open()
    let late = ''
    // Between documents 4 and 5 (created minutes 4 and 5): on the last page of a newest-first scan.
    const seen = await scanWith(store, async (k) => {
      if (k === 0) late = await writeRound(store, 0, new Date(T0 + 4.5 * 60_000).toISOString())
    })
    const at = ids.indexOf(seeded(4).id)
    expect(seen).toEqual([...ids.slice(0, at), late, ...ids.slice(at)])
  })

  it('the async form gives the event loop a turn between pages and yields the same pages', async () => {
    const { store, ids } = await open()
    const turns: number[] = []
    let ticks = 0
    const tick = (): void => {
      ticks++
      if (ticks < 100) setImmediate(tick)
    }
    setImmediate(tick)
    const seen: string[] = []
    for await (const page of listedPagesWithTurns(store, { status: 'active' }, SIZE)) {
      turns.push(ticks)
      seen.push(...page.map((m) => m.id))
    }
    expect(seen).toEqual(ids)
    // Pages of 10, 10 and 10, and an empty fourth read. A sync scan would deliver all of them within one turn: here each
    // came at least one turn after the one before.
    expect(turns).toHaveLength(3)
    for (let k = 1; k < turns.length; k++) expect(turns[k]).toBeGreaterThan(turns[k - 1])
  })

  it('refuses a page size it cannot page with', () => {
    const lister = { list: () => ({ total: 0, items: [] }), get: () => undefined }
    expect(() => [...listedPages(lister, {}, 1)]).toThrow(/size/)
    expect(() => [...listedPages(lister, {}, LIST_PAGE + 1)]).toThrow(/size/)
  })
})
