/**
 * The write path's order (issue 14): a document is searchable before its file is fsync'd, a read after a hit waits
 * for the file, a failed write leaves the index as the disk is; and a long-lived store's WAL checkpoints run in a
 * worker thread, not inside a COMMIT on the main thread. Real files, real SQLite, a real worker.
 */
import { describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import type { StoreIndex } from '../../src/knowledge/view/store-index.js'
import { CHECKPOINT_BACKSTOP_PAGES } from '../../src/search/checkpointer.js'
import { createIndexFile } from '../../src/search/index-file.js'
import { SearchIndex } from '../../src/search/search-index.js'
import type { KnowledgeDoc } from '../../src/types.js'
import { roundDraft, storeFixture } from '../harness/stores.ts'

const { open: openStore, tmpRoot } = storeFixture('commit')

/** A store whose log lines (formatted) go to `lines`. */
function open(root: string, watch = false, lines: string[] = []) {
  const keep = (format: string, ...args: unknown[]) => {
    let i = 0
    lines.push(format.replace(/%[sd]/g, () => String(args[i++])))
  }
  return openStore(root, watch, { logger: { info: keep, warn: keep, debug: keep } })
}

describe('searchable first, durable next', () => {
  it('finds a new round before its file exists, and a read of that hit waits for the file', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.start()
    const writing = store.write(roundDraft('The culprit was zqxlatch in the retry path.'))
    // Polled every turn of the event loop until the write is over, not for a number of turns: a busy machine slows
    // the steps before the index takes the round, never their order.
    let over = false
    const end = () => {
      over = true
    }
    writing.then(end, end)
    let hit
    let fileThere = true
    while (!hit && !over) {
      hit = store.search('zqxlatch')[0]
      if (hit) fileThere = existsSync(join(root, hit.path))
      else await turn()
    }
    expect(hit?.id).toBe('11112222-t1')
    // The index had it while the file was still being written (the fsync'd write is several disk round trips).
    expect(fileThere).toBe(false)
    const doc = await store.read(hit!.id)
    expect(doc?.body).toContain('zqxlatch')
    expect(existsSync(join(root, hit!.path))).toBe(true)
    const written = await writing
    expect(written.version).toBe(1)
    expect(store.search('zqxlatch')[0].version).toBe(1)
  })

  it('a write that fails leaves nothing searchable and reports the error', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.start()
    const d = roundDraft('The culprit was zqxbroken in the retry path.')
    const { id, path } = await store.prepare(d, { dryRun: true })
    // A directory where the file goes: the rename onto it fails after the index took the document.
    mkdirSync(join(root, path, 'in-the-way'), { recursive: true })
    await expect(store.write(d)).rejects.toThrow(/cannot write/)
    expect(store.get(id)).toBeUndefined()
    expect(store.search('zqxbroken')).toEqual([])
    expect(await store.read(id)).toBeUndefined()
    // The next write of the same round, once the way is clear, lands normally.
    const other = await store.write(roundDraft('The culprit was zqxfixed.', { turn: 2 }))
    expect(store.search('zqxfixed')[0].id).toBe(other.id)
  })

  it("the undo of a failed rewrite puts the previous file's text back in the index", async () => {
    const root = tmpRoot()
    const store = open(root)
    const first = await store.write(roundDraft('The culprit was zqxoldtext.'))
    const indexed = (store as unknown as { indexed: StoreIndex }).indexed
    const next = { id: first.id, path: first.path, meta: first.meta, body: 'Now zqxnewtext.', mtimeMs: Date.now() } as KnowledgeDoc
    const undo = indexed.admitWritten(next)
    expect(store.search('zqxnewtext')[0]?.id).toBe(first.id)
    undo()
    expect(store.search('zqxnewtext')).toEqual([])
    expect(store.search('zqxoldtext')[0]?.id).toBe(first.id)
    expect(readFileSync(join(root, first.path), 'utf8')).toContain('zqxoldtext')
  })
})

