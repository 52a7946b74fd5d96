/**
 * A document's history (issue 28, item 18): revisions from git when the root is in a repository, run so that a
 * hostile repository's configuration cannot start a program; else the bounded local history of redacted texts;
 * diffs between any two, redacted; the page's route and the CLI's command give the same answers.
 * @module dsh-knowledge-sync/test/unit/history
 */
import { spawnSync } from 'node:child_process'
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { history as historyCommand } from '../../src/cli/history.js'
import { retire, restore } from '../../src/knowledge/corrections/correct.js'
import { documentHistory, historyDiff, parseRange } from '../../src/knowledge/history/history.js'
import { SAFE_CONFIG } from '../../src/knowledge/history/git.js'
import {
  appendLocalRevision,
  compacted,
  HistoryTally,
  insideGitTree,
  keepLocalHistory,
  LOCAL_HISTORY_MAX_BYTES,
  LOCAL_HISTORY_MAX_TEXT,
  LOCAL_HISTORY_PER_DOCUMENT,
  localHistoryFile,
  localRevisionsOf,
  readLocalHistory,
} from '../../src/knowledge/history/local.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createHandler } from '../../src/http/routes.js'
import { createRedactor } from '../../src/redact/redactor.js'

const TOKEN = `ghp_${'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'}`
const redactor = () => createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })
const stores: KnowledgeStore[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
})

function open(root: string, watch = false): KnowledgeStore {
  const store = new KnowledgeStore({ root, redactor: redactor(), watch, cache: false })
  stores.push(store)
  return store
}

