/**
 * How the index merges its FTS5 segments while a process keeps writing. The background merge after live writes takes
 * only crowded levels; it used to flatten every level into one segment, which rewrote the whole index every 256 writes
 * (100k documents: ~1 s each time) and, cut short by an exit, left the rest to the next process's writes. A bulk load
 * or a build cut short (much outside the largest segment) is still flattened. Real files, real SQLite; segments read from FTS5's own
 * `fts_idx` table through a second connection.
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { SearchIndex } from '../../src/search/search-index.js'
import { createIndexFile, openIndexFile } from '../../src/search/index-file.js'
import { FLATTEN_SHARE, MERGE_AFTER } from '../../src/search/write-cycle.js'
import type { KnowledgeDoc } from '../../src/types.js'

/** A round; `long`: with 40 more words (a segment's size is in pages: the flattened one must dwarf the live ones). */
function doc(i: number, long = false): KnowledgeDoc {
  const more = long ? ` ${Array.from({ length: 40 }, (_, k) => `t${(i * 31 + k) % 5000}`).join(' ')}` : ''
  const created = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()
  return {
    id: `d${i}`,
    path: `s/d${i}.md`,
    meta: { id: `d${i}`, title: `round ${i}`, kind: 'raw', created, cwd: '/p', tools: [], tags: [], session: 's', turn: i },
    body: `the build failed with code E${i % 400} after word${i % 97} changed; lockfile ${i % 13} retry${more}`,
    mtimeMs: Date.parse(created),
  }
}

/** Rows of `fts_idx` per segment id, read by another connection (what is committed). */
function segments(file: string): Map<number, number> {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const rows = db.prepare('SELECT segid, count(*) AS n FROM fts_idx GROUP BY segid').all() as Array<{ segid: number; n: number }>
    return new Map(rows.map((r) => [r.segid, r.n]))
  } finally {
    db.close()
  }
}
const largest = (segs: Map<number, number>): number => [...segs].sort((a, b) => b[1] - a[1])[0][0]
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Flattens the file by hand (FTS5's 'merge' with a negative page count): an index as an owner's start leaves it. */
function flatten(file: string): void {
  const db = new DatabaseSync(file)
  try {
    const changes = db.prepare('SELECT total_changes() AS n')
    for (;;) {
      const before = (changes.get() as { n: number }).n
      db.exec("INSERT INTO fts (fts, rank) VALUES ('merge', -1000)")
      if ((changes.get() as { n: number }).n - before < 2) break
    }
  } finally {
    db.close()
  }
}

describe('merging while a process writes', () => {
  it('merges after live writes in proportion to them: the large segment is not rewritten, and a tenth more flattens it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-merge-policy-')), 'index.sqlite')
    const build = new SearchIndex({}, createIndexFile(file))
    // 8,000 documents in 800 commits (FTS5 builds its levels as it goes), flattened into one segment above them.
    for (let c = 0; c < 800; c++) build.upsertMany(Array.from({ length: 10 }, (_, i) => doc(c * 10 + i, true)))
    build.setState('complete')
    build.close()
    flatten(file)
    const flat = segments(file)
    expect(flat.size).toBe(1)
    const big = largest(flat)
    const index = new SearchIndex({}, openIndexFile(file))
    try {
      // Live writes, one commit per turn, past the point where the background merge starts, twice; together less
      // than FLATTEN_SHARE of the index.
      const live = 2 * MERGE_AFTER + 100
      expect(live).toBeLessThan(FLATTEN_SHARE * 8000)
      for (let i = 8000; i < 8000 + live; i++) {
        index.upsert(doc(i))
        await turn()
      }
      await index.settle()
      const after = segments(file)
      expect(after.get(big)).toBe(flat.get(big)) // the 8,000 documents' segment was not rewritten
      expect(after.size).toBeGreaterThan(1)
      expect(after.size).toBeLessThanOrEqual(12)
      expect(index.size).toBe(8000 + live)
      expect(index.search('E7 lockfile', { limit: 50 }).map((h) => h.id)).toContain('d8007')
      // Another fifth of the index written: past FLATTEN_SHARE, the next merge rewrites it into one segment.
      for (let i = 8000 + live; i < 8000 + live + 1600; i++) {
        index.upsert(doc(i, true))
        await turn()
      }
      await index.settle()
      const grown = segments(file)
      expect(grown.has(big)).toBe(false)
      expect(grown.size).toBeLessThanOrEqual(12)
      expect(index.size).toBe(8000 + live + 1600)
    } finally {
      index.close()
    }
  }, 120_000)

  it('flattens an index whose other segments hold more than FLATTEN_SHARE of it (a load, a cut-short merge)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-merge-policy-')), 'index.sqlite')
    const build = new SearchIndex({}, createIndexFile(file))
    // Two commits of 1,500 documents: two segments of one level, each half of the index (FTS5 merges at four).
    for (let c = 0; c < 2; c++) build.upsertMany(Array.from({ length: 1500 }, (_, i) => doc(c * 1500 + i)))
    build.setState('complete')
    build.close()
    expect(segments(file).size).toBe(2)
    const owner = new SearchIndex({}, openIndexFile(file))
    try {
      owner.mergeLeftovers()
      await owner.settle()
      expect(segments(file).size).toBe(1)
      expect(owner.size).toBe(3000)
    } finally {
      owner.close()
    }
  }, 120_000)
})
