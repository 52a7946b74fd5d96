/**
 * The check behind a watching start (issue 30, item 5: a reused start of a million documents would otherwise wait
 * for a stat of every file). A watching store that reuses a large index with no owner to vouch for it is ready once
 * the index is open; the check of every file runs after, indexes and announces what changed while no process ran,
 * and only then does the store keep a freshness stamp. `DSH_KNOWLEDGE_FRESHNESS=behind` makes a small root behave as
 * a large one; `=walk`, and a one-shot reader, wait as before. Real files, a real persisted index, a real watcher.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore, type StoreLogger } from '../../src/knowledge/store.js'
import type { StoreChange } from '../../src/knowledge/store-types.js'
import { CACHE_DIR } from '../../src/knowledge/index-cache/index-cache.js'
import { CHECK_BEHIND_FROM, checksBehind, FRESHNESS_ENV } from '../../src/knowledge/index-cache/watch-stamp.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { FrontMatter } from '../../src/types.js'
import { logRecorder, roundDraft } from '../harness/stores.ts'
import type { StoreIndex } from '../../src/knowledge/view/store-index.js'
import type { KnowledgeDoc } from '../../src/types.js'

const stores: KnowledgeStore[] = []
const before = process.env[FRESHNESS_ENV]
beforeEach(() => {
  process.env[FRESHNESS_ENV] = 'behind'
})
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
  if (before === undefined) delete process.env[FRESHNESS_ENV]
  else process.env[FRESHNESS_ENV] = before
})

function open(root: string, watch: boolean, logger?: StoreLogger) {
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch, logger })
  stores.push(store)
  return store
}

const old = (file: string) => {
  const t = new Date(Date.now() - 60_000)
  utimesSync(file, t, t)
}
function put(root: string, id: string, body: string): string {
  mkdirSync(join(root, 'notes'), { recursive: true })
  const file = join(root, 'notes', `${id}-doc.md`)
  const meta = { id, title: `Doc ${id}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter
  writeFileSync(file, formatDocument(meta, body))
  old(file)
  return file
}
const ids = (store: KnowledgeStore, q: string) => store.search(q).map((h) => h.id)
const stamps = (root: string) => readdirSync(join(root, CACHE_DIR)).filter((n) => /^watcher-\d+\.json$/.test(n))
const checked = (store: KnowledgeStore) => (store as unknown as { indexed: { checked: Promise<void> } }).indexed.checked

/** A root indexed and closed, then changed while no process ran: d1 edited, d2 deleted, d9 added. */
async function changedWhileClosed() {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-behind-')), 'kb')
  const animals = ['zebra', 'giraffe', 'walrus', 'narwhal']
  const files = animals.map((animal, i) => put(root, `d${i}`, `document ${i} about the ${animal}`))
  const first = open(root, false)
  await first.start()
  await first.close()
  stores.pop()
  put(root, 'd1', 'document 1 now about the pelican, rewritten while no process ran')
  rmSync(files[2])
  put(root, 'd9', 'document 9 about the ocelot, pulled while no process ran')
  return root
}

