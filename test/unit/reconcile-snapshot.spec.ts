/**
 * The start-up reconcile reads the persisted index's manifest through a statement that stays open while it walks the
 * rows. In WAL mode a connection whose read began before another process's commit cannot begin a write until that read
 * is over: `BEGIN IMMEDIATE` fails at once with SQLITE_BUSY_SNAPSHOT (517), without waiting in the busy handler. So the
 * rows of vanished files are dropped (a write) only once the manifest is read. Real SQLite files, two connections: the
 * second stands for another process committing while the first one reconciles.
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { reconcileManifest } from '../../src/knowledge/index-cache/walk.js'
import type { ManifestRow, ManifestTuple } from '../../src/search/search-index.js'

describe('the reconcile beside a process that commits', () => {
  it('drops the rows of vanished files after reading the manifest, so its writes never meet a stale snapshot', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-snapshot-')), 'index.sqlite')
    const mine = new DatabaseSync(file)
    mine.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; CREATE TABLE doc (id TEXT, path TEXT)')
    mine.exec("INSERT INTO doc VALUES ('a', 'a.md'), ('b', 'b.md'), ('c', 'c.md')")
    const theirs = new DatabaseSync(file)
    theirs.exec('PRAGMA busy_timeout = 10000')
    let committed = false
    const rows = mine.prepare('SELECT rowid, path FROM doc')
    rows.setReturnArrays(true)
    // The other process commits while the first rows are being read.
    function* manifest(): Iterable<ManifestTuple> {
      for (const row of rows.iterate()) {
        if (!committed) {
          theirs.exec("INSERT INTO doc VALUES ('d', 'd.md')")
          committed = true
        }
        yield row as unknown as ManifestTuple
      }
    }
    const dropped: string[] = []
    const out = reconcileManifest('/nowhere', { rows: manifest(), row: (rowid) => ({ id: String(rowid), path: `${rowid}.md` }) as unknown as ManifestRow }, [], new Float64Array(0), {
      kept: () => {},
      dropped: (row) => {
        // What the store does for a vanished file: takes its row out, in a write transaction.
        mine.exec('BEGIN IMMEDIATE')
        mine.prepare('DELETE FROM doc WHERE rowid = ?').run(Number(row.id))
        mine.exec('COMMIT')
        dropped.push(row.id)
      },
    })
    expect(committed).toBe(true)
    expect(out.size).toBe(0)
    expect(dropped).toEqual(['1', '2', '3'])
    expect(theirs.prepare('SELECT id FROM doc ORDER BY id').all()).toEqual([{ id: 'd' }])
    mine.close()
    theirs.close()
  })
})
