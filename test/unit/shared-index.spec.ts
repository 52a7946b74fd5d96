/**
 * One index file, many processes (issue 30): real, separate Node processes on one root (test/harness/shared-store.ts,
 * over the built lib/), driven by events (each process answers a command when it is done), never by sleeps or
 * clocks. Needs `pnpm run build` first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { BUILD_LOCK, CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const HARNESS = join(PROJECT_ROOT, 'test/harness/shared-store.ts')
const children: ChildProcess[] = []
const stores: KnowledgeStore[] = []
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  while (stores.length) await stores.pop()!.close()
})

/** A store process: `next()` resolves with its next JSON line; `send` writes a command. */
async function start(root: string, watch = false) {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', HARNESS, root, ...(watch ? ['--watch'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] })
  children.push(child)
  const lines: unknown[] = []
  const waiting: Array<(value: unknown) => void> = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    const value = JSON.parse(line)
    const next = waiting.shift()
    if (next) next(value)
    else lines.push(value)
  })
  const next = <T = Record<string, unknown>>(): Promise<T> => new Promise((resolve) => (lines.length ? resolve(lines.shift() as T) : waiting.push(resolve as (v: unknown) => void)))
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (...args) => resolve(args)))
  const ready = await next<{ ready: number; scan: string }>()
  const ask = <T = Record<string, unknown>>(command: object): Promise<T> => {
    child.stdin.write(`${JSON.stringify(command)}\n`)
    return next<T>()
  }
  return { child, ready, ask, next, exited }
}

const tmpRoot = () => {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-shared-')), 'kb')
  mkdirSync(root, { recursive: true })
  return root
}

function open(root: string, cache = true) {
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache })
  stores.push(store)
  return store
}

/** Every document file under the root (rounds live in dated folders). */
function documentFiles(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md') && !f.startsWith('.knowledge'))
}

/**
 * The top 10 as score groups: the same scores in the same order, and the same ids within each score. Ties are ordered
 * by indexing order, which for two writers is the order of their commits, not of their files' times (a rebuild's), so
 * the ids of the last group, which the page may cut, are left out.
 */
function ranking(store: KnowledgeStore, q: string): Array<[string, string[]]> {
  const groups = new Map<string, string[]>()
  for (const hit of store.search(q, { limit: 10 })) groups.set(hit.score.toFixed(6), [...(groups.get(hit.score.toFixed(6)) ?? []), hit.id])
  const out = [...groups].map(([score, ids]): [string, string[]] => [score, ids.sort()])
  if (out.length) out[out.length - 1] = [out[out.length - 1][0], []]
  return out
}

const allIds = (store: KnowledgeStore) => store.list({ limit: 100_000, status: 'all' }).items.map((m) => m.id)
/** The rare word of round `k` of `tag` (see the harness). */
const marker = (tag: string, k: number) => `marker${tag}${[...String(k)].map((c) => 'abcdefghij'[Number(c)]).join('')}`
const QUERIES = ['shared word', 'job 7', marker('aa', 0), marker('bb', 12), 'round', 'what about']

