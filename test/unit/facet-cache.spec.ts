/**
 * Facet counts are cached per filter (the page asks for them on every list, search and stats request) and every change
 * shows in the next answer: a write of this index, a removal, a status change, and a commit by another connection to
 * the same index file (another process). This index's own writes shift the cached counts instead of dropping them
 * (a recount held the loop ~0.1 s at 120k documents after every round): the shifted counts must equal a recount.
 * @module dsh-knowledge-sync/test/unit/facet-cache
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FACET_CACHE_ENTRIES, FACET_SHIFT_ROWS, FacetCache } from '../../src/search/facets.js'
import { createIndexFile, openIndexFile } from '../../src/search/index-file.js'
import { SearchIndex } from '../../src/search/search-index.js'
import type { DocKind, DocStatus, KnowledgeDoc, SearchFilter } from '../../src/types.js'
import type { Facets } from '../../src/wire.js'

let clock = Date.UTC(2025, 0, 1)
function doc(id: string, over: { kind?: DocKind; cwd?: string; tags?: string[]; tools?: string[]; status?: DocStatus } = {}): KnowledgeDoc {
  clock += 60_000
  return {
    id,
    path: `s/${id}.md`,
    meta: {
      id,
      title: id,
      kind: over.kind ?? 'raw',
      created: new Date(clock).toISOString(),
      cwd: over.cwd ?? '/home/u/proj',
      tools: over.tools ?? [],
      tags: over.tags ?? [],
      session: 'session-1',
      turn: 1,
      ...(over.status ? { status: over.status } : {}),
    },
    body: `the body of ${id}`,
    mtimeMs: clock,
  }
}

const empty = (): Facets => ({ kinds: {}, tags: {}, tools: {}, workspaces: {} })

/** The facets of a filter counted from its listing, row by row (what a recount must give). */
function listed(index: SearchIndex, filter: SearchFilter): Facets {
  const expected: Facets = empty()
  for (const meta of index.list({ ...filter, limit: 100_000 }).items) {
    expected.kinds[meta.kind] = (expected.kinds[meta.kind] ?? 0) + 1
    expected.workspaces[meta.cwd] = (expected.workspaces[meta.cwd] ?? 0) + 1
    for (const tag of new Set(meta.tags)) expected.tags[tag] = (expected.tags[tag] ?? 0) + 1
    for (const tool of new Set(meta.tools)) expected.tools[tool] = (expected.tools[tool] ?? 0) + 1
  }
  return expected
}

/** How many times the index counted facets afresh (not shifted, not served from its cache). */
const recounts = (index: SearchIndex): number => (index as unknown as { facetCache: FacetCache }).facetCache.computed

describe('FacetCache', () => {
  it('counts a filter once until it is cleared or the version moves', () => {
    let version = 1
    let counted = 0
    const cache = new FacetCache(() => version, empty)
    const count = () => (counted++, { ...empty(), kinds: { raw: counted } })
    expect(cache.get({ kind: 'raw' }, count).kinds.raw).toBe(1)
    expect(cache.get({ kind: 'raw' }, count).kinds.raw).toBe(1)
    expect(cache.get({ kind: 'note' }, count).kinds.raw).toBe(2) // another filter, its own counts
    cache.clear()
    expect(cache.get({ kind: 'raw' }, count).kinds.raw).toBe(3)
    version = 2 // another connection committed
    expect(cache.get({ kind: 'raw' }, count).kinds.raw).toBe(4)
    expect(cache.computed).toBe(4)
  })

  it('keeps a bounded number of filters, evicting the least recently used', () => {
    const cache = new FacetCache(() => 0, empty)
    for (let k = 0; k < FACET_CACHE_ENTRIES; k++) cache.get({ tag: `t${k}` }, empty)
    cache.get({ tag: 't0' }, empty) // used again: t1 is now the oldest
    cache.get({ tag: 'new' }, empty)
    const before = cache.computed
    cache.get({ tag: 't0' }, empty)
    expect(cache.computed).toBe(before)
    cache.get({ tag: 't1' }, empty)
    expect(cache.computed).toBe(before + 1)
  })

  it('hands out copies: a caller that changes its answer does not change the next one', () => {
    const cache = new FacetCache(() => 0, empty)
    const first = cache.get({}, () => ({ ...empty(), kinds: { raw: 2 } }))
    first.kinds.raw = 99
    expect(cache.get({}, empty).kinds.raw).toBe(2)
  })
})

