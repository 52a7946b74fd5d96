/**
 * After a bulk load FTS5 holds several segments, and every query reads each of them. The owner that loaded them
 * merges in the background, but a process that exits first (a CLI search that built the index, a short headless run,
 * a kill) leaves them, and no later process that does not write merged them: queries stayed about twice as slow for
 * as long as the file lived (a sampled health probe at 10k: 6.3 s unmerged, 3.0 s merged). A long-lived owner now
 * finishes the merge. Real files, real SQLite; segments counted from FTS5's own index table.
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { writeRounds } from '../../bench/generate-rounds.mjs'

const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })

function segments(root: string): number {
  const db = new DatabaseSync(join(root, '.knowledge', 'cache', 'index-v4.sqlite'), { readOnly: true })
  try {
    return (db.prepare('SELECT count(DISTINCT segid) AS n FROM fts_idx').get() as { n: number }).n
  } finally {
    db.close()
  }
}

describe('an index a process left unmerged', () => {
  it('is merged by the next long-lived owner, in the background', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-merge-')), 'kb')
    writeRounds(root, 3000)
    // The CLI's way: build the index, answer, exit (closing cuts the background merge short).
    const cli = new KnowledgeStore({ root, redactor, watch: false })
    await cli.start()
    await cli.close()
    const left = segments(root)
    expect(left).toBeGreaterThan(1)
    const owner = new KnowledgeStore({ root, redactor })
    await owner.start()
    try {
      await expect.poll(() => segments(root), { timeout: 60_000, interval: 50 }).toBe(1)
      expect(owner.size).toBe(3000)
    } finally {
      await owner.close()
    }
  }, 180_000)
})
