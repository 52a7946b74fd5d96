/**
 * The persisted index is only a cache: reused when the files did not change, reconciled file by file when they did,
 * and rebuilt (one log line) when it is missing, corrupt, truncated, of another format or half-written by a killed
 * process. Real files, real SQLite, a real killed child process.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { KnowledgeStore, type StoreLogger } from '../../src/knowledge/store.js'
import { BUILD_LOCK, CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { FrontMatter } from '../../src/types.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { logRecorder } from '../harness/stores.ts'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

function open(root: string, logger?: StoreLogger, readOnly = false) {
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, logger, readOnly })
  stores.push(store)
  return store
}

const tmpRoot = () => {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-cache-')), 'kb')
  mkdirSync(root, { recursive: true })
  return root
}

/** Writes a hand-written document file; returns its path. */
function put(root: string, id: string, body: string, over: Partial<FrontMatter> = {}): string {
  const file = join(root, 'notes', `${id}-doc.md`)
  mkdirSync(join(root, 'notes'), { recursive: true })
  const meta = { id, title: `Doc ${id}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [], ...over } as FrontMatter
  writeFileSync(file, formatDocument(meta, body))
  return file
}
/** Makes every file's mtime old, so the index does not treat them as racy (modified within its time granularity). */
function age(file: string, secondsAgo = 60): void {
  const t = new Date(Date.now() - secondsAgo * 1000)
  utimesSync(file, t, t)
}
const ids = (store: KnowledgeStore, q: string) => store.search(q).map((h) => h.id)
const cacheFile = (root: string) => join(root, CACHE_DIR, CACHE_FILE)

const WORDS = ['zebra', 'giraffe', 'walrus', 'narwhal']
async function seed(root: string, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) age(put(root, `d${i}`, `document number ${i} about ${WORDS[i]} and the shared word`))
  const store = open(root)
  await store.start()
  await store.close()
  stores.pop()
}

describe('the persisted index', () => {
  it('lives in <root>/.knowledge/cache, ignored by git, and is reused when nothing changed', async () => {
    const root = tmpRoot()
    await seed(root)
    expect(existsSync(cacheFile(root))).toBe(true)
    expect(readFileSync(join(root, CACHE_DIR, '.gitignore'), 'utf8')).toMatch(/^\*$/m)
    const log = logRecorder()
    const store = open(root, log.logger)
    await store.start()
    expect(log.scan()).toContain('index reused: kept 3, read 0, restamped 0, dropped 0')
    expect(log.info()).toEqual([])
    expect(store.size).toBe(3)
    expect(ids(store, 'giraffe')).toEqual(['d1'])
    expect(store.facets().kinds).toEqual({ manual: 3 })
  })

  it('re-reads only changed files, drops vanished ones and adds new ones', async () => {
    const root = tmpRoot()
    await seed(root, 4)
    age(put(root, 'd1', 'document one rewritten about okapi now, longer than before'))
    rmSync(join(root, 'notes', 'd2-doc.md'))
    age(put(root, 'd9', 'a new document about quokka'))
    const log = logRecorder()
    const store = open(root, log.logger)
    await store.start()
    expect(log.scan()).toContain('kept 2, read 2, restamped 0, dropped 1')
    expect(store.size).toBe(4)
    expect(ids(store, 'okapi')).toEqual(['d1'])
    expect(ids(store, 'giraffe')).toEqual([])
    expect(ids(store, 'walrus')).toEqual([])
    expect(ids(store, 'quokka')).toEqual(['d9'])
    expect(store.get('d2')).toBeUndefined()
  })

  it('checks content where times lie: same size and mtime put back still counts as changed; a touch only re-stamps', async () => {
    const root = tmpRoot()
    await seed(root)
    const file = join(root, 'notes', 'd0-doc.md')
    const before = statSync(file)
    // Same length, different word, mtime set back to what it was: only the ctime and the content tell.
    writeFileSync(file, readFileSync(file, 'utf8').replace('zebra', 'tapir'))
    utimesSync(file, before.atime, before.mtime)
    expect(statSync(file).size).toBe(before.size)
    age(join(root, 'notes', 'd1-doc.md'), 30) // a touch: new times, same text
    const log = logRecorder()
    const store = open(root, log.logger)
    await store.start()
    expect(log.scan()).toContain('kept 1, read 2, restamped 1, dropped 0')
    expect(ids(store, 'tapir')).toEqual(['d0'])
    expect(ids(store, 'zebra')).toEqual([])
    await store.close()
    // The touched file's new times were recorded: the next start keeps everything.
    const again = logRecorder()
    const next = open(root, again.logger)
    await next.start()
    expect(again.scan()).toContain('kept 3, read 0')
  })

  it('takes files modified within the time granularity of being indexed as racy and checks their content once', async () => {
    const root = tmpRoot()
    put(root, 'r1', 'fresh document about lemur') // mtime = now: indexed at once, so racy
    let store = open(root)
    await store.start()
    await store.close()
    const log = logRecorder()
    store = open(root, log.logger)
    await store.start()
    expect(log.scan()).toContain('kept 0, read 1, restamped 1')
    expect(ids(store, 'lemur')).toEqual(['r1'])
  })

  it('indexes a document written by the store so that the next start keeps it', async () => {
    const root = tmpRoot()
    let store = open(root)
    await store.start()
    await store.write({ kind: 'note', title: 'Capybara note', cwd: '', session: 'notes', suffix: 'n1', sections: [{ heading: 'Note', text: 'capybara facts' }] })
    await store.close()
    const log = logRecorder()
    store = open(root, log.logger)
    await store.start()
    expect(store.size).toBe(1)
    expect(log.scan()).toMatch(/index reused: kept [01], read [01], restamped [01], dropped 0/)
    expect(store.search('capybara')).toHaveLength(1)
  })

  const rebuilt = async (root: string, why: RegExp) => {
    const log = logRecorder()
    const store = open(root, log.logger)
    await store.start()
    expect(log.info()).toHaveLength(1)
    expect(log.info()[0]).toMatch(why)
    expect(log.scan()).toContain('index rebuild')
    expect(store.size).toBe(3)
    expect(ids(store, 'walrus')).toEqual(['d2'])
    await store.close()
    // …and the rebuilt file is trusted again.
    const after = logRecorder()
    const next = open(root, after.logger)
    await next.start()
    expect(after.scan()).toContain('index reused: kept 3')
    expect(after.info()).toEqual([])
  }

  it('rebuilds a missing cache with one log line', async () => {
    const root = tmpRoot()
    await seed(root)
    rmSync(join(root, CACHE_DIR), { recursive: true })
    await rebuilt(root, /is missing; rebuilding/)
  })

  it('rebuilds a corrupt cache (garbage) with one log line', async () => {
    const root = tmpRoot()
    await seed(root)
    writeFileSync(cacheFile(root), Buffer.alloc(64 * 1024, 0x5a))
    await rebuilt(root, /rejected \(corrupt: not an SQLite file\)/)
  })

  it('rebuilds a truncated cache with one log line', async () => {
    const root = tmpRoot()
    await seed(root)
    truncateSync(cacheFile(root), Math.floor(statSync(cacheFile(root)).size / 2))
    await rebuilt(root, /rejected \(corrupt: truncated/)
  })

  it('rebuilds a cache whose pages are damaged past the header', async () => {
    const root = tmpRoot()
    await seed(root)
    const bytes = readFileSync(cacheFile(root))
    bytes.fill(0xff, 8192, bytes.length) // every page after the first
    writeFileSync(cacheFile(root), bytes)
    await rebuilt(root, /rejected \(corrupt/)
  })

  it('rebuilds a cache of another format (schema or tokenizer) with one log line', async () => {
    const root = tmpRoot()
    await seed(root)
    const db = new DatabaseSync(cacheFile(root))
    db.prepare("UPDATE meta SET value = 'dsh-knowledge-index/0:old' WHERE key = 'format'").run()
    db.close()
    await rebuilt(root, /rejected \(foreign: format "dsh-knowledge-index\/0:old"/)
  })

  it("rebuilds a cache whose build was killed (kill -9 as the build starts), taking over the dead process's lock", async () => {
    const root = tmpRoot()
    for (let i = 0; i < 3; i++) age(put(root, `d${i}`, `document number ${i} about ${WORDS[i]} and the shared word`))
    for (let i = 0; i < 200; i++) age(put(root, `bulk${i}`, `bulk filler ${i} `.repeat(40)))
    // The child kills itself with SIGKILL as its build starts (see open-store.ts): no timer decides when.
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'test/harness/open-store.ts'), root, '--kill-at-build'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    const [, signal] = (await new Promise((r) => child.on('close', (...args) => r(args)))) as [number | null, NodeJS.Signals | null]
    expect(signal).toBe('SIGKILL')
    const db = new DatabaseSync(cacheFile(root), { readOnly: true })
    const state = (db.prepare("SELECT value FROM meta WHERE key = 'state'").get() as { value: string }).value
    db.close()
    expect(out).toBe('') // killed before it was ready
    expect(existsSync(join(root, CACHE_DIR, BUILD_LOCK))).toBe(true)
    expect(state).toBe('building')
    for (let i = 0; i < 200; i++) rmSync(join(root, 'notes', `bulk${i}-doc.md`))
    await rebuilt(root, /rejected \(incomplete: its build did not finish/)
  }, 120_000)

  it('shares the file: a second store on the same root reuses it (no lock kept) and sees the same documents', async () => {
    const root = tmpRoot()
    await seed(root)
    const first = open(root)
    await first.start()
    expect(existsSync(join(root, CACHE_DIR, BUILD_LOCK))).toBe(false)
    const log = logRecorder()
    const second = open(root, log.logger)
    await second.start()
    expect(log.scan()).toContain('index reused: kept 3')
    expect(ids(second, 'giraffe')).toEqual(['d1'])
    await second.close()
    await first.close()
    const again = logRecorder()
    const third = open(root, again.logger)
    await third.start()
    expect(again.scan()).toContain('index reused: kept 3')
  })

  it('lets a reader (a CLI search while dsh runs) use the same file, and reconcile into it a file that changed', async () => {
    const root = tmpRoot()
    await seed(root)
    const owner = open(root)
    await owner.start()
    const log = logRecorder()
    const reader = open(root, log.logger, true)
    await reader.start()
    expect(log.scan()).toContain('index reused: kept 3, read 0')
    expect(ids(reader, 'giraffe')).toEqual(['d1'])
    // The owner writes; the reader's next search sees the committed row (WAL readers see each commit).
    await owner.write({ kind: 'note', title: 'Okapi note', cwd: '', session: 'notes', suffix: 'n1', sections: [{ heading: 'Note', text: 'okapi sighting' }] })
    owner.flush()
    await new Promise((r) => setImmediate(r))
    expect(reader.search('okapi')).toHaveLength(1)
    await reader.close()
    // A file changed behind the owner's back (it does not watch here): the reader reconciles it into the shared file,
    // and the owner sees the change at its next search.
    age(put(root, 'd0', 'document zero rewritten about a pangolin'))
    const log2 = logRecorder()
    const second = open(root, log2.logger, true)
    await second.start()
    expect(log2.scan()).toMatch(/index reused: kept 2, read 2, restamped 1/) // d0, and the owner's note (racy: its content is checked)
    expect(ids(second, 'pangolin')).toEqual(['d0'])
    expect(ids(second, 'zebra')).toEqual([])
    expect(ids(owner, 'pangolin')).toEqual(['d0'])
    expect(ids(owner, 'zebra')).toEqual([])
  })

  it('keeps status, links and Chinese for the documents it does not read again (the same answers as a rebuild)', async () => {
    const root = tmpRoot()
    age(put(root, 'd0', 'the walrus note links to [the old one](d1) and nothing else'))
    age(put(root, 'd1', 'the old walrus advice', { status: 'superseded', superseded_by: 'd2' }))
    age(put(root, 'd2', 'the new walrus advice'))
    age(put(root, 'd3', 'a wrong walrus claim', { status: 'retired', retired: { at: '2026-01-02T00:00:00.000Z', reason: 'wrong' } }))
    age(put(root, 'd4', '数据库连接池耗尽 walrus'))
    const answers = (store: KnowledgeStore) => ({
      hits: store.search('walrus').map((h) => [h.id, h.score, h.status ?? 'active', h.supersededBy ?? '']),
      retired: store.list({ status: 'retired' }).items.map((m) => m.id),
      count: store.count(),
      all: store.count({ status: 'all' }),
      linkedFrom: store.linkedFrom('d1'),
      supersededOnes: store.supersededOnes('d2'),
      database: store.search('database connection pool').map((h) => h.id),
    })
    const first = open(root)
    await first.start()
    const built = answers(first)
    await first.close()
    stores.pop()
    expect(built.hits.map(([id]) => id)).not.toContain('d3')
    expect(built.hits.find(([id]) => id === 'd1')?.slice(2)).toEqual(['superseded', 'd2'])
    expect(built).toMatchObject({ retired: ['d3'], count: 4, all: 5, linkedFrom: ['d0'], supersededOnes: ['d1'] })
    expect(built.database).toContain('d4')
    const db = new DatabaseSync(cacheFile(root), { readOnly: true })
    expect(db.prepare("SELECT value FROM meta WHERE key = 'han'").get()).toEqual({ value: '1' })
    db.close()
    const log = logRecorder()
    const again = open(root, log.logger)
    await again.start()
    expect(log.scan()).toContain('index reused: kept 5, read 0')
    expect(answers(again)).toEqual(built)
  })

  it('answers which file holds which id from the index when first asked: duplicates and id prefixes hold after a reused start', async () => {
    const root = tmpRoot()
    const X = 'abcd1234-aaaa-4000-8000-000000000000'
    const Y = 'abcd1234-bbbb-4000-8000-000000000000'
    const round = (session: string, turn: number) => ({
      kind: 'raw' as const,
      title: `Round ${turn}`,
      cwd: '/ws',
      session,
      turn,
      sections: [{ heading: 'Question', text: `Why does job ${turn} fail on the okapi host?` }],
    })
    age(put(root, 'd1', 'the original okapi note'))
    const first = open(root)
    await first.start()
    const x = await first.write(round(X, 1))
    expect(x.id).toBe('abcd1234-t1')
    await first.close()
    stores.pop()
    // Aged, then one start that re-stamps it: from then on the round is kept as it is, never read again.
    age(join(root, x.path))
    const second = open(root)
    await second.start()
    await second.close()
    stores.pop()
    // A teammate's round arrives without its claim (as through git), and a hand-made file reuses an existing id.
    rmSync(join(root, '.knowledge', 'ids'), { recursive: true, force: true })
    const copy = join(root, 'copies', 'copy.md')
    mkdirSync(join(root, 'copies'))
    writeFileSync(copy, formatDocument({ id: 'd1', title: 'A copy', kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter, 'a copy claiming the same id'))
    age(copy)
    const log = logRecorder()
    const again = open(root, log.logger)
    await again.start()
    expect(log.scan()).toContain('index reused: kept 2, read 1, restamped 0, dropped 0')
    // The file this product wrote keeps its id; the copy is refused and reported.
    expect(again.get('d1')?.path).toBe('notes/d1-doc.md')
    expect([...again.invalid.values()].join('\n')).toMatch(/copies\/copy\.md: duplicate id d1/)
    // Y shares X's short prefix: known only from the indexed round (no claim file), so Y writes under a longer one.
    const y = await again.write(round(Y, 2))
    expect(y.id).toBe('abcd1234bbbb-t2')
    expect(again.get('abcd1234-t1')?.session).toBe(X)
  })

  it('rebuilds a cache of the previous format (version 3: no change log)', async () => {
    const root = tmpRoot()
    await seed(root)
    const db = new DatabaseSync(cacheFile(root))
    db.prepare("UPDATE meta SET value = replace(value, 'dsh-knowledge-index/4:', 'dsh-knowledge-index/3:') WHERE key = 'format'").run()
    db.close()
    const log = logRecorder()
    const store = open(root, log.logger)
    await store.start()
    expect(log.info().join('\n')).toMatch(/rejected \(foreign: format "dsh-knowledge-index\/3:/)
    expect(ids(store, 'giraffe')).toEqual(['d1'])
  })
})