describe('SearchIndex facets after changes', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('a write, a removal and a status change show in the next facets', () => {
    const index = new SearchIndex()
    try {
      index.upsert(doc('a', { tags: ['redis'], tools: ['grep'] }))
      index.upsert(doc('b', { kind: 'note', tags: ['redis'] }))
      expect(index.facets()).toEqual({ kinds: { raw: 1, note: 1 }, tags: { redis: 2 }, tools: { grep: 1 }, workspaces: { '/home/u/proj': 2 } })
      expect(index.facets({ kind: 'note' }).tags).toEqual({ redis: 1 })
      index.upsert(doc('c', { kind: 'note', tags: ['pnpm'], cwd: '/srv/x' }))
      expect(index.facets().kinds).toEqual({ raw: 1, note: 2 })
      expect(index.facets({ kind: 'note' }).tags).toEqual({ redis: 1, pnpm: 1 })
      index.remove('a')
      expect(index.facets()).toEqual({ kinds: { note: 2 }, tags: { redis: 1, pnpm: 1 }, tools: {}, workspaces: { '/home/u/proj': 1, '/srv/x': 1 } })
      index.upsert(doc('b', { kind: 'note', tags: ['redis'], status: 'retired' }))
      expect(index.facets().kinds).toEqual({ note: 1 }) // retired documents leave the default status filter
      expect(index.facets({ status: 'all' }).kinds).toEqual({ note: 2 })
    } finally {
      index.close()
    }
  })

  it('counts what the listing of the same filter holds, for every kind of filter', () => {
    const index = new SearchIndex()
    try {
      const kinds: DocKind[] = ['raw', 'note', 'distilled', 'manual']
      const statuses: Array<DocStatus | undefined> = [undefined, undefined, 'superseded', 'retired']
      const cwds = ['/home/u/proj', '/home/u/proj/pkg', '/home/u/other', '']
      for (let k = 0; k < 240; k++) {
        const tags = ['redis', 'pnpm', 'ci', '性能'].filter((_, t) => (k >> t) % 3 === 0)
        const tools = ['bash', 'bash_exec', 'grep'].filter((_, t) => (k + t) % 4 === 0)
        index.upsert(doc(`${k % 7 === 0 ? 'concept-' : ''}d${k}`, { kind: kinds[k % 4], status: statuses[(k >> 2) % 4], cwd: cwds[(k >> 1) % 4], tags, tools }))
      }
      const filters = [
        {},
        { kind: 'note' as const },
        { status: 'all' as const },
        { status: 'retired' as const },
        { tag: 'redis' },
        { tag: '性能', kind: 'raw' as const },
        { tool: 'bash*' },
        { tool: 'grep' },
        { scope: '/home/u/proj' },
        { scope: '/home/u/proj', tag: 'pnpm' },
        { idPrefix: 'concept-' },
      ]
      for (const filter of filters) expect({ filter, facets: index.facets(filter) }).toEqual({ filter, facets: listed(index, filter) })
    } finally {
      index.close()
    }
  })

  // Every kind of filter the page asks for, including a tool glob that names come to match and a tag not yet known.
  const shiftFilters: SearchFilter[] = [
    {},
    { kind: 'note' },
    { status: 'all' },
    { status: 'retired' },
    { tag: 'redis' },
    { tag: 'later' },
    { tag: '性能', kind: 'raw' },
    { tool: 'bash*' },
    { scope: '/home/u/proj' },
    { scope: '/home/u/proj', tag: 'pnpm' },
    { idPrefix: 'concept-' },
  ]

  /** Random writes to `index`: upserts of 40 ids of every kind, status, workspace, tag and tool, and removals. */
  function randomWriter(index: () => SearchIndex, seed: number): (step: number) => void {
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed % n
    }
    const kinds: DocKind[] = ['raw', 'note', 'distilled', 'manual']
    const statuses: Array<DocStatus | undefined> = [undefined, undefined, 'superseded', 'retired']
    const cwds = ['/home/u/proj', '/home/u/proj/pkg', '/home/u/other', '']
    return (step) => {
      const id = `${next(5) === 0 ? 'concept-' : ''}d${next(40)}`
      // Names that appear only later: a tag a cached filter already asks for, a tool its glob comes to match.
      const tags = ['redis', 'pnpm', '性能', ...(step > 150 ? ['later'] : [])].filter(() => next(3) === 0)
      const tools = ['bash', 'grep', ...(step > 100 ? ['bash_new'] : [])].filter(() => next(3) === 0)
      if (next(6) === 0) index().remove(id)
      else index().upsert(doc(id, { kind: kinds[next(4)], status: statuses[next(4)], cwd: cwds[next(4)], tags, tools }))
    }
  }

  for (const backing of ['memory', 'file'] as const) {
    it(`this index's own writes shift the cached counts, equal to a recount after every one, and count nothing afresh (${backing})`, async () => {
      let index: SearchIndex
      if (backing === 'file') {
        const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-facets-'))
        dirs.push(dir)
        index = new SearchIndex({}, createIndexFile(join(dir, 'index.sqlite')))
      } else index = new SearchIndex()
      try {
        const write = randomWriter(() => index, 7)
        for (let step = 0; step < 20; step++) write(step) // some documents before the first count
        for (const filter of shiftFilters) index.facets(filter)
        const counted = recounts(index)
        expect(counted).toBe(shiftFilters.length)
        for (let step = 20; step < 320; step++) {
          write(step)
          const filter = shiftFilters[step % shiftFilters.length]
          expect({ step, filter, facets: index.facets(filter) }).toEqual({ step, filter, facets: listed(index, filter) })
        }
        for (const filter of shiftFilters) expect({ filter, facets: index.facets(filter) }).toEqual({ filter, facets: listed(index, filter) })
        expect(recounts(index)).toBe(counted) // every answer came from shifted counts
      } finally {
        await index.close()
      }
    })
  }

  it('a bulk write past the shift limit drops the counts, and the next read counts afresh, right', () => {
    const index = new SearchIndex()
    try {
      index.upsert(doc('first', { tags: ['redis'] }))
      expect(index.facets().tags).toEqual({ redis: 1 })
      const counted = recounts(index)
      index.upsertMany(Array.from({ length: FACET_SHIFT_ROWS + 1 }, (_, k) => doc(`bulk${k}`, { kind: 'note', tags: ['pnpm'] })))
      expect(index.facets()).toEqual({ kinds: { raw: 1, note: FACET_SHIFT_ROWS + 1 }, tags: { redis: 1, pnpm: FACET_SHIFT_ROWS + 1 }, tools: {}, workspaces: { '/home/u/proj': FACET_SHIFT_ROWS + 2 } })
      expect(recounts(index)).toBe(counted + 1)
    } finally {
      index.close()
    }
  })

  /** A complete index file holding `seed`, written by one connection (`writer`), and another connection to it. */
  function twoConnections(seed: KnowledgeDoc, options?: { readOnly: boolean }): { file: string; writer: SearchIndex; reader: SearchIndex } {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-facets-'))
    dirs.push(dir)
    const file = join(dir, 'index.sqlite')
    const writer = new SearchIndex({}, createIndexFile(file))
    writer.upsert(seed)
    writer.setState('complete')
    return { file, writer, reader: new SearchIndex({}, openIndexFile(file, options)) }
  }

  it('a commit by another connection to the same index file shows in the next facets', async () => {
    const { writer, reader } = twoConnections(doc('a', { tags: ['redis'] }), { readOnly: true })
    try {
      expect(reader.facets().tags).toEqual({ redis: 1 })
      writer.upsert(doc('b', { kind: 'note', tags: ['redis'] }))
      writer.flush()
      expect(reader.facets().tags).toEqual({ redis: 2 })
      expect(reader.facets().kinds).toEqual({ raw: 1, note: 1 })
    } finally {
      await reader.close()
      await writer.close()
    }
  })

  it("another connection's commits shift the cached counts through their snapshots, equal to a recount after every one", async () => {
    const { writer: first, reader: second } = twoConnections(doc('seed', { tags: ['redis'] }))
    try {
      // Both write (each its own rows and the other's ids); `second` reads, after each commit of either.
      const writers = [randomWriter(() => first, 11), randomWriter(() => second, 13)]
      for (let step = 0; step < 20; step++) writers[step % 2](step)
      first.flush()
      second.flush()
      for (const filter of shiftFilters) second.facets(filter)
      const counted = recounts(second)
      for (let step = 20; step < 320; step++) {
        writers[step % 3 === 0 ? 1 : 0](step)
        first.flush()
        second.flush()
        const filter = shiftFilters[step % shiftFilters.length]
        expect({ step, filter, facets: second.facets(filter) }).toEqual({ step, filter, facets: listed(second, filter) })
      }
      for (const filter of shiftFilters) expect({ filter, facets: second.facets(filter) }).toEqual({ filter, facets: listed(second, filter) })
      expect(recounts(second)).toBe(counted) // every answer came from shifted counts
    } finally {
      await second.close()
      await first.close()
    }
  })

  it("a commit made while this connection follows another's is followed after it: the cached counts shift, none dropped", async () => {
    const { writer, reader } = twoConnections(doc('a', { tags: ['redis'] }))
    // The planner's callback runs once per followed change, inside the catch-up (it reads the index's size); the other
    // connection commits right then, as another process may. A nested catch-up read that commit before the outer one
    // had followed its own, and the counts, seeing the versions out of order, were dropped.
    const planner = (reader as unknown as { planner: { wrote(): void } }).planner
    const wrote = planner.wrote.bind(planner)
    let during = 0
    planner.wrote = () => {
      if (during++ < 3) {
        writer.upsert(doc(`during-${during}`, { kind: 'note', tags: ['pnpm'] }))
        writer.flush()
      }
      wrote()
    }
    try {
      expect(reader.facets().tags).toEqual({ redis: 1 })
      const counted = recounts(reader)
      for (let k = 0; k < 6; k++) {
        writer.upsert(doc(`b${k}`, { tags: ['redis'] }))
        writer.flush()
        for (const filter of [{}, { kind: 'note' as const }]) {
          // Listed first: a commit made inside the facets' own catch-up shows in the next answer, not this one.
          const expected = listed(reader, filter)
          expect(reader.facets(filter)).toEqual(expected)
        }
      }
      expect(reader.size).toBe(10)
      expect(reader.facets().tags).toEqual({ redis: 7, pnpm: 3 })
      expect(recounts(reader)).toBe(counted + 1) // the note filter's first count; every other answer shifted
    } finally {
      await reader.close()
      await writer.close()
    }
  })

  it('a commit whose change rows carry no snapshot (a writer of an older build), or one not readable, drops the counts; the next read counts afresh, right', async () => {
    const { file, writer, reader } = twoConnections(doc('a', { tags: ['redis'] }))
    const older = openIndexFile(file)
    try {
      expect(reader.facets().tags).toEqual({ redis: 1 })
      const counted = recounts(reader)
      writer.upsert(doc('b', { kind: 'note', tags: ['redis', 'pnpm'] }))
      writer.flush()
      expect(reader.facets()).toEqual({ kinds: { raw: 1, note: 1 }, tags: { redis: 2, pnpm: 1 }, tools: {}, workspaces: { '/home/u/proj': 2 } })
      expect(recounts(reader)).toBe(counted) // shifted
      writer.upsert(doc('a', { kind: 'manual', tags: ['pnpm'] }))
      writer.flush()
      // What an older build's rows look like: the same change rows, without the snapshot.
      older.exec('UPDATE change SET facets = NULL WHERE seq = (SELECT max(seq) FROM change)')
      expect(reader.facets()).toEqual({ kinds: { note: 1, manual: 1 }, tags: { redis: 1, pnpm: 2 }, tools: {}, workspaces: { '/home/u/proj': 2 } })
      expect(recounts(reader)).toBe(counted + 1)
      // A snapshot that is not JSON (a file another program wrote): counted afresh too, never an error.
      writer.upsert(doc('c', { tags: ['redis'] }))
      writer.flush()
      older.exec(`UPDATE change SET facets = '[1, "c", ' WHERE seq = (SELECT max(seq) FROM change)`)
      expect(reader.facets().tags).toEqual({ redis: 2, pnpm: 2 })
      expect(recounts(reader)).toBe(counted + 2)
    } finally {
      older.close()
      await reader.close()
      await writer.close()
    }
  })
})