describe('one index file shared by every process on a root', () => {
  it('serialises two writing processes: no error, nothing lost or duplicated, the cache equal to a rebuild', async () => {
    const root = tmpRoot()
    const seedStore = open(root)
    await seedStore.start()
    await seedStore.write({ kind: 'note', title: 'Seed', cwd: '', session: 'notes', suffix: 's1', sections: [{ heading: 'Note', text: 'the shared word' }] })
    await seedStore.close()
    const [a, b] = await Promise.all([start(root, true), start(root, true)])
    // Both share the file: neither built an index of its own.
    expect(a.ready.scan).toMatch(/index reused/)
    expect(b.ready.scan).toMatch(/index reused/)
    const [wa, wb] = await Promise.all([a.ask<{ ids: string[]; errors: number }>({ write: 'aa', count: 150 }), b.ask<{ ids: string[]; errors: number }>({ write: 'bb', count: 150 })])
    expect(wa.errors + wb.errors).toBe(0)
    // Each sees the other's rounds at once, through the file (not its watcher: asked right after the other answered).
    expect((await a.ask<{ ids: string[] }>({ search: marker('bb', 0) })).ids).toContain(wb.ids[0])
    expect((await b.ask<{ ids: string[] }>({ search: marker('aa', 0) })).ids).toContain(wa.ids[0])
    await Promise.all([a.ask({ exit: true }), b.ask({ exit: true })])
    const cached = open(root)
    await cached.start()
    const rebuilt = open(root, false)
    await rebuilt.start()
    const ids = allIds(cached)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(documentFiles(root).length)
    expect(ids.length).toBe(301)
    expect(new Set(ids)).toEqual(new Set(allIds(rebuilt)))
    for (const q of QUERIES) expect([q, ranking(cached, q)]).toEqual([q, ranking(rebuilt, q)])
  }, 120_000)

  it("makes one process's write searchable, readable by id and filterable in another at once (no watcher)", async () => {
    const root = tmpRoot()
    const [reader, writer] = [await start(root), await start(root)]
    expect((await reader.ask<{ ids: string[] }>({ search: marker('cc', 0) })).ids).toEqual([])
    const { ids } = await writer.ask<{ ids: string[] }>({ write: 'cc', count: 3 })
    // The reader does not watch: only the shared file can tell it. Search, a tag filter (a tag new to it), a read by id.
    expect((await reader.ask<{ ids: string[] }>({ search: marker('cc', 0) })).ids).toEqual([ids[0]])
    expect((await reader.ask<{ ids: string[] }>({ search: 'shared word', filter: { tag: 'tag-cc' } })).ids.sort()).toEqual([...ids].sort())
    expect((await reader.ask<{ path: string | null }>({ read: ids[1] })).path).toMatch(/\.md$/)
    // And the other way round, after the reader wrote too.
    const back = await reader.ask<{ ids: string[] }>({ write: 'dd', count: 1 })
    expect((await writer.ask<{ ids: string[] }>({ search: marker('dd', 0) })).ids).toEqual(back.ids)
  }, 120_000)

  it('loses nothing when a writer is killed with SIGKILL mid-write: the next start of any process reconciles', async () => {
    const root = tmpRoot()
    const survivor = await start(root)
    const victim = await start(root)
    victim.child.stdin.write(`${JSON.stringify({ write: 'ee', count: 40, killAt: 20 })}\n`)
    const reported: string[] = []
    for (;;) {
      const line = await Promise.race([victim.next<{ written?: string }>(), victim.exited.then(() => undefined)])
      if (!line?.written) break
      reported.push(line.written)
    }
    const [, signal] = await victim.exited
    expect(signal).toBe('SIGKILL')
    expect(reported.length).toBeGreaterThanOrEqual(20)
    // Every round the victim reported written is in the survivor's view of the file, or in the next start's.
    await survivor.ask({ exit: true })
    const next = await start(root)
    const found = await next.ask<{ ids: string[] }>({ search: 'shared word', filter: { tag: 'tag-ee' } })
    for (const id of reported) expect(found.ids).toContain(id)
    await next.ask({ exit: true })
    const cached = open(root)
    await cached.start()
    const ids = allIds(cached)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(documentFiles(root).length)
  }, 120_000)

  it("takes over a stale build lock, and removes the previous version's file and lock once that version is gone", async () => {
    const root = tmpRoot()
    const dir = join(root, CACHE_DIR)
    mkdirSync(dir, { recursive: true })
    // The previous version's cache (format 3) and its lifetime lock, left by a process that is gone.
    const old = new DatabaseSync(join(dir, 'index.sqlite'))
    old.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('format', 'dsh-knowledge-index/3:0123456789abcdef')")
    old.close()
    const dead = spawn(process.execPath, ['-e', '0'])
    const deadPid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid!)))
    writeFileSync(join(dir, 'index.lock'), String(deadPid))
    writeFileSync(join(dir, BUILD_LOCK), String(deadPid))
    const first = await start(root)
    expect(first.ready.scan).toMatch(/index rebuild/)
    expect(existsSync(join(dir, 'index.sqlite'))).toBe(false)
    expect(existsSync(join(dir, 'index.lock'))).toBe(false)
    expect(existsSync(join(dir, BUILD_LOCK))).toBe(false) // released once built
    expect(existsSync(join(dir, CACHE_FILE))).toBe(true)
    await first.ask({ exit: true })
  }, 120_000)

  it('leaves the previous version alone while it runs (its lock held by a live process): each keeps its own file', async () => {
    const root = tmpRoot()
    const dir = join(root, CACHE_DIR)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'index.sqlite'), 'SQLite format 3\0 the previous version owns this')
    writeFileSync(join(dir, 'index.lock'), String(process.pid))
    const first = await start(root)
    expect(first.ready.scan).toMatch(/index rebuild/)
    expect(existsSync(join(dir, 'index.sqlite'))).toBe(true)
    await first.ask({ exit: true })
  }, 120_000)
})
