/**
 * Hostile tests of the write path's new order (index first, file next), the checkpoint worker and the claim fast
 * path. Real files, real SQLite, real processes.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { allDocuments } from '../harness/files.ts'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import type { DocumentDraft, StoreChange } from '../../src/knowledge/store.js'
import { roundDraft, storeFixture } from '../harness/stores.ts'

const { open, closeAll, tmpRoot } = storeFixture('attack14')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** The fixture's round with a large third section, so a write's file takes a while to land. */
const draft = (answer: string, over: Partial<DocumentDraft> = {}): DocumentDraft => {
  const round = roundDraft(answer)
  return { ...round, sections: [...round.sections, { heading: 'Notes', text: 'filler '.repeat(9000) }], ...over }
}
/** Writes `seed` into `root` with a store that is then closed, as an earlier process would have. */
async function seeded(root: string, seed = draft('seed', { turn: 0 })): Promise<void> {
  await open(root).write(seed)
  await closeAll()
}

describe('the watcher and a rewrite in flight', () => {
  it('a watcher event of the previous write, seen while the next write of the same id is in flight, does not leave the old text indexed', async () => {
    const root = tmpRoot()
    const store = open(root, true)
    await store.start()
    const stale: string[] = []
    for (let d = 0; d <= 44 && !stale.length; d += 2) {
      const a = `zqa${d}x`
      const b = `zqb${d}x`
      const first = await store.write(draft(`The culprit was ${a}.`))
      await sleep(d)
      await store.write(draft(`The culprit was ${b}.`))
      await sleep(120)
      const onDisk = readFileSync(join(root, first.path), 'utf8')
      expect(onDisk).toContain(b)
      if (!store.text(first.id)?.includes(b) || store.search(b)[0]?.id !== first.id) stale.push(`delay ${d}: index has ${store.text(first.id)?.match(/zq[ab]\d+x/)?.[0]}`)
    }
    expect(stale).toEqual([])
  }, 180_000)
})

describe('the checkpoint worker and a burst of writes', () => {
  it('keeps the WAL of a watching store bounded while rounds are written in a row', async () => {
    const root = tmpRoot()
    await seeded(root, draft('seed'))
    const store = open(root, true)
    await store.start()
    // The worker is started by the warm-up; give it its first turn.
    await sleep(300)
    const wal = join(root, '.knowledge', 'cache', 'index-v4.sqlite-wal')
    let largest = 0
    for (let turn = 2; turn < 300; turn++) {
      await store.write(draft(`word${turn} `.repeat(2000), { turn, sections: [{ heading: 'Answer', text: `word${turn} `.repeat(2000) }] }))
      largest = Math.max(largest, statSync(wal).size)
    }
    // SQLite's own default keeps it near 8 MB; the worker alone let it reach ~50 MB here (it never catches up).
    expect(largest).toBeLessThan(24 * 1024 * 1024)
  }, 120_000)
})

describe('a rewrite whose file write fails', () => {
  it('leaves status, text and links as the disk has them, and the watcher still follows the file', async () => {
    const root = tmpRoot()
    const first = open(root)
    const note = (title: string, text: string, over: Partial<DocumentDraft> = {}): DocumentDraft => ({
      kind: 'note',
      title,
      cwd: '/ws',
      session: 'notes',
      sections: [{ heading: 'Note', text }],
      ...over,
    })
    const b = await first.write(note('Bee', 'zqbee target', { suffix: 'n1' }))
    const c = await first.write(note('Cee', 'zqcee target', { suffix: 'n2' }))
    const a = await first.write(note('Ay', `zqay links to [bee](${b.id})`, { suffix: 'n3' }))
    await closeAll()
    // A hand-named file: the temporary name of its atomic write (`.<name>.<pid>.<hex>.tmp`) is too long for the disk.
    const long = `notes/${'a'.repeat(240)}.md`
    renameSync(join(root, a.path), join(root, long))
    const store = open(root, true)
    await store.start()
    expect(store.linkedFrom(b.id)).toEqual([a.id])
    await expect(store.setStatus(a.id, { to: 'retired', reason: 'old' }, 'test')).rejects.toThrow(/cannot write/)
    await expect(store.write(note('Ay', `zqnew links to [cee](${c.id})`, { replaceId: a.id }))).rejects.toThrow(/cannot write/)
    expect(store.get(a.id)?.status).toBeUndefined()
    expect(store.search('zqnew')).toEqual([])
    expect(store.search('zqay')[0]?.id).toBe(a.id)
    expect(store.linkedFrom(b.id)).toEqual([a.id])
    expect(store.linkedFrom(c.id)).toEqual([])
    // A hand edit afterwards is seen by the watcher (nothing is left waiting for a write that never landed).
    writeFileSync(join(root, long), readFileSync(join(root, long), 'utf8').replace('zqay', 'zqedited'))
    for (let i = 0; i < 3000 && !store.search('zqedited').length; i++) await sleep(20) // a minute at most: a hang guard
    expect(store.search('zqedited')[0]?.id).toBe(a.id)
  })
})

