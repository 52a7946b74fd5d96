/**
 * The page's stats and facets through the store with the persisted index (the cache on, as dsh runs): a write shows
 * in the very next answer, and so does a file changed on disk once the store has read it again.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectStats } from '../../src/knowledge/reports/stats.js'
import { roundDraft, storeFixture } from '../harness/stores.ts'

const fixture = storeFixture('stats-write')

describe('stats after a write', () => {
  it('counts a document written, retired and re-indexed from disk in the next stats', async () => {
    const root = fixture.tmpRoot()
    const store = fixture.open(root)
    await store.write(roundDraft('The key includes a timestamp.'))
    await store.start()
    const first = await collectStats(store)
    expect(first.documents).toBe(1)
    expect(first.byKind).toEqual({ raw: 1 })
    expect(await collectStats(store)).toEqual(first) // the same answer again, from the cache
    const note = await store.write(roundDraft('Pin the version.', { kind: 'note', title: 'Pin it', turn: 2 }))
    const second = await collectStats(store)
    expect(second.documents).toBe(2)
    expect(second.byKind).toEqual({ raw: 1, note: 1 })
    expect(store.facets({ kind: 'note' }).workspaces).toEqual({ '/ws': 1 })
    await store.setStatus(note.id, { to: 'retired', reason: 'wrong' }, 'cli')
    expect((await collectStats(store)).byKind).toEqual({ raw: 1 })
    // A hand-written file, indexed as a fresh start would: its kind and workspace count at once.
    writeFileSync(join(root, 'hand.md'), '---\nid: hand-1\ntitle: By hand\nkind: manual\n---\n\n# By hand\n\ntext\n')
    await fixture.closeAll()
    const again = fixture.open(root)
    await again.start()
    expect((await collectStats(again)).byKind).toEqual({ raw: 1, manual: 1 })
  })
})
