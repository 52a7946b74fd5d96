/**
 * What a watching owner's index must follow for its word to hold (found by attacking `dsh-knowledge watch`, session
 * 40): folders moved away, made again, or marked as originals; an edit that puts the old mtime back; a FIFO named like
 * a document; a burst of changes larger than inotify's queue. Each case runs the built `watch` command and asks fresh
 * CLI searches that take its word (their debug line says so), against what the files say. Every one of these failed
 * before the change it tests. Needs `pnpm run build` first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { BURST_CHANGES, RootWatch } from '../../src/knowledge/disk/root-watch.js'
import { stampMatch } from '../../src/search/manifest.js'
import { RACY_MS } from '../../src/search/stamp-digest.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** A document file as a person or another tool writes it. */
function doc(root: string, rel: string, id: string, word: string): string {
  const full = join(root, rel)
  mkdirSync(join(full, '..'), { recursive: true })
  writeFileSync(
    full,
    `---\nid: ${id}\ntitle: "Doc ${id}"\nkind: note\nsession: person-x\ncreated: 2026-01-01T00:00:00.000Z\ncwd: /tmp\ntools: []\ntags: []\n---\n\n# Doc ${id}\n\n## Finding\n\n${word}\n`,
  )
  return full
}

function tempRoot(): string {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-watch-tree-')), 'kb')
  mkdirSync(root)
  return root
}

/** `dsh-knowledge watch` on `root`, once it vouches (the index is built by then). */
async function watching(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'watch', '--root', root, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  const first = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', () => resolve(''))
  })
  expect(first).toContain('"watching"')
  return child
}

