/**
 * Created and updated are two dates (issue 28, item 8): a sync or an edit moves a file's mtime, never its front
 * matter's `created`; the list sorts by the one the person chose, and hits and rows carry both.
 * @module dsh-knowledge-sync/test/unit/created-updated
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { changedLater } from '../../client/DocumentList.js'
import { SearchIndex } from '../../src/search/search-index.js'
import type { KnowledgeDoc } from '../../src/types.js'

const doc = (id: string, created: string, mtime: string): KnowledgeDoc => ({
  id,
  path: `notes/${id}.md`,
  meta: { id, title: `${id} runbook`, kind: 'manual', created, cwd: '/w', tools: [], tags: [] },
  body: 'deploy steps',
  mtimeMs: Date.parse(mtime),
})

describe('created and updated', () => {
  let index: SearchIndex
  beforeEach(() => {
    index = new SearchIndex()
    index.upsert(doc('old-synced', '2026-01-01T00:00:00Z', '2026-12-01T12:00:00Z')) // written long ago, synced today
    index.upsert(doc('new', '2026-11-30T00:00:00Z', '2026-11-30T00:00:00Z'))
  })
  afterEach(() => index.close())

  it('sorts by created (the default) or by updated, as asked', () => {
    expect(index.list({}).items.map((m) => m.id)).toEqual(['new', 'old-synced'])
    expect(index.list({ sort: 'updated' }).items.map((m) => m.id)).toEqual(['old-synced', 'new'])
  })

  it('hits carry both dates, and a row shows "updated" only when the file changed after it was created', () => {
    const [hit] = index.search('deploy old')
    expect(hit).toMatchObject({ id: 'old-synced', created: '2026-01-01T00:00:00Z', updated: '2026-12-01T12:00:00.000Z' })
    expect(changedLater(hit as { created: string; updated?: string })).toBe(true)
    expect(changedLater({ created: '2026-11-30T00:00:00Z', updated: '2026-11-30T00:00:30Z' })).toBe(false)
  })
})