describe('change events of a watching store', () => {
  it('tells the listeners once per write, new rounds and rewrites alike', async () => {
    const root = tmpRoot()
    await seeded(root)
    const store = open(root, true)
    await store.start()
    const events: StoreChange[] = []
    store.onChange((change) => events.push(change))
    const ids: string[] = []
    for (let turn = 1; turn <= 12; turn++) {
      ids.push((await store.write(draft(`zqnew${'abcdefghijkl'[turn - 1]}x`, { turn }))).id)
      await sleep(turn * 4)
      ids.push((await store.write(draft(`zqagain${'abcdefghijkl'[turn - 1]}x`, { turn }))).id)
      await sleep(turn * 3)
    }
    await sleep(300)
    expect(events.map((e) => `${e.type} ${e.id}`)).toEqual(ids.map((id) => `written ${id}`))
    for (let turn = 1; turn <= 12; turn++) expect(store.search(`zqagain${'abcdefghijkl'[turn - 1]}x`)).toHaveLength(1)
  }, 180_000)
})

describe('a writer killed between the index and the file', () => {
  it('a fresh start on the persisted index shows exactly the documents on disk, after each of several kills', async () => {
    const root = tmpRoot()
    await seeded(root)
    const script = join(PROJECT_ROOT, 'test/harness/write-many.ts')
    for (let round = 0; round < 3; round++) {
      const before = allDocuments(root).length
      // Its own store owns the persisted index (the dead owner's lock is taken over): a kill leaves an entry committed
      // to the WAL for a document whose file was still being written.
      const child = spawn(process.execPath, [script, root, `session-cccc000${round}-0000-4000-8000-000000000001`, '100000', 'big'], { stdio: 'ignore' })
      const end = Date.now() + 60_000
      while (allDocuments(root).length < before + 3 + round * 5 && Date.now() < end) await sleep(5)
      child.kill('SIGKILL')
      await new Promise((r) => child.on('close', r))
      const onDisk = allDocuments(root).map((doc) => parseDocument(doc.text, doc.path, 'x', 0).meta.id)
      const store = open(root)
      await store.start()
      expect(
        store
          .list({ limit: 1000 } as never)
          .items.map((item) => item.id)
          .sort(),
      ).toEqual([...onDisk].sort())
      expect(store.size).toBe(onDisk.length)
      await closeAll()
    }
  }, 180_000)
})

describe('`.knowledge` replaced by a link after the first claim', () => {
  it('writes no id claim through the link', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.write(draft('first', { session: 'session-aaaa1111-0000-4000-8000-000000000000' }))
    expect(readdirSync(join(root, '.knowledge', 'ids'))).toEqual(['aaaa1111'])
    // Someone swaps the folder for a link to a place outside the root that has an `ids` folder of its own.
    const outside = mkdtempSync(join(tmpdir(), 'dsh-ks-outside-'))
    mkdirSync(join(outside, 'ids'))
    mkdirSync(join(outside, 'locks'))
    rmSync(join(root, '.knowledge'), { recursive: true })
    symlinkSync(outside, join(root, '.knowledge'))
    await store.write(draft('second', { session: 'session-bbbb2222-0000-4000-8000-000000000000' })).catch(() => {})
    expect(readdirSync(join(outside, 'ids'))).toEqual([])
    expect(readdirSync(join(outside, 'locks'))).toEqual([])
  })
})