const note = (s: KnowledgeStore, title: string, finding: string) =>
  s.write({ kind: 'note', title, cwd: '/w', session: 'session-aaaa1111-0000-4000-8000-000000000000', suffix: 'n1', sections: [{ heading: 'Finding', text: finding }] })

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.invalid', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } })
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`)
  return run.stdout
}

describe('local history (a root outside git)', () => {
  const fresh = () => join(mkdtempSync(join(tmpdir(), 'dsh-ks-history-')), 'kb')

  it('keeps each revision the store writes, lists them newest first, and diffs any two', async () => {
    const root = fresh()
    expect(insideGitTree(tmpdir())).toBe(false)
    const s = open(root)
    keepLocalHistory(s)
    await s.start()
    const a = await note(s, 'Cache key', 'The CI cache key holds the lockfile hash.')
    await retire(s, { id: a.id, reason: 'wrong cause' }, undefined, 'cli')
    await restore(s, { id: a.id }, undefined, 'cli')
    await s.close()
    const t = open(root)
    await t.start()
    const found = await documentHistory(t, a.id, undefined)
    expect(found.source).toBe('local')
    expect(found.revisions.map((r) => r.ref)).toEqual(['v3', 'v2', 'v1'])
    expect(found.more).toBe(false)
    expect(found.limits).toEqual({ perDocument: LOCAL_HISTORY_PER_DOCUMENT, bytes: 8 * 1024 * 1024 })
    const diff = await historyDiff(t, a.id, 'v1', 'v2', undefined)
    expect(diff.hunks.flatMap((h) => h.lines).filter((l) => l.startsWith('+'))).toContainEqual(expect.stringMatching(/^\+status: retired/))
    expect(diff.added).toBeGreaterThan(0)
    // v1 and v3 differ only by what retire/restore left behind (the record of the retirement, if any).
    expect((await historyDiff(t, a.id, 'v2', 'v3', undefined)).hunks.flatMap((h) => h.lines)).toContainEqual(expect.stringMatching(/^-status: retired/))
    await expect(historyDiff(t, a.id, 'v9', 'v1', undefined)).rejects.toThrow(/no revision "v9"; its revisions: v3, v2, v1/)
  })

  it('redacts what it keeps and what it shows: a hand edit holding a token never reaches the history or a diff', async () => {
    const root = fresh()
    const s = open(root, true)
    keepLocalHistory(s)
    await s.start()
    const a = await note(s, 'Deploy', 'Deploy with the token from the vault.')
    const file = join(root, a.path)
    const changed = new Promise<void>((resolve) => s.onChange((c) => c.id === a.id && resolve()))
    writeFileSync(file, readFileSync(file, 'utf8').replace('from the vault', `GITHUB_TOKEN=${TOKEN}`))
    await changed
    await s.close()
    const kept = readFileSync(localHistoryFile(root), 'utf8')
    expect(kept).not.toContain(TOKEN)
    expect(readLocalHistory(root).map((e) => e.v)).toEqual([1, 2])
    expect(readLocalHistory(root)[1].text).toContain('Deploy with the token [REDACTED]')
    const t = open(root)
    await t.start()
    const diff = await historyDiff(t, a.id, 'v1', 'current', undefined)
    expect(JSON.stringify(diff)).not.toContain(TOKEN)
    expect(diff.hunks.flatMap((h) => h.lines)).toContainEqual('+Deploy with the token [REDACTED]')
  })

  it('rewrites the file once per 20 edits of a page edited often, not on every edit past its 20th', async () => {
    const root = fresh()
    mkdirSync(root, { recursive: true })
    // Other documents' lines make a rewrite cost what it costs in a real base.
    for (let k = 0; k < 200; k++) await appendLocalRevision(root, { id: `d${k}`, v: 1, hash: `${k}`.padStart(16, '1'), at: '2026-12-01T00:00:00Z', text: 'y'.repeat(2000) })
    const tally = new HistoryTally()
    const inodes = new Set<number>()
    for (let v = 1; v <= 200; v++) {
      await appendLocalRevision(root, { id: 'log', v, hash: `${v}`.padStart(16, '0'), at: '2026-12-01T00:00:00Z', text: `entry ${v}` }, tally)
      inodes.add(statSync(localHistoryFile(root)).ino) // a rewrite is an atomic rename: a new inode
    }
    // Trimming at 21 rewrote it 180 times.
    expect(inodes.size).toBeLessThanOrEqual(Math.ceil(200 / LOCAL_HISTORY_PER_DOCUMENT) + 1)
    expect(localRevisionsOf(root, 'log').map((e) => e.v)).toEqual(Array.from({ length: LOCAL_HISTORY_PER_DOCUMENT }, (_, k) => k + 181))
    expect(readLocalHistory(root).filter((e) => e.id !== 'log')).toHaveLength(200)
  })

  it('is bounded: per document, in all, and a text over the bound is recorded without it', async () => {
    const root = fresh()
    mkdirSync(root, { recursive: true })
    for (let v = 1; v <= LOCAL_HISTORY_PER_DOCUMENT + 5; v++) await appendLocalRevision(root, { id: 'a', v, hash: `${v}`.padStart(16, '0'), at: '2026-12-01T00:00:00Z', text: `text ${v}` })
    expect(localRevisionsOf(root, 'a').map((e) => e.v)).toEqual(Array.from({ length: LOCAL_HISTORY_PER_DOCUMENT }, (_, k) => k + 6))
    // The file trims a document's lines once they reach twice the bound, back to the newest.
    for (let v = LOCAL_HISTORY_PER_DOCUMENT + 6; v <= LOCAL_HISTORY_PER_DOCUMENT * 2 + 1; v++)
      await appendLocalRevision(root, { id: 'a', v, hash: `${v}`.padStart(16, '0'), at: '2026-12-01T00:00:00Z', text: `text ${v}` })
    expect(readLocalHistory(root).map((e) => e.v)).toEqual(Array.from({ length: LOCAL_HISTORY_PER_DOCUMENT }, (_, k) => k + LOCAL_HISTORY_PER_DOCUMENT + 2))
    await appendLocalRevision(root, { id: 'big', v: 1, hash: 'f'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'x'.repeat(LOCAL_HISTORY_MAX_TEXT + 1) })
    expect(readLocalHistory(root).at(-1)).toEqual({ id: 'big', v: 1, hash: 'f'.repeat(16), at: '2026-12-01T00:00:00Z' })
    // Over the byte bound: the oldest lines go first, every document keeps its newest.
    const entries = Array.from({ length: 10 }, (_, k) => ({ id: `d${k % 2}`, v: k, hash: 'a'.repeat(16), at: 'x', text: 'y'.repeat(100) }))
    const lineBytes = JSON.stringify(entries[0]).length + 1
    const kept = (await compacted(entries, lineBytes * 5)).lines.map((line) => JSON.parse(line).v)
    expect(kept).toEqual([5, 6, 7, 8, 9])
  })

  it('a torn line or a foreign one is skipped, not fatal', async () => {
    const root = fresh()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    writeFileSync(localHistoryFile(root), '{"id":"a","v":1,"hash":"0000000000000001","at":"t","text":"one"}\nnot json\n{"id":3}\n{"id":"a","v":2,"ha')
    expect(readLocalHistory(root)).toEqual([{ id: 'a', v: 1, hash: '0000000000000001', at: 't', text: 'one' }])
  })
})

describe('local history in a process that runs for days (issue 24)', () => {
  const fresh = () => join(mkdtempSync(join(tmpdir(), 'dsh-ks-history-')), 'kb')
  /** A history file of `count` other documents' revisions, each line about `lineBytes` long. */
  const prefill = (root: string, count: number, lineBytes: number) => {
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const line = (k: number) => JSON.stringify({ id: `old-${k}`, v: 1, hash: k.toString(16).padStart(16, '0'), at: '2026-12-01T00:00:00Z', text: 'z'.repeat(lineBytes - 120) })
    writeFileSync(localHistoryFile(root), `${Array.from({ length: count }, (_, k) => line(k)).join('\n')}\n`)
    return statSync(localHistoryFile(root)).size
  }
  const finding = (s: KnowledgeStore, k: number) =>
    s.write({
      kind: 'note',
      title: `Finding ${k}`,
      cwd: '/w',
      session: 'session-aaaa1111-0000-4000-8000-000000000000',
      suffix: `n${k}`,
      sections: [{ heading: 'Finding', text: `Step ${k} needs the cache warmed first.` }],
    })

  it('reads the file once, not on every write, while no other process changes it', async () => {
    const root = fresh()
    const size = prefill(root, 500, 2000)
    const tally = new HistoryTally()
    const s = open(root)
    keepLocalHistory(s, { tally })
    await s.start()
    for (let k = 0; k < 20; k++) await finding(s, k)
    await s.close()
    expect(readLocalHistory(root)).toHaveLength(520)
    // Before: each append read and parsed the whole file again (20 × 1 MB here; ~0.5 s a write at 4 MB on 2 cores).
    expect(tally.bytesRead).toBe(size)
    expect(tally.ids).toBe(520)
  })

  it('after a compaction, remembers no more documents than the file holds', async () => {
    const root = fresh()
    prefill(root, 1000, Math.ceil(LOCAL_HISTORY_MAX_BYTES / 1000) + 200)
    const tally = new HistoryTally()
    const s = open(root)
    keepLocalHistory(s, { tally })
    await s.start()
    await finding(s, 1)
    await s.close()
    const inFile = new Set(readLocalHistory(root).map((e) => e.id)).size
    expect(inFile).toBeLessThan(900)
    // Before: the hashes of every document this process had seen stayed in memory after the file dropped them.
    expect(tally.ids).toBe(inFile)
  })

  it('rewrites the file over its bound a slice at a time, while another process appending waits for it', async () => {
    const root = fresh()
    prefill(root, 1000, Math.ceil(LOCAL_HISTORY_MAX_BYTES / 1000) + 200)
    // A budget of 0 ms: a turn of the event loop after every line read and every line kept.
    const tally = new HistoryTally(0)
    let turns = 0
    let appendedMeanwhile: Promise<void> | undefined
    const tick = (): void => {
      turns++
      // Another process (its own tally) appends once the rewrite is under way.
      if (turns === 50) {
        appendedMeanwhile = appendLocalRevision(root, { id: 'elsewhere', v: 1, hash: 'e'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'appended by another process' }, new HistoryTally())
      }
      if (!done) setImmediate(tick)
    }
    let done = false
    setImmediate(tick)
    await appendLocalRevision(root, { id: 'new', v: 1, hash: 'n'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'the append that goes over the bound' }, tally)
    done = true
    // In one piece (before) the rewrite let a handful of turns pass (its file writes); a slice a line: one per line.
    expect(turns).toBeGreaterThan(1000)
    expect(appendedMeanwhile).toBeDefined()
    await appendedMeanwhile
    const after = readLocalHistory(root)
    expect(statSync(localHistoryFile(root)).size).toBeLessThanOrEqual(LOCAL_HISTORY_MAX_BYTES)
    // The other append waited for the rewrite (a lock across processes) and came after it: both lines are there.
    expect(after.slice(-2).map((e) => e.id)).toEqual(['new', 'elsewhere'])
    expect(tally.hashOf(root, 'elsewhere')).toBe('e'.repeat(16))
  })

  it('a rewrite keeps what a process without the lock (an older build) appended meanwhile, and lets its rewrite stand', async () => {
    const over = Math.ceil(LOCAL_HISTORY_MAX_BYTES / 1000) + 200
    const line = (id: string) => JSON.stringify({ id, v: 1, hash: 'f'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'appended without the lock' })
    /** Appends over the bound with a budget of 0 ms, running `meanwhile` once the rewrite is under way. */
    const rewriteWith = async (root: string, meanwhile: () => void) => {
      // The file read already (as by a keeper that has run a while): the turns below are the rewrite's.
      const tally = new HistoryTally(0)
      tally.hashOf(root, 'old-1')
      let turns = 0
      let done = false
      const tick = (): void => {
        if (++turns === 50) meanwhile()
        if (!done) setImmediate(tick)
      }
      setImmediate(tick)
      await appendLocalRevision(root, { id: 'new', v: 1, hash: 'n'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'over the bound' }, tally)
      done = true
      expect(turns).toBeGreaterThan(50)
    }
    const appended = fresh()
    prefill(appended, 1000, over)
    await rewriteWith(appended, () => appendFileSync(localHistoryFile(appended), `${line('older-build')}\n`))
    expect(
      readLocalHistory(appended)
        .slice(-2)
        .map((e) => e.id),
    ).toEqual(['new', 'older-build'])
    expect(statSync(localHistoryFile(appended)).size).toBeLessThanOrEqual(LOCAL_HISTORY_MAX_BYTES)
    // A rewrite by such a process (a new file renamed in place): it stands, this one's is not written over it.
    const replaced = fresh()
    prefill(replaced, 1000, over)
    await rewriteWith(replaced, () => {
      writeFileSync(`${localHistoryFile(replaced)}.tmp`, `${line('their-rewrite')}\n`)
      renameSync(`${localHistoryFile(replaced)}.tmp`, localHistoryFile(replaced))
    })
    expect(readLocalHistory(replaced).map((e) => e.id)).toEqual(['their-rewrite'])
  })

  it('reads only what another process appended, and a line being appended once it is whole', async () => {
    const root = fresh()
    const size = prefill(root, 500, 2000)
    const tally = new HistoryTally()
    expect(tally.hashOf(root, 'old-1')).toBe('1'.padStart(16, '0'))
    expect(tally.bytesRead).toBe(size)
    const line = JSON.stringify({ id: 'other', v: 1, hash: 'a'.repeat(16), at: '2026-12-01T00:00:00Z', text: 'from another process' })
    // Another process's append, caught half-written: only whole lines are taken in.
    appendFileSync(localHistoryFile(root), `${line}\n${line.slice(0, 20)}`)
    expect(tally.hashOf(root, 'other')).toBe('a'.repeat(16))
    expect(tally.bytesRead).toBe(size + line.length + 1)
    // The rest of that line, then one more.
    appendFileSync(localHistoryFile(root), `${line.slice(20)}\n`)
    const second = JSON.stringify({ id: 'third', v: 1, hash: 'b'.repeat(16), at: '2026-12-01T00:00:00Z' })
    appendFileSync(localHistoryFile(root), `${second}\n`)
    expect(tally.hashOf(root, 'third')).toBe('b'.repeat(16))
    // Every byte read once: the prefill, then each appended line.
    expect(tally.bytesRead).toBe(statSync(localHistoryFile(root)).size)
    expect(tally.ids).toBe(502)
  })

  it('two stores on one root record a change both of them see once', async () => {
    const root = fresh()
    const a = open(root, true)
    const b = open(root, true)
    keepLocalHistory(a)
    keepLocalHistory(b)
    await a.start()
    await b.start()
    const seen = (s: KnowledgeStore, id?: string) => new Promise<void>((resolve) => s.onChange((c) => c.type === 'written' && (!id || c.id === id) && resolve()))
    const bSawWrite = seen(b)
    const doc = await note(a, 'Deploy', 'Deploy from the main branch.')
    await bSawWrite
    const both = Promise.all([seen(a, doc.id), seen(b, doc.id)])
    const file = join(root, doc.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('main branch', 'release branch'))
    await both
    await a.close()
    await b.close()
    // Before: each store appended what it saw unless it had appended that text itself (v2 twice, and v1 twice when b
    // first read the file after a's append).
    expect(readLocalHistory(root).map((e) => e.v)).toEqual([1, 2])
  })
})

describe('git history (a root in a repository)', () => {
  /** A repository whose configuration tries every way `log`/`show` could start a program; each touches `marker`. */
  function hostileRepo(): { root: string; marker: string } {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-githist-'))
    const root = join(base, 'repo')
    mkdirSync(root)
    const marker = join(base, 'ran')
    const evil = join(base, 'evil.sh')
    writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat >/dev/null 2>&1\nexit 0\n`)
    chmodSync(evil, 0o755)
    git(root, 'init', '-q')
    const config = {
      'core.pager': evil,
      'diff.external': evil,
      'core.fsmonitor': evil,
      'core.hooksPath': base,
      'log.showSignature': 'true',
      'gpg.program': evil,
      'diff.evil.textconv': evil,
      'pager.log': evil,
      'pager.show': evil,
    }
    for (const [key, value] of Object.entries(config)) git(root, 'config', key, value)
    writeFileSync(join(root, '.gitattributes'), '*.md diff=evil\n')
    return { root, marker }
  }

  /** Gives HEAD a (fake) signature, so a `log` that shows signatures runs `gpg.program` on it. */
  function signHead(root: string): void {
    const commit = git(root, 'cat-file', 'commit', 'HEAD')
    const signature = 'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n'
    const signed = commit.replace(/^(committer .*\n)/m, `$1${signature}`)
    const run = spawnSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: root, input: signed, encoding: 'utf8' })
    git(root, 'update-ref', 'HEAD', run.stdout.trim())
  }

  it('lists commits, diffs them, and the hostile configuration starts nothing', async () => {
    const { root, marker } = hostileRepo()
    const kb = join(root, 'kb')
    const s = open(kb)
    await s.start()
    const a = await note(s, 'Queue', `The queue drains at night. Key ${TOKEN}`)
    git(root, 'add', '-A')
    git(root, 'commit', '-qm', 'first finding')
    const file = join(kb, a.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('at night', 'at noon'))
    git(root, 'commit', '-qam', `fix the hour ${TOKEN}`)
    signHead(root)
    writeFileSync(file, readFileSync(file, 'utf8').replace('at noon', 'hourly'))
    // The configuration is live: a plain `git log -p` runs it (so the assertions below can fail).
    spawnSync('git', ['log', '-p', '-1'], { cwd: kb, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } })
    expect(existsSync(marker)).toBe(true)
    rmSync(marker)

    const found = await documentHistory(s, a.id, undefined)
    expect(found.source).toBe('git')
    expect(found.revisions.map((r) => r.ref.length)).toEqual([7, 12, 12])
    expect(found.revisions[0].ref).toBe('current')
    expect(found.revisions[1]).toMatchObject({ author: 'Ann', subject: 'fix the hour [REDACTED]' })
    expect(found.revisions[2].subject).toBe('first finding')
    const [, newer, older] = found.revisions.map((r) => r.ref)
    const diff = await historyDiff(s, a.id, older, newer, undefined)
    expect(diff.hunks.flatMap((h) => h.lines).filter((l) => /^[-+]/.test(l))).toEqual([expect.stringMatching(/^-.*at night/), expect.stringMatching(/^\+.*at noon/)])
    expect(JSON.stringify(diff)).not.toContain(TOKEN)
    const now = await historyDiff(s, a.id, newer.slice(0, 7), 'current', undefined)
    expect(now.added).toBe(1)
    expect(existsSync(marker)).toBe(false)
  })

  it('a document never committed in a repository has no git history and no local one (git is the history there)', async () => {
    const { root } = hostileRepo()
    const s = open(join(root, 'kb'))
    keepLocalHistory(s)
    await s.start()
    const a = await note(s, 'Fresh', 'Not committed yet.')
    const found = await documentHistory(s, a.id, undefined)
    expect(found).toMatchObject({ source: 'local', revisions: [{ ref: 'current' }] })
    expect(existsSync(localHistoryFile(s.root))).toBe(false)
  })

  it('every override is a -c pair git accepts', () => {
    const run = spawnSync('git', [...SAFE_CONFIG.flatMap((c) => ['-c', c]), '--no-pager', 'version'], { encoding: 'utf8' })
    expect(run.status).toBe(0)
  })
})

