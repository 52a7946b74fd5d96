/**
 * Which file holds which document id is asked of the index itself when it has the `doc_path` index (a point query):
 * the store then keeps no table of every file in memory (~200 bytes a document, 200 MB at a million). A file that
 * lacks the index gets it when opened for writing; one opened read-only without it falls back to the loaded table.
 * Real files, real SQLite.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { PathTable } from '../../src/knowledge/index-cache/path-table.js'
import { openIndexFile } from '../../src/search/index-file.js'
import { SearchIndex } from '../../src/search/search-index.js'
import type { FrontMatter } from '../../src/types.js'
import { roundDraft, storeFixture } from '../harness/stores.js'

const { open, closeAll, tmpRoot } = storeFixture('path-queries')

interface Table {
  idAt(path: string): string | undefined
  pathOf(id: string): string | undefined
  paths(): string[]
  byPath: Map<string, string>
  idPaths: Map<string, string>
}
const tableOf = (store: KnowledgeStore): Table => (store as unknown as { indexed: { files: { table: Table } } }).indexed.files.table

function rootWith(count: number): string {
  const root = tmpRoot()
  mkdirSync(join(root, 'notes'), { recursive: true })
  for (let k = 0; k < count; k++) {
    const meta = { id: `note-${k}`, title: `Note ${k}`, kind: 'manual', cwd: '/ws', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter
    writeFileSync(join(root, 'notes', `note-${k}-doc.md`), formatDocument(meta, `About the deploy step number ${k}.`))
  }
  return root
}

const hasPathIndex = (root: string): boolean => {
  const db = new DatabaseSync(join(root, CACHE_DIR, CACHE_FILE), { readOnly: true })
  try {
    return db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'doc_path'").get() !== undefined
  } finally {
    db.close()
  }
}

describe('which file holds which id', () => {
  it('is asked of the index: after the warm-up the store holds no table of files, and the answers are right', async () => {
    const root = rootWith(40)
    const store = open(root)
    await store.start()
    await (store as unknown as { indexed: { warmed: Promise<void> } }).indexed.warmed
    const table = tableOf(store)
    expect(table.idAt('notes/note-7-doc.md')).toBe('note-7')
    expect(table.pathOf('note-31')).toBe('notes/note-31-doc.md')
    expect(table.idAt('notes/none.md')).toBeUndefined()
    expect(table.paths().sort()).toHaveLength(40)
    rmSync(join(root, 'notes', 'note-7-doc.md'))
    expect(await store.read('note-7')).toBeUndefined() // a file that is gone leaves the index at once
    const written = await store.write(roundDraft('Retry the deploy step.'))
    expect([table.idAt(written.path), table.pathOf(written.id)]).toEqual([written.id, written.path])
    expect(table.idAt('notes/note-7-doc.md')).toBeUndefined()
    expect(table.pathOf('note-7')).toBeUndefined()
    expect(await store.read('note-8')).toBeDefined()
    expect([table.byPath.size, table.idPaths.size]).toEqual([0, 0])
  })

  it('hears, through its watcher and no read of its own, of a round another process wrote and indexed', async () => {
    // The other process's indexing leaves this one nothing to index: the watcher's question "which id is in this file"
    // is what takes in the other's commit and announces the document (the page shows it from that event).
    const root = rootWith(3)
    const watching = open(root, true)
    await watching.start()
    const heard = new Promise<string>((resolve) => watching.onChange((change) => change.type === 'written' && resolve(change.id)))
    const other = open(root)
    await other.start()
    const written = await other.write(roundDraft('Retry the deploy step.'))
    await other.flush()
    expect(await heard).toBe(written.id)
  })

  it('a cache file without the index gets it when a store opens it for writing; a connection that cannot write it has none, and the table is loaded instead', async () => {
    const root = rootWith(12)
    await open(root).start()
    await closeAll()
    const db = new DatabaseSync(join(root, CACHE_DIR, CACHE_FILE))
    db.exec('DROP INDEX doc_path')
    db.close()
    expect(hasPathIndex(root)).toBe(false)

    // A connection that cannot write (a read-only checkout) cannot add it: the store loads the table then.
    const reader = new SearchIndex({}, openIndexFile(join(root, CACHE_DIR, CACHE_FILE), { readOnly: true }))
    expect(reader.byPath).toBe(false)
    await reader.close()
    const table = new PathTable(() => [['note-3', 'notes/note-3-doc.md', null] as const])
    expect(table.idAt('notes/note-3-doc.md')).toBe('note-3')
    expect((table as unknown as Table).byPath.size).toBe(1)
    expect(hasPathIndex(root)).toBe(false)

    const writer = open(root)
    await writer.start()
    expect(hasPathIndex(root)).toBe(true)
    const asked = tableOf(writer)
    expect(asked.idAt('notes/note-3-doc.md')).toBe('note-3')
    expect(asked.byPath.size).toBe(0)
  })
})