describe('closing while the worker checkpoints', () => {
  it('a store closed mid-checkpoint and opened again at once keeps every document, and a read-only reader meanwhile sees a whole index', async () => {
    const root = tmpRoot()
    await seeded(root)
    let turn = 1
    for (let round = 0; round < 3; round++) {
      const store = open(root, true)
      await store.start()
      await sleep(100)
      for (const end = turn + 40; turn < end; turn++) await store.write(draft(`zqround${round} `.repeat(3000), { turn }))
      const worker = (store as unknown as { indexed: { index: { cycle: { checkpointer?: { poke(): void } } } } }).indexed.index.cycle.checkpointer
      expect(worker).toBeDefined()
      worker!.poke()
      const reader = open(root, false, { readOnly: true })
      await reader.start()
      expect(reader.size).toBe(turn)
      await reader.close()
      await closeAll()
    }
    const last = open(root)
    await last.start()
    expect(last.size).toBe(turn)
    for (let round = 0; round < 3; round++) expect(last.search(`zqround${round}`, { limit: 100 } as never)).toHaveLength(40)
  }, 120_000)
})

describe('the same round after a failed write', () => {
  it('is written under the same id once the way is clear, and found once', async () => {
    const root = tmpRoot()
    const store = open(root, true)
    await store.write(draft('seed', { turn: 0 }))
    await store.start()
    const d = draft('The culprit was zqxblocked.')
    const { id, path } = await store.prepare(d, { dryRun: true })
    mkdirSync(join(root, path, 'in-the-way'), { recursive: true })
    await expect(store.write(d)).rejects.toThrow(/cannot write/)
    rmSync(join(root, path), { recursive: true })
    const again = await store.write(draft('The culprit was zqxcleared.'))
    expect(again.id).toBe(id)
    await sleep(150)
    expect(store.search('zqxcleared').map((hit) => hit.id)).toEqual([id])
    expect(store.search('zqxblocked')).toEqual([])
    expect(store.size).toBe(2)
    expect((await store.read(id))?.body).toContain('zqxcleared')
  })
})

describe('`.knowledge` cleared while the store runs', () => {
  it('makes the claims and locks folders again, and a new session still claims its prefix', async () => {
    const root = tmpRoot()
    const store = open(root)
    await store.write(draft('first', { session: 'session-aaaa1111-0000-4000-8000-000000000000' }))
    rmSync(join(root, '.knowledge'), { recursive: true })
    const second = await store.write(draft('second', { session: 'session-bbbb2222-0000-4000-8000-000000000000' }))
    expect(second.id).toBe('bbbb2222-t1')
    expect(readdirSync(join(root, '.knowledge', 'ids'))).toEqual(['bbbb2222'])
    expect(readdirSync(join(root, '.knowledge', 'locks'))).toEqual([])
    expect(store.search('second').map((hit) => hit.id)).toContain('bbbb2222-t1')
  })
})

describe('a reading process beside the owner', () => {
  // Spawns lib/ (build first, as the multi-process tests of store.spec.ts do): a CLI-like reader opening, searching
  // and closing the owner's index again and again.
  const READER = `
    const [lib, root, n] = process.argv.slice(1)
    const { KnowledgeStore } = await import(lib + '/knowledge/store.js')
    const { createRedactor } = await import(lib + '/redact/redactor.js')
    for (let i = 0; i < Number(n); i++) {
      const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, readOnly: true })
      await store.start()
      store.search('zqburst')
      await store.close()
    }`

  it('never makes the owner writes fail while it opens and closes the index (its close does not checkpoint)', async () => {
    const root = tmpRoot()
    await seeded(root)
    const store = open(root, true)
    await store.start()
    const child = spawn(process.execPath, ['--input-type=module', '-e', READER, join(PROJECT_ROOT, 'lib'), root, '15'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    let running = true
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    void exited.then(() => (running = false))
    const failures: string[] = []
    let turn = 1
    for (; running; turn++) await store.write(draft(`zqburst w${turn} `.repeat(500), { turn })).catch((error: Error) => failures.push(`turn ${turn}: ${error.message}`))
    expect(await exited, stderr).toBe(0)
    expect(failures).toEqual([])
    expect(store.size).toBe(turn)
  }, 120_000)
})
