/**
 * Opening a shared index file while another process's checkpoint extends it. A checkpoint copies page 1, which holds
 * the new page count, before the pages that extend the file; until it ends the WAL holds every page past the file's
 * end. A process that opened the file in that window took it for a truncated one and rebuilt the cache, removing the
 * files every other process had open. The window is made here exactly: a writer keeps its pages in the WAL, and page
 * 1's count is written into the file as a checkpoint would. Real files, real SQLite.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { SearchIndex } from '../../src/search/search-index.js'
import { createIndexFile, openIndexFile } from '../../src/search/index-file.js'
import type { KnowledgeDoc } from '../../src/types.js'

function doc(i: number): KnowledgeDoc {
  const created = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()
  return {
    id: `d${i}`,
    path: `s/d${i}.md`,
    meta: { id: `d${i}`, title: `round ${i}`, kind: 'raw', created, cwd: '/p', tools: [], tags: [], session: 's', turn: i },
    body: `the build failed with code E${i} after word${i % 97} changed; lockfile ${i % 13} retry ${'filler '.repeat(40)}`,
    mtimeMs: Date.parse(created),
  }
}

/** A complete index file of `n` documents, closed (checkpointed: no WAL left). */
async function built(n: number): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-checkpoint-')), 'index.sqlite')
  const build = new SearchIndex({}, createIndexFile(file))
  build.upsertMany(Array.from({ length: n }, (_, i) => doc(i)))
  build.setState('complete')
  await build.close()
  return file
}

/** Writes `bytes` into `file` at `at`, in place. */
function patch(file: string, at: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+')
  try {
    writeSync(fd, bytes, 0, bytes.length, at)
  } finally {
    closeSync(fd)
  }
}

const open: Array<{ close(): unknown }> = []
afterEach(async () => {
  for (const c of open.splice(0)) await c.close()
})

describe('an index file a checkpoint is extending', () => {
  it('opens and searches it: the pages past the file are read from the WAL', async () => {
    const file = await built(50)
    // Another process writes and keeps its pages in the WAL (no automatic checkpoint; still open).
    const writer = new DatabaseSync(file)
    open.push(writer)
    writer.exec('PRAGMA wal_autocheckpoint = 0')
    const other = new SearchIndex({}, openIndexFile(file))
    open.push(other)
    other.upsertMany(Array.from({ length: 400 }, (_, i) => doc(1000 + i)))
    const pages = (writer.prepare('PRAGMA page_count').get() as { page_count: number }).page_count
    const pageSize = (writer.prepare('PRAGMA page_size').get() as { page_size: number }).page_size
    expect(statSync(file).size).toBeLessThan(pages * pageSize)
    // Page 1 copied by a checkpoint: the file's header says the new count (valid: version-valid-for = change counter).
    const header = Buffer.alloc(100)
    const fd = openSync(file, 'r')
    readSync(fd, header, 0, 100, 0)
    closeSync(fd)
    const count = Buffer.alloc(4)
    count.writeUInt32BE(pages)
    patch(file, 28, count)
    patch(file, 92, header.subarray(24, 28))

    const reader = new SearchIndex({}, openIndexFile(file))
    open.push(reader)
    expect(reader.search('E1399', { limit: 3 }).map((h) => h.id)).toEqual(['d1399'])
    expect(reader.search('E7', { limit: 3 }).map((h) => h.id)).toEqual(['d7'])
  })

  it('still rejects a truncated file with no WAL, or with junk where the WAL goes', async () => {
    const file = await built(300)
    truncateSync(file, Math.floor(statSync(file).size / 2))
    expect(() => openIndexFile(file)).toThrow(/truncated/)
    writeFileSync(`${file}-wal`, Buffer.alloc(4096, 0x5a))
    expect(() => openIndexFile(file)).toThrow(/truncated/)
    // A link to a real WAL, and a FIFO (opened without waiting for a writer), are not a WAL beside the file either.
    const wal = join(dirname(file), 'elsewhere-wal')
    writeFileSync(wal, Buffer.from([0x37, 0x7f, 0x06, 0x82, ...Buffer.alloc(28)]))
    rmSync(`${file}-wal`)
    symlinkSync(wal, `${file}-wal`)
    expect(() => openIndexFile(file)).toThrow(/truncated/)
    rmSync(`${file}-wal`)
    execFileSync('mkfifo', [`${file}-wal`])
    expect(() => openIndexFile(file)).toThrow(/truncated/)
  })
})
