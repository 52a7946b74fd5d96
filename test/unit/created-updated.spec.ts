/**
 * Created and updated are two dates (issue 28, item 8): a sync or an edit moves a file's mtime, never its front
 * matter's `created`; the list sorts by the one the person chose, and hits and rows carry both.
 * @module dsh-knowledge-sync/test/unit/created-updated
 */
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
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

describe('created of a file without `created` (hand-written or synced)', () => {
  const stores: KnowledgeStore[] = []
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close()
  })
  const open = (root: string) => {
    const s = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false })
    stores.push(s)
    return s
  }

  it('is the file date when the store first saw it: a sync (a splice) or a later edit never moves it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-created-'))
    const file = join(root, 'runbook.md')
    const text = '---\nid: runbook\ntitle: Runbook\nkind: manual\n---\n# Runbook\n\n## Deploy\n\nrun make deploy\n'
    writeFileSync(file, text)
    const written = new Date('2026-01-01T09:00:00Z')
    utimesSync(file, written, written)
    const s = open(root)
    await s.start()
    expect(s.get('runbook')?.created).toBe(written.toISOString())
    // The sync path: a splice of the section, through the store.
    const at = text.indexOf('run make deploy')
    await s.splice('runbook.md', text, [{ start: at, end: at + 'run make deploy'.length, text: 'run make deploy-all' }])
    expect(s.get('runbook')?.created).toBe(written.toISOString())
    expect((await s.read('runbook'))?.meta.created).toBe(written.toISOString())
    const note = await s.write({ kind: 'note', title: 'Newer note', cwd: '', session: 'session-aaaa1111-0000-4000-8000-000000000000', suffix: 'n1', sections: [{ heading: 'Finding', text: 'x' }] })
    expect(s.list({}).items.map((m) => m.id)).toEqual([note.id, 'runbook'])
    await s.close()
    // A hand edit later, seen by another process: the created date still holds (the revision log's first line).
    writeFileSync(file, readFileSync(file, 'utf8').replace('deploy-all', 'deploy-everything'))
    const t = open(root)
    await t.start()
    expect(t.get('runbook')?.created).toBe(written.toISOString())
    expect(t.get('runbook')!.mtimeMs).toBeGreaterThan(written.getTime())
  })
})
