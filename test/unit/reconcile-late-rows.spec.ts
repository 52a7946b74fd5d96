/**
 * A process starting over a shared index lists the root's files, then reads the index's manifest. Another process
 * that writes a round in between puts a file the listing never saw and its entry in the manifest. Dropping that entry
 * as "file vanished" took a live round out of every process's search until the next start (issue 30). The
 * reconcile is told when its listing began: an entry indexed since then is dropped only if its file is not there now.
 * Real files in a real folder; the manifest rows are what the index returns.
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { reconcileManifest } from '../../src/knowledge/index-cache/walk.js'
import { statFiles } from '../../src/knowledge/disk/list-files.js'
import type { ManifestRow, ManifestTuple } from '../../src/search/search-index.js'

const DAY = 24 * 60 * 60 * 1000

function reconcile(root: string, listed: string[], rows: ManifestTuple[], listedAt?: number) {
  const files = listed.map((name) => join(root, name))
  const dropped: string[] = []
  let kept = 0
  const out = reconcileManifest(
    root,
    { rows, row: (rowid) => ({ id: `r${rowid}`, path: rows.find((r) => r[0] === rowid)![1] }) as unknown as ManifestRow },
    files,
    statFiles(files),
    { kept: () => void kept++, dropped: (row) => void dropped.push(row.path) },
    listedAt,
  )
  return { dropped, kept, read: [...out.keys()].map((full) => full.slice(root.length + 1)) }
}

describe('the reconcile beside a process that writes while it lists', () => {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ks-late-'))
  writeFileSync(join(root, 'old.md'), '# old\n')
  const listedAt = Date.now()
  // Written by the other process after the listing: the file, then its entry.
  writeFileSync(join(root, 'late.md'), '# late\n')
  writeFileSync(join(root, 'target.md'), '# target\n')
  symlinkSync(join(root, 'target.md'), join(root, 'link.md'))
  const now = Date.now()
  const rows: ManifestTuple[] = [
    [1, 'old.md', null, 0, null, 1, listedAt - DAY],
    [2, 'gone.md', 7, 0, 0, 1, listedAt - DAY],
    [3, 'late.md', 7, now, now, 1, now],
    [4, 'gone-late.md', 7, now, now, 1, now],
    [5, 'old.md', 7, now, now, 1, now],
    [6, 'link.md', 7, now, now, 1, now],
    // Indexed by its writer, its file not written yet (no stamp until it lands): dropped here, as no file is there;
    // the store keeps its own writes in flight (view/files.ts), and another process's is put back by its writer.
    [7, 'landing.md', null, now, null, 1, null],
  ]

  it('keeps the entry of a round written after the listing began, and drops the rest as before', () => {
    const { dropped, kept, read } = reconcile(root, ['old.md'], rows, listedAt)
    expect(dropped.sort()).toEqual(['gone-late.md', 'gone.md', 'landing.md', 'link.md', 'old.md'])
    // old.md's first entry is read again (its size and times differ); late.md's entry is its writer's, kept.
    expect(read).toEqual(['old.md'])
    expect(kept).toBe(1)
  })

  it('without the time of the listing (the previous reconcile) drops the live round', () => {
    const { dropped } = reconcile(root, ['old.md'], rows)
    expect(dropped).toContain('late.md')
  })
})