describe('a process killed between the index and the file', () => {
  it('leaves cache entries the next start corrects from the files (a rewrite without a stamp, a new id without a file)', async () => {
    const root = tmpRoot()
    const first = open(root)
    const kept = await first.write(roundDraft('The culprit was zqxondisk.'))
    const indexed = (first as unknown as { indexed: StoreIndex }).indexed
    // What a kill right after admitWritten leaves: the cache holds texts that never reached a file.
    indexed.admitWritten({ id: kept.id, path: kept.path, meta: kept.meta, body: 'Now zqxneverwritten.', mtimeMs: Date.now() } as KnowledgeDoc)
    indexed.admitWritten({
      id: '11112222-t9',
      path: 'session-11112222-0000-4000-8000-000000000000/11112222-t9-ghost.md',
      meta: { ...kept.meta, id: '11112222-t9', turn: 9 },
      body: 'zqxghost',
      mtimeMs: Date.now(),
    } as KnowledgeDoc)
    expect(first.search('zqxghost')).toHaveLength(1)
    await first.close()
    const lines: string[] = []
    const next = open(root, false, lines)
    await next.start()
    // The cache was reused, not rebuilt: the rewrite's file was read again, the ghost's entry dropped.
    expect(lines.find((l) => l.startsWith('indexed'))).toMatch(/index reused: kept 0, read 1, restamped 0, dropped 1/)
    expect(next.search('zqxneverwritten')).toEqual([])
    expect(next.search('zqxghost')).toEqual([])
    expect(next.get('11112222-t9')).toBeUndefined()
    expect(next.search('zqxondisk')[0]?.id).toBe(kept.id)
  })
})

describe('WAL checkpoints off the main thread', () => {
  it('a long-lived store moves the automatic checkpoint up to a backstop for bursts; the worker copies the WAL into the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-wal-'))
    const file = join(dir, 'index.sqlite')
    const index = new SearchIndex({}, createIndexFile(file))
    try {
      const worker = index.checkpointInBackground({ walBytes: 64 * 1024, everyMs: 20 })!
      expect(worker).toBeDefined()
      const db = (index as unknown as { db: import('node:sqlite').DatabaseSync }).db
      expect((db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(CHECKPOINT_BACKSTOP_PAGES)
      const before = statSync(file).size
      const checkpointed = new Promise<void>((resolve) => worker.onCheckpoint(resolve))
      for (let i = 0; i < 300; i++) {
        index.upsert({ id: `doc-${i}`, path: `notes/doc-${i}.md`, meta: { id: `doc-${i}`, title: `Doc ${i}`, kind: 'manual', cwd: '' }, body: `word${i} `.repeat(200), mtimeMs: i } as KnowledgeDoc)
        index.flush()
      }
      // The main connection checkpoints only past the backstop (16 MB, not reached here): the worker grew the main file.
      await checkpointed
      expect(statSync(file).size).toBeGreaterThan(before)
      expect(index.search('word299')[0]?.id).toBe('doc-299')
    } finally {
      index.close()
    }
  })

  it('a worker that dies hands checkpoints back to SQLite at its default (1000 pages)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-wal-'))
    const index = new SearchIndex({}, createIndexFile(join(dir, 'index.sqlite')))
    try {
      const worker = index.checkpointInBackground()!
      const db = (index as unknown as { db: import('node:sqlite').DatabaseSync }).db
      const setting = () => (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint
      expect(setting()).toBe(CHECKPOINT_BACKSTOP_PAGES)
      await (worker as unknown as { worker: import('node:worker_threads').Worker }).worker.terminate()
      await new Promise((r) => setTimeout(r, 50))
      expect(setting()).toBe(1000)
    } finally {
      index.close()
    }
  })

  it('the store starts the worker only when it owns a persisted index and lives long (it watches)', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, 'a.md'), '# A\n\nSome text.\n')
    const watching = open(root, true)
    await watching.start()
    await new Promise((r) => setTimeout(r, 300))
    const index = (watching as unknown as { indexed: StoreIndex }).indexed.index
    const db = (index as unknown as { db: import('node:sqlite').DatabaseSync }).db
    expect((db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(CHECKPOINT_BACKSTOP_PAGES)
    await watching.close()
    const once = open(root)
    await once.start()
    const db2 = (once as unknown as { indexed: StoreIndex }).indexed.index as unknown as { db: import('node:sqlite').DatabaseSync }
    expect((db2.db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(1000)
  })
})