describe('the check behind a watching start', () => {
  it('is ready before the check ends; the check indexes and announces what changed while no process ran, then stamps', async () => {
    const root = await changedWhileClosed()
    const log = logRecorder()
    const store = open(root, true, log.logger)
    const changes: StoreChange[] = []
    store.onChange((change) => changes.push(change))
    await store.start()
    let over = false
    void checked(store).then(() => (over = true))
    // Ready on the index as it was saved: the check has not ended, and no reader may trust this process yet.
    expect(over).toBe(false)
    expect(stamps(root)).toEqual([])
    expect(ids(store, 'walrus')).toEqual(['d2'])
    expect(log.lines.some((l) => l.level === 'info' && /ready now; its files are checked against it in the background/.test(l.text))).toBe(true)
    await checked(store)
    expect(over).toBe(true)
    expect(ids(store, 'ocelot')).toEqual(['d9'])
    expect(ids(store, 'pelican')).toEqual(['d1'])
    expect(ids(store, 'giraffe')).toEqual([])
    expect(ids(store, 'walrus')).toEqual([])
    expect(store.size).toBe(4)
    const said = changes.map((c) => `${c.type} ${'id' in c ? c.id : ''}`).sort()
    expect(said).toEqual(['removed d2', 'written d1', 'written d9'])
    expect(stamps(root)).toEqual([`watcher-${process.pid}.json`])
    expect(log.lines.find((l) => l.text.startsWith('indexed'))?.text).toMatch(/index reused: kept 2, read 2, restamped 0, dropped 1; freshness checked behind/)
    expect(log.warnings()).toEqual([])
  })

  it('loses nothing written while the check runs, and indexes nothing twice', async () => {
    const root = await changedWhileClosed()
    const store = open(root, true)
    await store.start()
    const written = await store.write(roundDraft('The flaky build was the capybara fixture, pinned now.'))
    await checked(store)
    expect(ids(store, 'capybara')).toEqual([written.id])
    expect(ids(store, 'ocelot')).toEqual(['d9'])
    expect(store.size).toBe(5)
    // A fresh process on the same root sees the same base.
    const again = open(root, false)
    await again.start()
    expect(again.size).toBe(5)
    expect(ids(again, 'capybara')).toEqual([written.id])
  })

  it('keeps a write of its own that is indexed but not yet on disk when the check compares (the file lands after)', async () => {
    const root = await changedWhileClosed()
    const store = open(root, true)
    await store.start()
    // What a write is between its index and its file (writes/commit.ts): the check runs while it is so.
    const indexed = (store as unknown as { indexed: StoreIndex }).indexed
    const path = 'session-11112222-0000-4000-8000-000000000000/11112222-t7-landing.md'
    const meta = { id: '11112222-t7', title: 'Landing', kind: 'raw', cwd: '', created: new Date().toISOString(), tags: [], tools: [], session: 'session-11112222-0000-4000-8000-000000000000', turn: 7 }
    indexed.admitWritten({ id: meta.id, path, meta, body: 'The heron fixture was flaky.', mtimeMs: Date.now() } as unknown as KnowledgeDoc)
    await checked(store)
    expect(ids(store, 'heron')).toEqual([meta.id])
    expect(ids(store, 'ocelot')).toEqual(['d9'])
  })

  it('a store closed during the check ends it: nothing is written after, nothing is warned', async () => {
    const root = await changedWhileClosed()
    const log = logRecorder()
    const store = open(root, true, log.logger)
    await store.start()
    await store.close()
    await checked(store)
    expect(stamps(root)).toEqual([])
    expect(log.warnings()).toEqual([])
    // What the check would have found is found by the next start.
    process.env[FRESHNESS_ENV] = 'walk'
    const next = open(root, false)
    await next.start()
    expect(ids(next, 'ocelot')).toEqual(['d9'])
    expect(ids(next, 'walrus')).toEqual([])
  })

  it('waits for the check with DSH_KNOWLEDGE_FRESHNESS=walk, and in a one-shot reader (no watcher)', async () => {
    for (const [mode, watch] of [
      ['walk', true],
      ['behind', false],
    ] as const) {
      const root = await changedWhileClosed()
      process.env[FRESHNESS_ENV] = mode
      const store = open(root, watch)
      await store.start()
      // Already exact when start resolves.
      expect(ids(store, 'ocelot')).toEqual(['d9'])
      expect(ids(store, 'walrus')).toEqual([])
    }
  })

  it('applies from CHECK_BEHIND_FROM documents unless told', () => {
    delete process.env[FRESHNESS_ENV]
    expect(checksBehind(CHECK_BEHIND_FROM - 1)).toBe(false)
    expect(checksBehind(CHECK_BEHIND_FROM)).toBe(true)
    process.env[FRESHNESS_ENV] = 'walk'
    expect(checksBehind(10 * CHECK_BEHIND_FROM)).toBe(false)
    process.env[FRESHNESS_ENV] = 'behind'
    expect(checksBehind(1)).toBe(true)
  })
})
