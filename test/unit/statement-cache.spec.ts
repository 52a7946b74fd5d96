/**
 * The prepared-statement cache of an index (issue 24's audit): bounded, least recently used out, and keyed by query
 * shape, not by query text: every filter combination the rows can send, searched, listed, counted and faceted again
 * and again, and two thousand distinct queries, leave it at the same size.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseSync } from 'node:sqlite'
import { SearchIndex } from '../../src/search/search-index.js'
import { STATEMENT_CACHE_MAX, StatementCache } from '../../src/search/statement-cache.js'
import type { DocKind, KnowledgeDoc, SearchFilter } from '../../src/types.js'

let index: SearchIndex | undefined
afterEach(() => {
  index?.close()
  index = undefined
})

function doc(n: number): KnowledgeDoc {
  const kinds: DocKind[] = ['raw', 'note', 'preference']
  return {
    id: `d${n}`,
    path: `s/d${n}.md`,
    meta: {
      id: `d${n}`,
      title: `Lockfile pin ${n}`,
      kind: kinds[n % 3],
      created: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
      cwd: n % 2 ? '/w/a' : '/w/b',
      tools: n % 4 ? ['bash'] : ['bash', 'read_file'],
      tags: n % 5 ? ['pnpm'] : ['pnpm', 'ci'],
      session: `session-${n % 7}`,
      turn: n,
      ...(n % 11 === 0 ? { status: 'superseded' as const, superseded_by: 'd1' } : {}),
    },
    body: `The build ${n} resolved esbuild 0.19 because pnpm-lock.yaml pinned it (ERR_${n % 13}).`,
    mtimeMs: n,
  }
}

describe('StatementCache', () => {
  it('keeps at most its bound, the least recently used out', () => {
    const db = new DatabaseSync(':memory:')
    let prepared = 0
    const prepare = (sql: string) => (prepared++, db.prepare(sql))
    const cache = new StatementCache(3)
    const a = cache.get('SELECT 1', prepare)
    cache.get('SELECT 2', prepare)
    cache.get('SELECT 3', prepare)
    expect(cache.get('SELECT 1', prepare)).toBe(a) // a hit, and now the most recent
    cache.get('SELECT 4', prepare) // evicts SELECT 2, the least recently used
    expect(cache.size).toBe(3)
    expect(prepared).toBe(4)
    cache.get('SELECT 1', prepare)
    cache.get('SELECT 3', prepare)
    expect(prepared).toBe(4)
    cache.get('SELECT 2', prepare)
    expect(prepared).toBe(5)
    db.close()
  })

  it("bounds an index's cache even when every statement text is new", () => {
    index = new SearchIndex()
    for (let k = 0; k < STATEMENT_CACHE_MAX + 500; k++) index.stmt(`SELECT ${k} AS n`).get()
    expect(index.statements.size).toBe(STATEMENT_CACHE_MAX)
  })

  it('stays flat over every filter shape, repeated, and over 2,000 distinct queries', () => {
    index = new SearchIndex()
    for (let n = 1; n <= 200; n++) index.upsert(doc(n))
    const filters: SearchFilter[] = []
    for (const kind of [undefined, 'raw', 'note'] as const)
      for (const status of [undefined, 'active', 'superseded', 'all'] as const)
        for (const tag of [undefined, 'pnpm']) for (const tool of [undefined, 'bash', 'read']) for (const scope of [undefined, '/w/a']) filters.push({ kind, status, tag, tool, scope, limit: 5 })
    const pass = () => {
      for (const f of filters) {
        index!.search('lockfile esbuild', f)
        index!.list({ ...f, sort: 'title' })
        index!.list(f)
        index!.count(f)
        index!.facets(f)
      }
    }
    pass()
    const shapes = index.statements.size
    pass()
    expect(index.statements.size).toBe(shapes)
    for (let q = 0; q < 2_000; q++) index.search(`ERR_${q} build ${q}`, { limit: 3 })
    console.log(
      `statement cache: ${shapes} statements after ${filters.length} filter shapes × search/list/count/facets; ${index.statements.size} after 2,000 more queries (bound ${STATEMENT_CACHE_MAX})`,
    )
    expect(shapes).toBeLessThan(STATEMENT_CACHE_MAX)
    expect(index.statements.size).toBe(shapes)
  })
})
