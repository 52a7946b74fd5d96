/**
 * A start over a large persisted index lists the root and compares it with the index's manifest in a worker thread,
 * so that a path per file never reaches the main thread's heap (issue 30: a second process at 100k documents kept
 * ~60 MB more RSS after a full collection when this ran on the main thread). The worker must decide exactly what the
 * main thread decides. Real files (unchanged, changed, vanished, new, a link, a second entry for one path) and a real
 * SQLite file that another connection holds open in WAL mode, as the owning process does.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { OFF_THREAD_MIN_BYTES, type OffThread, ReconcileCancelled, reconcileOffThread, reconcileRoot } from '../../src/knowledge/index-cache/reconcile-worker.js'
import type { Manifest } from '../../src/knowledge/index-cache/walk.js'
import type { ManifestRow } from '../../src/search/search-index.js'
import { MANIFEST_COLUMNS } from '../../src/search/schema.js'
import { manifestDigestSql, RACY_MS, registerStampDigest } from '../../src/search/stamp-digest.js'

const DAY = 24 * 60 * 60 * 1000
const quiet = { info() {}, warn() {}, debug() {} }

function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ks-reconcile-worker-'))
  mkdirSync(join(root, 'a'))
  for (const name of ['same.md', 'a/same.md', 'changed.md', 'new.md', 'target.md']) writeFileSync(join(root, name), `# ${name}\n`)
  symlinkSync(join(root, 'target.md'), join(root, 'link.md'))
  const file = join(root, 'index.sqlite')
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE doc (id TEXT, path TEXT, session TEXT, size INTEGER, mtime REAL, ctime REAL, hash TEXT, seen REAL)')
  const insert = db.prepare('INSERT INTO doc (id, path, size, mtime, ctime, hash, seen) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const as = (id: string, name: string) => {
    const info = statSync(join(root, name))
    insert.run(id, name, info.size, info.mtimeMs, info.ctimeMs, 'h', info.mtimeMs + DAY)
  }
  as('same', 'same.md')
  as('a-same', 'a/same.md')
  as('target', 'target.md')
  insert.run('changed', 'changed.md', 1, 0, 0, 'h', DAY)
  insert.run('gone', 'gone.md', 1, 0, 0, 'h', DAY)
  insert.run('twice', 'same.md', 1, 0, 0, 'h', DAY)
  const manifest = (offThread: boolean): Manifest => {
    const rows = db.prepare(`SELECT ${MANIFEST_COLUMNS} FROM doc`)
    rows.setReturnArrays(true)
    return {
      rows: rows.iterate() as Iterable<never>,
      row: (rowid) => db.prepare('SELECT id, path, session, size, mtime, ctime, hash, seen FROM doc WHERE rowid = ?').get(rowid) as unknown as ManifestRow,
      // The fixture's file is small: the worker is asked for whatever the size.
      offThread: offThread ? reconcileOffThread(root, file, 0)?.result : undefined,
    }
  }
  return { root, db, file, manifest }
}

async function reconcile(root: string, manifest: Manifest) {
  const invalid = new Map<string, string>()
  const dropped: string[] = []
  let kept = 0
  const out = await reconcileRoot(root, manifest, invalid, { kept: () => void kept++, dropped: (row) => void dropped.push(row.id) }, quiet)
  const read = [...out.prior].map(([full, row]) => [full.slice(root.length + 1), row?.id ?? null]).sort()
  // The sizes and times of the files to read (the main thread's listing holds every file).
  const times = out.files.flatMap((full, i) => (out.prior.has(full) ? [[full.slice(root.length + 1), out.times[3 * i], out.times[3 * i + 1]]] : [])).sort()
  return { offThread: out.offThread, kept, dropped: dropped.sort(), read, times, invalid: [...invalid.keys()] }
}

describe('the start-up reconcile in a worker thread', () => {
  it('is asked for only from an index file of OFF_THREAD_MIN_BYTES', () => {
    const { root, db, file } = fixture()
    expect(reconcileOffThread(root, file)).toBeUndefined()
    expect(OFF_THREAD_MIN_BYTES).toBeGreaterThan(16 * 1024 * 1024)
    db.close()
  })

  it('drops a row written after the listing whose path now runs through a file (lstat throws ENOTDIR there), on either thread', async () => {
    const { root, db, manifest } = fixture()
    db.prepare('INSERT INTO doc (id, path, size, mtime, ctime, hash, seen) VALUES (?, ?, ?, ?, ?, ?, ?)').run('through', 'same.md/inner.md', 1, Date.now(), Date.now(), 'h', Date.now() + DAY)
    const here = await reconcile(root, manifest(false))
    const off = await reconcile(root, manifest(true))
    expect([...here.dropped].sort()).toEqual(['gone', 'through', 'twice'])
    expect({ ...off, offThread: false }).toEqual(here)
    db.close()
  })

  it('is never started on an index file that is a link (the store does not open one either)', () => {
    const { root, db, file } = fixture()
    const link = join(root, 'linked.sqlite')
    symlinkSync(file, link)
    expect(reconcileOffThread(root, link, 0)).toBeUndefined()
    const started = reconcileOffThread(root, file, 0)
    expect(started).toBeDefined()
    started?.cancel()
    db.close()
  })

  it('runs in the worker when the manifest names its file, and decides what the main thread decides', async () => {
    const { root, db, manifest } = fixture()
    const off = await reconcile(root, manifest(true))
    const here = await reconcile(root, manifest(false))
    expect(off.offThread).toBe(true)
    expect(here.offThread).toBe(false)
    expect(off.kept).toBe(3)
    expect(off.dropped).toEqual(['gone', 'twice'])
    expect(off.read).toEqual([
      ['changed.md', 'changed'],
      ['new.md', null],
    ])
    expect(off.times).toEqual(['changed.md', 'new.md'].map((name) => [name, statSync(join(root, name)).size, statSync(join(root, name)).mtimeMs]))
    expect(off.invalid).toEqual(['link.md'])
    expect({ ...off, offThread: false }).toEqual(here)
    db.close()
  })

  it('reads the whole rows afterwards: an entry removed since the worker read the manifest is not dropped again, its changed file is new', async () => {
    const { root, db, manifest } = fixture()
    const m = manifest(true)
    const row = m.row
    // Another process takes both entries out after the worker's snapshot and before the main thread reads them.
    m.row = (rowid) => {
      db.exec("DELETE FROM doc WHERE id IN ('gone', 'changed')")
      return row(rowid)
    }
    const off = await reconcile(root, m)
    expect(off.offThread).toBe(true)
    expect(off.dropped).toEqual(['twice'])
    expect(off.read).toEqual([
      ['changed.md', null],
      ['new.md', null],
    ])
    db.close()
  })

  it('ends a worker whose result is not wanted (the file was rebuilt): its result rejects once the thread is gone', async () => {
    const { root, db, file } = fixture()
    const started = reconcileOffThread(root, file, 0)
    started?.cancel()
    await expect(started?.result).rejects.toBeInstanceOf(ReconcileCancelled)
    db.close()
  })

  it('a scan waiting for a worker its store ended reconciles nothing, not on the main thread either', async () => {
    const { root, db, manifest } = fixture()
    const started = reconcileOffThread(root, join(root, 'index.sqlite'), 0)
    started?.cancel()
    let kept = 0
    const sink = { kept: () => void kept++, dropped: () => {} }
    await expect(reconcileRoot(root, { ...manifest(false), offThread: started?.result }, new Map(), sink, quiet)).rejects.toBeInstanceOf(ReconcileCancelled)
    expect(kept).toBe(0)
    db.close()
  })

  it('shares its stats with a caller that waits (5,000 files): the same decision, and no port left open after', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-reconcile-share-'))
    const file = join(root, 'index.sqlite')
    const db = new DatabaseSync(file)
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE doc (id TEXT, path TEXT, session TEXT, size INTEGER, mtime REAL, ctime REAL, hash TEXT, seen REAL)')
    const insert = db.prepare('INSERT INTO doc (id, path, size, mtime, ctime, hash, seen) VALUES (?, ?, ?, ?, ?, ?, ?)')
    for (let i = 0; i < 5000; i++) {
      const dir = join(root, `f${i % 4}`)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, `d${i}.md`), `# ${i}\n`)
      const info = statSync(join(dir, `d${i}.md`))
      // Every 100th row is stale (its file changed since), every 250th file is new.
      if (i % 250 !== 3) insert.run(`d${i}`, `f${i % 4}/d${i}.md`, info.size + (i % 100 === 5 ? 1 : 0), info.mtimeMs, info.ctimeMs, 'h', info.mtimeMs + DAY)
    }
    const manifest = (offThread?: OffThread): Manifest => {
      const rows = db.prepare(`SELECT ${MANIFEST_COLUMNS} FROM doc`)
      rows.setReturnArrays(true)
      return {
        rows: rows.iterate() as Iterable<never>,
        row: (rowid) => db.prepare('SELECT id, path, session, size, mtime, ctime, hash, seen FROM doc WHERE rowid = ?').get(rowid) as unknown as ManifestRow,
        offThread: offThread?.result,
        helpOffThread: offThread?.help,
      }
    }
    const ports = () => process.getActiveResourcesInfo().filter((name) => name === 'MessagePort').length
    const before = ports()
    const decide = async (m: Manifest) => {
      let kept = 0
      const out = await reconcileRoot(root, m, new Map(), { kept: () => void kept++, dropped: () => {} }, quiet, true)
      return { offThread: out.offThread, kept, read: [...out.prior].map(([full, row]) => `${full.slice(root.length + 1)}<-${row?.id ?? 'new'}`).sort() }
    }
    const shared = await decide(manifest(reconcileOffThread(root, file, 0)))
    const here = await decide(manifest())
    expect(shared.offThread).toBe(true)
    expect({ ...shared, offThread: false }).toEqual(here)
    // A one-shot caller takes the reconcile back from a worker that has not begun: it lists and compares (with the
    // stamp hashes and the digest, read here or handed over by the worker), the worker stats a share. The same decision.
    registerStampDigest(db)
    const sql = db.prepare(manifestDigestSql(RACY_MS, false))
    sql.setReturnArrays(true)
    const taken = reconcileOffThread(root, file, 0)
    let port: unknown
    const led = await decide({ ...manifest(taken), leadOffThread: () => (port = taken?.lead()), digest: () => sql.get() as unknown as unknown[] })
    expect(port).toBeDefined()
    expect(led).toEqual(here)
    // A worker that has begun (here: finished) keeps it; the caller helps it instead.
    const begun = reconcileOffThread(root, file, 0)
    await begun?.result
    expect(begun?.lead()).toBeUndefined()
    expect(here.read).toHaveLength(50 + 20)
    expect(here.kept).toBe(5000 - 50 - 20)
    expect(ports()).toBe(before)
    db.close()
  })

  it('falls back to the main thread when the worker cannot read the file', async () => {
    const { root, db, manifest } = fixture()
    const off = await reconcile(root, { ...manifest(false), offThread: reconcileOffThread(root, join(root, 'missing', 'index.sqlite'), 0)?.result })
    expect(off.offThread).toBe(false)
    expect(off.kept).toBe(3)
    db.close()
  })
})