describe('the route and the command', () => {
  it('answer the same history; the route refuses a foreign Host; the range is A..B', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-history-')), 'kb')
    const s = open(root)
    keepLocalHistory(s)
    await s.start()
    const a = await note(s, 'Route', 'One.')
    await retire(s, { id: a.id, reason: 'stale' }, undefined, 'cli')
    const server: Server = createServer(createHandler(s, { path: '/knowledge', trustedHosts: [], pageSize: 50 }))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    const get = (path: string, host = `127.0.0.1:${port}`) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
        })
        req.on('error', reject)
        req.end()
      })
    try {
      const route = await get(`/knowledge/history?id=${encodeURIComponent(a.id)}`)
      expect(route.status).toBe(200)
      expect(route.body.revisions.map((r: { ref: string }) => r.ref)).toEqual(['v2', 'v1'])
      const diff = await get(`/knowledge/history/diff?id=${encodeURIComponent(a.id)}&from=v1&to=v2`)
      expect(diff.body.added).toBeGreaterThan(0)
      expect((await get(`/knowledge/history?id=${encodeURIComponent(a.id)}`, 'evil.example')).status).toBe(403)
      expect((await get('/knowledge/history?id=nope-n1')).status).toBe(404)
      await s.close()
      const out: string[] = []
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        out.push(String(chunk))
        return true
      })
      try {
        await historyCommand({ values: { root, json: true }, positionals: [a.id] })
        await historyCommand({ values: { root, diff: 'v1..v2' }, positionals: [a.id] })
      } finally {
        spy.mockRestore()
      }
      expect(JSON.parse(out[0])).toEqual(route.body)
      expect(out[1]).toMatch(/^--- .*v1\n\+\+\+ .*v2\n@@ /)
      expect(out[1]).toContain('+status: retired')
    } finally {
      server.close()
    }
    expect(parseRange('v2')).toEqual({ from: 'v2', to: 'current' })
    expect(() => parseRange('v1...v2')).toThrow(/A\.\.B/)
  })
})
