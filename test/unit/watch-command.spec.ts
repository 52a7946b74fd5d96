/**
 * `dsh-knowledge watch` (issue 30, item 2): the command a person runs so that every other command on a root skips the
 * check of every file, as it does beside a dsh session. Real processes (the built CLI), driven by what they print:
 * the watch says when it is ready, each search's debug line says whether it walked. Needs `pnpm run build` first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { parseDuration } from '../../src/cli/watch.js'
import { HINT_WALK_MS, watchHint } from '../../src/cli/common.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** A root with five documents and its index built (as a first dsh start leaves it). */
async function seeded(): Promise<{ root: string; paths: string[] }> {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-watch-')), 'kb')
  mkdirSync(root, { recursive: true })
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  const paths: string[] = []
  for (let k = 0; k < 5; k++) {
    const word = `seedword${'abcde'[k]}`
    const sections = [
      { heading: 'Question', text: `Why does job ${k} fail?` },
      { heading: 'Answer', text: `Because of ${word} in the retry path.` },
    ]
    paths.push((await store.write({ kind: 'raw', title: `Round ${k} about the deploy`, cwd: '/ws/app', session: 'a1b2c3d4-0000-4000-8000-000000000000', turn: k + 1, sections })).path)
  }
  await store.close()
  return { root, paths }
}

/** `dsh-knowledge watch` on `root`; resolves with what it printed once ready, and how it ends. */
async function watching(root: string, ...flags: string[]) {
  const child = spawn(process.execPath, [BIN, 'watch', '--root', root, '--json', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stderr = ''
  child.stderr!.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const first = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    void exited.then(() => resolve(''))
  })
  expect(first, stderr).not.toBe('')
  return { child, ready: JSON.parse(first) as { watching: string; documents: number; pid: number; until?: string }, exited, stderr: () => stderr }
}

