/**
 * A start-up reconcile whose listing sums to the index's digest does not read the manifest's rows back (issue 30: a
 * CLI command with nobody watching read 100k rows, ~0.2–0.3 s). It must decide exactly what reading every row decides:
 * real files under a real root, indexed by a real store into a real index file, then changed at random (in place with
 * the old size and mtime put back, rewritten, renamed within and across folders, deleted, added, touched, a second
 * row for one path, a row made racy), and the digest's decision compared with the full comparison's, change by change.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { listFiles, type PostedStats, receivedStats, statChunks, statFiles, statFilesShared } from '../../src/knowledge/disk/list-files.js'
import { type Manifest, RACY_MS, reconcileManifest } from '../../src/knowledge/index-cache/walk.js'
import { openIndexFile } from '../../src/search/index-file.js'
import { fillStampHashes, indexManifest } from '../../src/search/manifest.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { manifestDigestSql, StampSums, stampHash } from '../../src/search/stamp-digest.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { FrontMatter } from '../../src/types.js'
import { mulberry32 } from '../harness/rng.ts'

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

const HOUR = 60 * 60 * 1000

function put(root: string, rel: string, id: string, body: string, mtime = Date.now() - HOUR): void {
  mkdirSync(join(root, rel, '..'), { recursive: true })
  const meta = { id, title: `Doc ${id}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as unknown as FrontMatter
  writeFileSync(join(root, rel), formatDocument(meta, body))
  // Old, so that the index does not count the file as racy (modified within its time granularity of being indexed).
  utimesSync(join(root, rel), new Date(mtime), new Date(mtime))
}

/** A root of `n` documents in three folders, indexed by a real store into its persisted index. */
async function indexedRoot(n: number): Promise<string> {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-digest-')), 'kb')
  for (let i = 0; i < n; i++) put(root, `f${i % 3}/d${i}.md`, `d${i}`, `document ${i} about walruses, ${'x'.repeat(i % 7)}`)
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  await store.close()
  return root
}

/** The index file's manifest, with or without its digest; `rowsRead` counts how often the rows were streamed. */
function manifestOf(root: string) {
  const index = new SearchIndex({}, openIndexFile(join(root, CACHE_DIR, CACHE_FILE)))
  cleanup.push(() => index.close())
  const full = indexManifest(index, RACY_MS)
  const counted = { rowsRead: 0 }
  const withDigest: Manifest = {
    get rows() {
      counted.rowsRead++
      return full.rows
    },
    row: (rowid) => full.row(rowid),
    digest: () => full.digest(),
  }
  const rowsOnly: Manifest = { rows: { [Symbol.iterator]: () => full.rows[Symbol.iterator]() }, row: (rowid) => full.row(rowid) }
  return { index, withDigest, rowsOnly, counted }
}

/** What a reconcile decided: the files to read (with the row each replaces), the kept count, the rows dropped. */
async function decide(root: string, manifest: Manifest) {
  // The stamp hashes taken with the stats (as a reconcile over a persisted index takes them), unless the manifest has no digest.
  const { files, times, hashes } = await listFiles(root, new Map(), undefined, { hashes: manifest.digest !== undefined })
  let kept = 0
  const dropped: string[] = []
  const out = reconcileManifest(root, manifest, files, times, { kept: () => void kept++, dropped: (row) => void dropped.push(`${row.id}@${row.path}`) }, undefined, hashes)
  const read = [...out].map(([full, row]) => `${full.slice(root.length + 1)}<-${row ? row.id : 'new'}`).sort()
  return { read, kept, dropped: dropped.sort() }
}

