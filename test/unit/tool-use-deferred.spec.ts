/**
 * A reused index file counts the documents using each tool only when a tool glob first needs the counts, not when
 * it opens (a scan of every document's tools: ~20–40 ms at 100k, ten times that at a million, paid by every start and
 * every CLI command). The counts must still be exact whatever happens in between: this connection's own writes,
 * another connection's commits caught up before the counts are read, and commits that the counts already hold when
 * the log is caught up afterwards (counted once, not twice). Real files, real SQLite, two connections.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SearchIndex } from '../../src/search/search-index.js'
import { createIndexFile, openIndexFile } from '../../src/search/index-file.js'
import type { KnowledgeDoc } from '../../src/types.js'

function doc(id: string, tools: string[]): KnowledgeDoc {
  const created = '2026-01-01T00:00:00.000Z'
  return {
    id,
    path: `s/${id}.md`,
    meta: { id, title: `round ${id}`, kind: 'raw', created, cwd: '/p', tools, tags: [], session: 's', turn: 1 },
    body: `the build failed in step ${id}`,
    mtimeMs: Date.parse(created),
  }
}

const open: SearchIndex[] = []
afterEach(async () => {
  for (const index of open.splice(0)) await index.close()
})

async function file(docs: KnowledgeDoc[]): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'dsh-ks-tool-use-')), 'index.sqlite')
  const build = new SearchIndex({}, createIndexFile(path))
  build.upsertMany(docs)
  build.setState('complete')
  await build.close()
  return path
}
const reopen = (path: string) => {
  const index = new SearchIndex({}, openIndexFile(path))
  open.push(index)
  return index
}
const found = (index: SearchIndex, tool: string) =>
  index
    .search('build failed', { tool })
    .map((h) => h.id)
    .sort()
const loaded = (index: SearchIndex) => (index.vocabulary as unknown as { uses?: Map<string, number> }).uses !== undefined

describe('tool counts of a reused index, read when first needed', () => {
  it('are not read at open; a glob reads them and matches what the documents use', async () => {
    const path = await file([doc('a', ['read_file']), doc('b', ['read_file', 'grep']), doc('c', ['bash'])])
    const index = reopen(path)
    expect(loaded(index)).toBe(false)
    expect(found(index, 'read*')).toEqual(['a', 'b'])
    expect(loaded(index)).toBe(true)
    expect(index.vocabulary.toolUse.get('read_file')).toBe(2)
  })

  it("follow this connection's writes made before and after they are read", async () => {
    const path = await file([doc('a', ['read_file']), doc('b', ['read_file'])])
    const index = reopen(path)
    index.remove('a')
    index.upsert(doc('n', ['web_fetch']))
    expect(found(index, 'read*')).toEqual(['b'])
    expect(found(index, 'web*')).toEqual(['n'])
    index.remove('b')
    expect(found(index, 'read*')).toEqual([])
    expect(index.vocabulary.toolUse.has('read_file')).toBe(false)
    index.upsert(doc('m', ['read_file']))
    expect(found(index, 'read*')).toEqual(['m'])
  })

  it("count another connection's commits once: caught up before they are read, or already in them", async () => {
    const path = await file([doc('a', ['read_file']), doc('b', ['read_file']), doc('c', ['read_file'])])
    const reader = reopen(path)
    // Writes commit when flushed (or by the write cycle's own clock): flushed here, where the test needs them.
    const writer = reopen(path)
    // Caught up before the counts are read: the removal is in what they read.
    writer.remove('a')
    writer.flush()
    reader.follow()
    expect(found(reader, 'read*')).toEqual(['b', 'c'])
    // Already in the counts when the log is caught up afterwards: not taken off twice.
    const late = reopen(path)
    writer.remove('b')
    writer.flush()
    expect(late.vocabulary.toolUse.get('read_file')).toBe(1)
    late.follow()
    expect(late.vocabulary.toolUse.get('read_file')).toBe(1)
    expect(found(late, 'read*')).toEqual(['c'])
    // And a commit after the counts were read is counted.
    writer.upsert(doc('d', ['read_file']))
    writer.flush()
    late.follow()
    expect(late.vocabulary.toolUse.get('read_file')).toBe(2)
    expect(found(late, 'read*')).toEqual(['c', 'd'])
  })
})