async function cliSearch(root: string, query: string) {
  const run = await spawnCollect(process.execPath, [BIN, 'search', query, '--root', root, '--json'], { env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' } })
  expect(run.code, run.stderr).toBe(0)
  const line = run.stderr.split('\n').find((l) => l.includes('freshness')) ?? ''
  return { ids: (JSON.parse(run.stdout) as Array<{ id: string }>).map((h) => h.id), line, vouched: / freshness vouched for by watcher \d+: no walk\)/.test(line) }
}

/** Until `test` holds, asked every 50 ms; fails after `ms` (a hang guard, not a timing). */
async function until(test: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > end) throw new Error('condition not met')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const stamps = (root: string) => readdirSync(join(root, CACHE_DIR)).filter((n) => /^watcher-\d+\.json$/.test(n))

describe('dsh-knowledge watch', () => {
  it('vouches for the index while it runs: searches skip the walk, see a hand edit, and walk again once it is stopped', async () => {
    const { root, paths } = await seeded()
    expect((await cliSearch(root, 'seedwordc')).vouched).toBe(false)
    const watch = await watching(root)
    expect(watch.ready).toMatchObject({ watching: root, documents: 5, pid: watch.child.pid })
    expect(stamps(root)).toEqual([`watcher-${watch.child.pid}.json`])
    const trusted = await cliSearch(root, 'seedwordc')
    expect(trusted.vouched, trusted.line).toBe(true)
    expect(trusted.ids).toHaveLength(1)
    // A hand edit while it watches: indexed by the watch, then found by a search that still does not walk.
    const file = join(root, paths[2])
    writeFileSync(file, readFileSync(file, 'utf8').replace('seedwordc', 'editedwhilewatched'))
    await until(async () => (await cliSearch(root, 'editedwhilewatched')).ids.length === 1)
    const edited = await cliSearch(root, 'editedwhilewatched')
    expect(edited.vouched, edited.line).toBe(true)
    expect(edited.ids).toEqual(trusted.ids)
    // Stopped as a person stops it: its stamp goes with it, and the next search checks every file again.
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    expect(stamps(root)).toEqual([])
    const after = await cliSearch(root, 'editedwhilewatched')
    expect(after.vouched, after.line).toBe(false)
    expect(after.line).toMatch(/ freshness walked/)
    expect(after.ids).toEqual(trusted.ids)
  })

  it('--for ends it by itself, stamp removed', async () => {
    const { root } = await seeded()
    const watch = await watching(root, '--for', '1s')
    expect(Date.parse(watch.ready.until ?? '')).toBeGreaterThan(0)
    expect(await watch.exited).toBe(0)
    expect(stamps(root)).toEqual([])
  })

  it('stops with exit code 1 and says why when its root goes away, so a supervisor restarts it', async () => {
    const { root } = await seeded()
    const watch = await watching(root)
    renameSync(root, `${root}-moved`)
    expect(await watch.exited).toBe(1)
    expect(watch.stderr()).toContain(`stopped watching ${root}: it can no longer vouch for the index`)
    // Its stamp moved with the folder (it was written by path), naming the path it watched: nobody trusts it.
    const moved = await cliSearch(`${root}-moved`, 'seedworda')
    expect(moved.vouched, moved.line).toBe(false)
    expect(moved.line).toContain('the root was moved')
  })

  it('stops with exit code 1 when its index file is replaced under it (another process rebuilt the cache)', async () => {
    const { root } = await seeded()
    const watch = await watching(root)
    const file = join(root, CACHE_DIR, CACHE_FILE)
    copyFileSync(file, `${file}.copy`)
    renameSync(`${file}.copy`, file)
    expect(await watch.exited).toBe(1)
    expect(watch.stderr()).toContain(`stopped watching ${root}: it can no longer vouch for the index`)
    expect(stamps(root)).toEqual([])
    const search = await cliSearch(root, 'seedworda')
    expect(search.vouched, search.line).toBe(false)
    expect(search.ids).toHaveLength(1)
  })

  it('an MCP server beside it takes its word too: a burst of calls does not check every file', async () => {
    const { root } = await seeded()
    const serve = async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--root', root, '--cwd', '/ws/app'],
        env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' },
        stderr: 'pipe',
      })
      let stderr = ''
      transport.stderr?.on('data', (d) => {
        stderr += d
      })
      const client = new Client({ name: 'watch-spec', version: '1.0.0' })
      await client.connect(transport)
      const found = (await client.callTool({ name: 'knowledge_search', arguments: { query: 'seedwordb' } })) as { content: Array<{ text: string }> }
      await client.close()
      return { text: found.content[0].text, line: stderr.split('\n').find((l) => l.includes('freshness')) ?? '' }
    }
    const alone = await serve()
    expect(alone.line).toMatch(/ freshness walked/)
    const watch = await watching(root)
    const beside = await serve()
    expect(beside.line).toContain(`freshness vouched for by watcher ${watch.ready.pid}: no walk`)
    expect(beside.text).toMatch(/^1 document\(s\) match "seedwordb"/)
  })

  it('refuses a bad --for and a missing root before it starts', async () => {
    const { root } = await seeded()
    const bad = await spawnCollect(process.execPath, [BIN, 'watch', '--root', root, '--for', 'soon'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--for "soon": give a duration such as 90s')
    const missing = await spawnCollect(process.execPath, [BIN, 'watch', '--root', join(root, 'nothing-here')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no knowledge base at')
    expect(stamps(root)).toEqual([])
  })

  it('reads durations as a person writes them', () => {
    expect(parseDuration('90s')).toBe(90_000)
    expect(parseDuration('30m')).toBe(1_800_000)
    expect(parseDuration('8h')).toBe(28_800_000)
    expect(parseDuration('2d')).toBe(172_800_000)
    expect(parseDuration('45')).toBe(45_000)
    expect(parseDuration('1.5h')).toBe(5_400_000)
    expect(parseDuration('24d')).toBe(24 * 86_400_000)
    for (const bad of ['', '0', '-5m', '5 minutes', '30d', '24.5d', 'Infinity']) expect(() => parseDuration(bad), bad).toThrow(/--for/)
  })
})

describe('the hint a person at a terminal gets', () => {
  const store = (walkedMs?: number) => ({ root: '/kb', size: 1_000_000, freshness: { checked: Promise.resolve(), walkedMs, vouching: false, behind: false, lost: false } })
  it('names watch after a long check of every file, on a terminal only', () => {
    expect(watchHint(store(2400), true)).toBe(
      'dsh-knowledge: checking the 1,000,000 documents of /kb against the index took 2.4 s; while `dsh-knowledge watch` (or a dsh session) runs on that root, commands skip this check\n',
    )
    expect(watchHint(store(2400), false)).toBeUndefined() // piped: a script's stderr stays clean
    expect(watchHint(store(HINT_WALK_MS - 1), true)).toBeUndefined()
    expect(watchHint(store(undefined), true)).toBeUndefined() // vouched for, or no reused index: nothing was checked
  })
})