/** The ids a fresh CLI search finds, and whether it took the watch's word. */
async function search(root: string, query: string): Promise<{ ids: string[]; vouched: boolean }> {
  const run = await spawnCollect(process.execPath, [BIN, 'search', query, '--root', root, '--json'], { env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' } })
  expect(run.code, run.stderr).toBe(0)
  return { ids: (JSON.parse(run.stdout) as Array<{ id: string }>).map((h) => h.id).sort(), vouched: / freshness vouched for by watcher \d+: no walk\)/.test(run.stderr) }
}

/**
 * Until a search that takes the watch's word finds `ids` for `query` (a hang guard, not a timing): what the watch
 * indexes shows within moments; a watch that never follows the change fails here.
 */
async function vouchedFinds(root: string, query: string, ids: string[]): Promise<void> {
  const end = Date.now() + 30_000
  for (;;) {
    const found = await search(root, query)
    if (found.vouched && JSON.stringify(found.ids) === JSON.stringify([...ids].sort())) return
    if (Date.now() > end) throw new Error(`a vouched search for ${query} found ${JSON.stringify(found)}; expected ${JSON.stringify(ids)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('a watching owner follows the tree, not only the files', () => {
  it('a folder moved out of the root, or to a dot name: its documents leave the index', async () => {
    const root = tempRoot()
    doc(root, 'team/a.md', 'team-a', 'quokkaword')
    doc(root, 'crew/b.md', 'crew-b', 'quokkaword')
    doc(root, 'keep/c.md', 'keep-c', 'quokkaword')
    await watching(root)
    await vouchedFinds(root, 'quokkaword', ['team-a', 'crew-b', 'keep-c'])
    renameSync(join(root, 'team'), join(root, '..', 'team-elsewhere'))
    renameSync(join(root, 'crew'), join(root, '.crew-hidden'))
    await vouchedFinds(root, 'quokkaword', ['keep-c'])
  })

  it('a folder removed and made again at once, or swapped for another: later files in it are indexed', async () => {
    const root = tempRoot()
    doc(root, 'sub/a.md', 'sub-a', 'firstversion')
    doc(root, 'cur/x.md', 'cur-x', 'currentword')
    doc(root, 'next/x.md', 'next-x', 'nextword')
    await watching(root)
    await vouchedFinds(root, 'firstversion', ['sub-a'])
    // ext4 gives the new folder the old one's inode number at once.
    rmSync(join(root, 'sub'), { recursive: true })
    mkdirSync(join(root, 'sub'))
    renameSync(join(root, 'cur'), join(root, 'old'))
    renameSync(join(root, 'next'), join(root, 'cur'))
    await vouchedFinds(root, 'firstversion', [])
    doc(root, 'sub/b.md', 'sub-b', 'laterfile')
    const x = join(root, 'cur/x.md')
    writeFileSync(x, readFileSync(x, 'utf8').replace('nextword', 'editedinswapped'))
    await vouchedFinds(root, 'laterfile', ['sub-b'])
    await vouchedFinds(root, 'editedinswapped', ['next-x'])
    await vouchedFinds(root, 'currentword', ['cur-x']) // now under old/
  })

  it('a folder marked as originals leaves the index, and comes back when the mark goes', async () => {
    const root = tempRoot()
    doc(root, 'keep/a.md', 'keep-a', 'keepword')
    doc(root, 'papers/g.md', 'papers-g', 'originalsword')
    await watching(root)
    await vouchedFinds(root, 'originalsword', ['papers-g'])
    mkdirSync(join(root, 'papers/.manifest'))
    await vouchedFinds(root, 'originalsword', [])
    rmdirSync(join(root, 'papers/.manifest'))
    await vouchedFinds(root, 'originalsword', ['papers-g'])
  })

  it('an edit that puts the old mtime back (touch -r, cp -p, rsync -t) is indexed: its ctime is new', async () => {
    const root = tempRoot()
    const file = doc(root, 'd/a.md', 'd-a', 'oldcontentword')
    await watching(root)
    await vouchedFinds(root, 'oldcontentword', ['d-a'])
    // touch -r copies the times to the nanosecond, as cp -p and rsync -t do.
    const times = join(root, '..', 'times')
    writeFileSync(times, '')
    execFileSync('touch', ['-r', file, times])
    writeFileSync(file, readFileSync(file, 'utf8').replace('oldcontentword', 'newcontentword'))
    execFileSync('touch', ['-r', times, file])
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(statSync(times, { bigint: true }).mtimeNs)
    await vouchedFinds(root, 'newcontentword', ['d-a'])
    await vouchedFinds(root, 'oldcontentword', [])
  })

  it('a FIFO named like a document is reported, and never blocks the watch (nor its signals)', async () => {
    const root = tempRoot()
    doc(root, 'a.md', 'root-a', 'keepword')
    const watch = await watching(root)
    let stderr = ''
    watch.stderr!.on('data', (d) => {
      stderr += d
    })
    execFileSync('mkfifo', [join(root, 'pipe.md')])
    doc(root, 'after.md', 'root-after', 'afterfifo')
    await vouchedFinds(root, 'afterfifo', ['root-after'])
    const exited = new Promise<number | null>((resolve) => watch.once('exit', resolve))
    watch.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stderr).toContain('pipe.md: is not a regular file')
  })

  it("changes past inotify's queue (12,000 rounds written while the watch was stopped) end fully indexed", async () => {
    const root = tempRoot()
    doc(root, 'keep/a.md', 'keep-a', 'keepword')
    mkdirSync(join(root, 'bulk'))
    const watch = await watching(root)
    // Two events a file, more than the 16,384 inotify queues by default while nobody reads them (the watch stopped,
    // as a busy or suspended process is): the rest are lost without a word, which a burst's check of every file finds.
    watch.kill('SIGSTOP')
    try {
      for (let i = 0; i < 12_000; i++) doc(root, `bulk/b${i}.md`, `bulk-${i}`, `bulkword w${i}`)
    } finally {
      watch.kill('SIGCONT')
    }
    await vouchedFinds(root, 'w11999', ['bulk-11999'])
    const listed = await spawnCollect(process.execPath, [BIN, 'list', '--root', root, '--json'], { env: { ...process.env, DSH_KNOWLEDGE_DEBUG: '1' } })
    expect(listed.stderr).toMatch(/ freshness vouched for by watcher \d+: no walk\)/)
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(12_001)
  })
})

describe('the watch in a burst (root-watch.ts)', () => {
  it('stops re-reading file by file, says it is behind, and asks for one check once the changes stop', async () => {
    const root = tempRoot()
    const events: string[] = []
    let changed = 0
    let resynced = (): void => {}
    const done = new Promise<void>((resolve) => {
      resynced = resolve
    })
    const watch = new RootWatch(
      root,
      { info() {}, warn() {}, debug() {} },
      {
        changed: () => void changed++,
        lost() {},
        appeared() {},
        behind: () => events.push('behind'),
        resync: (why) => {
          events.push(`resync: ${why}`)
          resynced()
        },
      },
    )
    watch.start()
    try {
      for (let i = 0; i < 3 * BURST_CHANGES; i++) doc(root, `f${i}.md`, `f-${i}`, 'burstword')
      await done
      // The test writes while its own event loop is held, so every event arrives in one go, whatever the machine's load.
      expect(events).toEqual(['behind', `resync: a burst of changes (${BURST_CHANGES} or more within 1000 ms)`])
      // Only what was debounced before the burst began was read file by file.
      expect(changed).toBeLessThan(BURST_CHANGES)
    } finally {
      watch.close()
    }
  })
})

describe("the watcher's shortcut for a file whose times are as indexed (manifest.ts, stampMatch)", () => {
  const row = { mtimeMs: 1_000_000, size: 120, ctimeMs: 1_000_000, seenMs: 1_000_000 + RACY_MS, hash: 'h1' }
  it('skips only what it can tell apart: times equal and indexed well after them', () => {
    expect(stampMatch(row, 120, 1_000_000, 1_000_000)).toEqual({ racy: false, hash: 'h1' })
    // Indexed within the timestamp granularity of the write: a second write of the same size would look the same.
    expect(stampMatch({ ...row, seenMs: 1_000_000 + RACY_MS - 1 }, 120, 1_000_000, 1_000_000)).toEqual({ racy: true, hash: 'h1' })
    expect(stampMatch({ ...row, seenMs: null }, 120, 1_000_000, 1_000_000)?.racy).toBe(true)
    expect(stampMatch(row, 121, 1_000_000, 1_000_000)).toBeUndefined()
    expect(stampMatch(row, 120, 1_000_000, 1_000_001)).toBeUndefined() // the old mtime put back: the ctime is new
    expect(stampMatch(row, 120, 1_000_001, 1_000_000)).toBeUndefined()
    expect(stampMatch({ ...row, size: null, ctimeMs: null }, 999, 1_000_000, 5)?.racy).toBe(false) // a row an older build wrote
    expect(stampMatch(undefined, 120, 1_000_000, 1_000_000)).toBeUndefined()
  })

  it("a watching store's own write is announced once: its watcher event, racy, is settled by the content", async () => {
    const root = tempRoot()
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: true })
    await store.start()
    const seen: string[] = []
    let marker = (): void => {}
    const markerSeen = new Promise<void>((resolve) => {
      marker = resolve
    })
    store.onChange((change) => {
      seen.push(`${change.type} ${change.id}`)
      if (change.id === 'marker-a') marker()
    })
    try {
      const written = await store.write({
        kind: 'raw',
        title: 'Own write',
        cwd: '/ws/app',
        session: 'a1b2c3d4-0000-4000-8000-000000000000',
        turn: 1,
        sections: [
          { heading: 'Question', text: 'q' },
          { heading: 'Answer', text: 'ownwriteword' },
        ],
      })
      // A file written by hand after it: the watcher reports in order, so once it is seen the own write's event was handled.
      doc(root, 'marker/a.md', 'marker-a', 'markerword')
      await markerSeen
      expect(seen.filter((s) => s === `written ${written.id}`)).toHaveLength(1)
      expect(store.search('ownwriteword').map((h) => h.id)).toEqual([written.id])
    } finally {
      await store.close()
    }
  })
})
