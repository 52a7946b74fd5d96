/**
 * The freshness stamp (issue 30, item 2): a CLI `search` does not stat every document file while a live process that
 * owns the index watches the root, and does the full check whenever that cannot be proven on this machine (the owner
 * killed -9, a stamp copied with a root or pushed from elsewhere, a pid that is alive but holds no index). Real,
 * separate processes (test/harness/shared-store.ts and the built CLI), driven by events: the CLI's debug line says what
 * it did, the owner says when it indexed a hand edit. Needs `pnpm run build` first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { CACHE_DIR } from '../../src/knowledge/index-cache/index-cache.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { spawnCollect } from '../harness/spawn.ts'

const HARNESS = join(PROJECT_ROOT, 'test/harness/shared-store.ts')
const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** A watching owner process that reports each document it indexes after start. */
async function owner(root: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', HARNESS, root, '--watch', '--changes'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } })
  children.push(child)
  const lines: Array<Record<string, unknown>> = []
  const waiting: Array<() => void> = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line))
    for (const wake of waiting.splice(0)) wake()
  })
  /** The first line (from the start) that satisfies `test`. */
  const seen = async (test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.find(test)
      if (found) return found
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  /** Sends a command; resolves with the first answer after it that satisfies `test`. */
  const ask = async (command: object, test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    const from = lines.length
    child.stdin!.write(`${JSON.stringify(command)}\n`)
    for (;;) {
      const found = lines.slice(from).find(test)
      if (found) return found
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }
  const ready = await seen((l) => 'ready' in l)
  return { child, seen, ask, exited, scan: String(ready.scan) }
}

/** Until `test` holds, asked every 20 ms; fails after `ms` (a hang guard, not a timing). */
async function until(test: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > end) throw new Error('condition not met')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A fresh CLI search with its debug lines; `walked` says whether it stat'ed the files. */
async function cliSearch(root: string, query: string) {
  const run = await spawnCollect(process.execPath, [BIN, 'search', query, '--root', root, '--json'], { env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' } })
  expect(run.code, run.stderr).toBe(0)
  const line = run.stderr.split('\n').find((l) => l.includes('freshness')) ?? ''
  return {
    ids: (JSON.parse(run.stdout) as Array<{ id: string }>).map((h) => h.id),
    line,
    vouched: / freshness vouched for by watcher \d+: no walk\)/.test(line),
    walked: / freshness walked/.test(line),
  }
}

const draft = (k: number, word: string) => ({
  kind: 'raw' as const,
  title: `Round ${k} about the deploy`,
  cwd: '/ws/app',
  session: 'a1b2c3d4-0000-4000-8000-000000000000',
  turn: k + 1,
  sections: [
    { heading: 'Question', text: `Why does job ${k} fail?` },
    { heading: 'Answer', text: `Because of ${word} in the retry path.` },
  ],
})

/** A root with `n` documents and its index built (as a first dsh start leaves it). */
async function seeded(n = 5): Promise<{ root: string; paths: string[] }> {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-stamp-')), 'kb')
  mkdirSync(root, { recursive: true })
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  const paths: string[] = []
  for (let k = 0; k < n; k++) paths.push((await store.write(draft(k, `seedword${'abcdefghij'[k]}`))).path)
  await store.close()
  return { root, paths }
}

const stamps = (root: string) => readdirSync(join(root, CACHE_DIR)).filter((n) => /^watcher-\d+\.json$/.test(n))

describe('the CLI trusts a live watching owner, and only one', () => {
  it('skips the walk while the owner watches, and finds a hand edit once the owner indexed it', async () => {
    const { root, paths } = await seeded()
    const before = await cliSearch(root, 'seedwordc')
    expect(before.walked, before.line).toBe(true) // nobody watches yet: the full check
    const live = await owner(root)
    expect(stamps(root)).toEqual([`watcher-${live.child.pid}.json`])
    const trusted = await cliSearch(root, 'seedwordc')
    expect(trusted.vouched, trusted.line).toBe(true)
    expect(trusted.line).toContain(`watcher ${live.child.pid}`)
    expect(trusted.ids).toHaveLength(1)
    // A person edits a document while the owner watches: the owner indexes it, and a fresh CLI finds it without a walk.
    const file = join(root, paths[2])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedwordc', 'handeditedword'))
    await live.seen((l) => l.change === 'written' && l.id === trusted.ids[0])
    const edited = await cliSearch(root, 'handeditedword')
    expect(edited.vouched, edited.line).toBe(true)
    expect(edited.ids).toEqual(trusted.ids)
    expect((await cliSearch(root, 'seedwordc')).ids).toEqual([])
  })

  it('a note written from the CLI beside the owner skips the walk too, and is found at once by the owner and by a search', async () => {
    const { root } = await seeded()
    const note = async () => {
      const run = await spawnCollect(process.execPath, [BIN, 'note', '--title', 'Pinned esbuild', '--finding', 'pin noteworthyword in the lockfile', '--root', root, '--cwd', '/ws/app', '--json'], {
        env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' },
      })
      expect(run.code, run.stderr).toBe(0)
      return { id: (JSON.parse(run.stdout) as { id: string }).id, line: run.stderr.split('\n').find((l) => l.includes('freshness')) ?? '' }
    }
    // Nobody watching: the writer checks every file first, as a reader does.
    expect((await note()).line).toMatch(/ freshness walked/)
    const live = await owner(root)
    const written = await note()
    expect(written.line).toContain(`freshness vouched for by watcher ${live.child.pid}: no walk`)
    await live.seen((l) => l.change === 'written' && l.id === written.id)
    const found = await cliSearch(root, 'noteworthyword')
    expect(found.vouched, found.line).toBe(true)
    expect(found.ids).toContain(written.id)
    expect(found.ids).toHaveLength(2)
  })

  it('walks again once the owner was killed -9, and finds what changed while nobody watched', async () => {
    const { root, paths } = await seeded()
    const live = await owner(root)
    expect((await cliSearch(root, 'seedwordb')).vouched).toBe(true)
    live.child.kill('SIGKILL')
    await live.exited
    expect(stamps(root)).toHaveLength(1) // a killed owner cannot remove its stamp
    const file = join(root, paths[1])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedwordb', 'whilenobodywatched'))
    const after = await cliSearch(root, 'whilenobodywatched')
    expect(after.walked, after.line).toBe(true)
    expect(after.line).toContain('process gone')
    expect(after.ids).toHaveLength(1)
    // The next owner sweeps the dead one's stamp and vouches itself.
    const next = await owner(root)
    expect(stamps(root)).toEqual([`watcher-${next.child.pid}.json`])
  })

  it('a stamp copied with the root, forged for a live pid, or from another boot is not trusted', async () => {
    const { root, paths } = await seeded()
    const live = await owner(root)
    // A copy of the root (a backup, a second clone) carries the live owner's stamp; its index is another file.
    const copy = join(mkdtempSync(join(tmpdir(), 'dsh-ks-stamp-copy-')), 'kb')
    cpSync(root, copy, { recursive: true })
    const file = join(copy, paths[3])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedwordd', 'onlyinthecopy'))
    const copied = await cliSearch(copy, 'onlyinthecopy')
    expect(copied.walked, copied.line).toBe(true)
    expect(copied.ids).toHaveLength(1)
    // A stamp as a pushed file would carry it: every field right, for a process that is alive but holds no index (this
    // test runner), or with another machine's boot id.
    const real = JSON.parse(readFileSync(join(root, CACHE_DIR, `watcher-${live.child.pid}.json`), 'utf8'))
    live.child.kill('SIGKILL')
    await live.exited
    const start = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19]
    writeFileSync(join(root, CACHE_DIR, `watcher-${process.pid}.json`), JSON.stringify({ ...real, pid: process.pid, start, beat: Date.now() }))
    const forged = await cliSearch(root, 'seedworda')
    expect(forged.walked, forged.line).toBe(true)
    expect(forged.line).toContain('does not hold the index file')
    writeFileSync(join(root, CACHE_DIR, `watcher-${process.pid}.json`), JSON.stringify({ ...real, pid: process.pid, start, beat: Date.now(), boot: '00000000-0000-4000-8000-000000000000' }))
    const elsewhere = await cliSearch(root, 'seedworda')
    expect(elsewhere.walked, elsewhere.line).toBe(true)
    expect(elsewhere.line).toContain('another boot or machine')
  })

  it('a root moved under a live owner is not vouched for: the owner holds its index file but watches the old path', async () => {
    const { root } = await seeded()
    const live = await owner(root)
    const moved = `${root}-moved`
    renameSync(root, moved)
    // The owner lives on and holds the moved index file; its stamp moved with the folder, its heartbeat seconds fresh.
    const search = await cliSearch(moved, 'seedworda')
    expect(search.walked, search.line).toBe(true)
    expect(search.line).toContain('the owner watches another path (the root was moved)')
    expect(live.child.exitCode).toBeNull()
  })
})

describe("a second watching process starts on a live owner's word (issue 30, item 1)", () => {
  const search = (p: Awaited<ReturnType<typeof owner>>, q: string) => p.ask({ search: q }, (l) => 'ids' in l).then((l) => l.ids as string[])

  it('does not walk, writes its own stamp, and sees what changes afterwards', async () => {
    const { root, paths } = await seeded()
    const first = await owner(root)
    const second = await owner(root)
    expect(second.scan).toContain(`freshness vouched for by watcher ${first.child.pid}: no walk`)
    expect(stamps(root).sort()).toEqual([`watcher-${first.child.pid}.json`, `watcher-${second.child.pid}.json`].sort())
    expect(await search(second, 'seedwordc')).toHaveLength(1)
    // A hand edit after both started, and a write of the first process: the second finds both.
    const file = join(root, paths[2])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedwordc', 'editedafterstart'))
    await until(async () => (await search(second, 'editedafterstart')).length === 1)
    const written = (await first.ask({ write: 'q', count: 1 }, (l) => 'errors' in l)).ids as string[]
    await until(async () => (await search(second, 'markerqa')).join() === written.join())
    // A third process trusts either of them and does not walk either.
    const third = await owner(root)
    expect(third.scan).toMatch(/freshness vouched for by watcher \d+: no walk/)
    // Unless told to trust no stamp.
    const walking = await owner(root, { DSH_KNOWLEDGE_FRESHNESS: 'walk' })
    expect(walking.scan).toContain('freshness walked')
  })

  it('checks every file after all when the owner that vouched dies before indexing an edit it was due', async () => {
    const { root, paths } = await seeded()
    const first = await owner(root)
    // Frozen just after a heartbeat: its stamp stays fresh for a while, but it indexes nothing meanwhile.
    const stamp = join(root, CACHE_DIR, `watcher-${first.child.pid}.json`)
    const beat = statSync(stamp).mtimeMs
    await until(() => statSync(stamp).mtimeMs !== beat)
    first.child.kill('SIGSTOP')
    const file = join(root, paths[4])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedworde', 'whiletheownerslept'))
    const second = await owner(root)
    expect(second.scan).toContain(`freshness vouched for by watcher ${first.child.pid}: no walk`)
    expect(await search(second, 'whiletheownerslept')).toEqual([]) // the edit fell before its watcher was armed
    first.child.kill('SIGKILL')
    await first.exited
    const recheck = await second.seen((l) => String(l.info ?? '').startsWith('the process that vouched'))
    expect(String(recheck.info)).toContain('process gone')
    await until(async () => (await search(second, 'whiletheownerslept')).length === 1)
    expect(await search(second, 'seedworde')).toEqual([])
  })
})