describe('the manifest digest', () => {
  it('lets an unchanged root be reconciled without reading a row', async () => {
    const root = await indexedRoot(30)
    const { withDigest, rowsOnly, counted } = manifestOf(root)
    const quick = await decide(root, withDigest)
    expect(counted.rowsRead).toBe(0)
    expect(quick).toEqual({ read: [], kept: 30, dropped: [] })
    expect(await decide(root, rowsOnly)).toEqual(quick)
  })

  it('decides what reading every row decides, over 45 random changes, each on an index brought up to date', async () => {
    const root = await indexedRoot(24)
    const random = mulberry32(30)
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
    const seen = new Set<string>()
    for (let round = 0; round < 45; round++) {
      const { index, withDigest, rowsOnly, counted } = manifestOf(root)
      const kind = pick(['in place, size and mtime put back', 'rewritten', 'renamed', 'moved', 'deleted', 'added', 'touched', 'second row', 'made racy'])
      const rel = pick(readdirDocs(root))
      const full = join(root, rel)
      if (kind === 'in place, size and mtime put back') {
        const before = statSync(full)
        writeFileSync(full, readFileSync(full, 'utf8').replace('walruses', 'walrusez'))
        utimesSync(full, before.atime, before.mtime)
        expect(statSync(full).size).toBe(before.size)
      } else if (kind === 'rewritten') put(root, rel, `r${round}`, `rewritten in round ${round}`)
      else if (kind === 'renamed') renameSync(full, full.replace(/\.md$/, `-r${round}.md`))
      else if (kind === 'moved') renameSync(full, join(root, rel.startsWith('f0/') ? 'f1' : 'f0', `m${round}.md`))
      else if (kind === 'deleted') rmSync(full)
      else if (kind === 'added') put(root, `f${round % 3}/n${round}.md`, `n${round}`, `new in round ${round}`)
      else if (kind === 'touched') utimesSync(full, new Date(), new Date(Date.now() - 2 * HOUR))
      else if (kind === 'second row')
        index
          .stmt(
            "INSERT INTO doc (id, path, kind, title, cwd, created, created_ms, mtime, tags, tools, size, ctime, hash, seen) SELECT id || '-twice', path, kind, title, cwd, created, created_ms, mtime, tags, tools, size, ctime, hash, seen FROM doc WHERE path = ?",
          )
          .run(rel)
      else index.stmt('UPDATE doc SET seen = mtime WHERE path = ?').run(rel)
      seen.add(kind)
      const quick = await decide(root, withDigest)
      expect(quick, `round ${round}: ${kind} ${rel}`).toEqual(await decide(root, rowsOnly))
      expect(quick.read.length + quick.dropped.length, `round ${round}: ${kind}`).toBeGreaterThan(0)
      // A racy row is compared on its own beside the digest; every other change is caught by the sums, never missed.
      expect(counted.rowsRead, `round ${round}: ${kind}`).toBe(kind === 'made racy' ? 0 : 1)
      index.close()
      // The store brings the index up to date for the next round (and the digest path must then hold again).
      const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
      await store.start()
      await store.close()
      const after = manifestOf(root)
      const settled = await decide(root, after.withDigest)
      expect(settled.dropped, `round ${round}: ${kind}, settled`).toEqual([])
      // Files rewritten or added this round are racy until RACY_MS have passed: read one by one, never all rows.
      expect(after.counted.rowsRead, `round ${round}: ${kind}, settled`).toBe(0)
      after.index.close()
    }
    expect(seen.size).toBe(9)
  })

  it('tells apart listings that differ only in a path, or in one stamp by a microsecond', () => {
    const sums = (entries: Array<[string, number, number, number]>) => {
      const s = new StampSums()
      for (const [path, size, mtime, ctime] of entries) s.add(path, size, mtime, ctime)
      return s.text
    }
    const a: [string, number, number, number] = ['f0/a.md', 120, 1_700_000_000_000.123, 1_700_000_000_500.5]
    const b: [string, number, number, number] = ['f1/a.md', 120, 1_700_000_000_000.123, 1_700_000_000_500.5]
    expect(sums([a])).not.toBe(sums([b]))
    expect(sums([a])).not.toBe(sums([[a[0], a[1], a[2], a[3] + 0.001]]))
    expect(sums([a, b])).toBe(sums([b, a]))
    // A multiset: the same file twice is not the same as once, nor as two others that sum alike in size.
    expect(sums([a, a])).not.toBe(sums([a]))
    expect(Number.isSafeInteger(stampHash(...a))).toBe(true)
    expect(stampHash(...a)).toBeLessThan(2 ** 40)
  })

  it("is read from each row's stored stamp hash, which every write keeps true (an older build's too)", async () => {
    const root = await indexedRoot(12)
    const { index, withDigest, rowsOnly } = manifestOf(root)
    expect(index.writes.stamp).toBe(true)
    const stored = () =>
      index.stmt('SELECT path, size, mtime, ctime, stamp_hash AS stored FROM doc ORDER BY path').all() as Array<{ path: string; size: number; mtime: number; ctime: number; stored: number | null }>
    // Every row the store wrote holds the hash of its own stamp.
    for (const row of stored()) expect(row.stored, row.path).toBe(stampHash(row.path, row.size, row.mtime, row.ctime))
    // The digest read from the stored hashes is the one hashed row by row.
    const digest = (sql: boolean) => Object.values(index.stmt(manifestDigestSql(RACY_MS, sql)).get() ?? {})
    expect(digest(true)).toEqual(digest(false))
    // An older build restamps a row without the column: the trigger clears the stale hash, and the row is hashed then.
    const row = stored()[3]
    index.stmt('UPDATE doc SET mtime = mtime - 5000 WHERE path = ?').run(row.path)
    expect(stored()[3].stored).toBeNull()
    expect(digest(true)).toEqual(digest(false))
    // The digest no longer matches the files (the row says another mtime), and decides what every row decides.
    expect(await decide(root, withDigest)).toEqual(await decide(root, rowsOnly))
    expect((await decide(root, withDigest)).read).toEqual([`${row.path}<-${row.path.replace(/^f\d\//, '').replace(/\.md$/, '')}`])
    // This build's restamp writes the new stamp's hash with it; a write of the hash alone is left alone by the trigger.
    const id = row.path.replace(/^f\d\//, '').replace(/\.md$/, '')
    index.restamp(id, row.mtime, { size: row.size, ctimeMs: row.ctime, hash: 'h', seenMs: row.mtime + 10 * HOUR })
    index.flush()
    expect(stored()[3].stored).toBe(stampHash(row.path, row.size, row.mtime, row.ctime))
    index.stmt('UPDATE doc SET stamp_hash = NULL WHERE path = ?').run(row.path)
    expect(fillStampHashes(index, 0)).toBeGreaterThan(0)
    expect(stored()[3].stored).toBe(stampHash(row.path, row.size, row.mtime, row.ctime))
    expect(fillStampHashes(index, 0)).toBeUndefined()
    expect(await decide(root, withDigest)).toEqual({ read: [], kept: 12, dropped: [] })
  })

  it('falls back to every row when the index cannot give its digest', async () => {
    const root = await indexedRoot(6)
    const { withDigest, rowsOnly, counted } = manifestOf(root)
    rmSync(join(root, 'f0/d0.md'))
    const failing: Manifest = {
      get rows() {
        return withDigest.rows
      },
      row: withDigest.row,
      digest: () => {
        throw new Error('integer overflow')
      },
    }
    expect(await decide(root, failing)).toEqual(await decide(root, rowsOnly))
    expect(counted.rowsRead).toBe(1)
  })
})

describe('stats shared by two threads', () => {
  it('give every file the stat one thread gives it, each chunk taken once, whoever takes it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-stat-share-'))
    const files: string[] = []
    for (let i = 0; i < 5000; i++) {
      const file = join(root, `f${i}.md`)
      if (i % 1000 !== 7) writeFileSync(file, 'x'.repeat(i % 50))
      files.push(file)
    }
    // Not a file one can stat (a path through a file): as gone, not thrown.
    files.push(join(root, 'f1.md', 'below.md'))
    const alone = statFiles(files)
    expect(Number.isNaN(alone[3 * 7])).toBe(true)
    expect(Number.isNaN(alone[3 * 5000])).toBe(true)
    const chunks = Math.ceil(files.length / 1024)
    // A helper that never reads its port: this thread stats every chunk.
    const { MessageChannel, receiveMessageOnPort } = await import('node:worker_threads')
    const channel = new MessageChannel()
    const shared = statFilesShared(files, channel.port1, root)
    expect([...shared.times]).toEqual([...alone])
    // Each file's stamp hash taken with its stat: the hash of its path under the root and its stamp; NaN for one gone.
    const hashOf = (i: number) => (Number.isNaN(alone[3 * i]) ? Number.NaN : stampHash(files[i].slice(root.length + 1), alone[3 * i], alone[3 * i + 1], alone[3 * i + 2]))
    expect([...(shared.hashes ?? [])]).toEqual(files.map((_, i) => hashOf(i)))
    const sent = receiveMessageOnPort(channel.port2)?.message as PostedStats
    expect(Atomics.load(sent.counters, 0)).toBeGreaterThanOrEqual(chunks)
    expect(Atomics.load(sent.counters, 1)).toBe(chunks)
    // The helper's side, taking chunks a turn at a time (as the main thread does), on a job nobody else takes, as posted.
    const posted: PostedStats = {
      ...sent,
      times: new Float64Array(new SharedArrayBuffer(files.length * 24)),
      hashes: new Float64Array(new SharedArrayBuffer(files.length * 8)),
      counters: new Int32Array(new SharedArrayBuffer(8)),
    }
    const job = receivedStats(posted)
    expect(job.files).toEqual(files)
    await new Promise<void>((resolve) => {
      statChunks(job, (next) => setImmediate(() => (Atomics.load(job.counters, 0) >= chunks ? resolve() : next())))
    })
    expect(Atomics.load(job.counters, 1)).toBe(chunks)
    expect([...job.times]).toEqual([...alone])
    expect([...(job.hashes ?? [])]).toEqual(files.map((_, i) => hashOf(i)))
    channel.port1.close()
  })
})

function readdirDocs(root: string): string[] {
  const out: string[] = []
  for (const dir of ['f0', 'f1', 'f2']) {
    try {
      for (const name of readdirSync(join(root, dir))) if (name.endsWith('.md')) out.push(`${dir}/${name}`)
    } catch {
      /* no such folder yet */
    }
  }
  return out.sort()
}
