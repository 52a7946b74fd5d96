/**
 * The persisted index keeps each document's revision with its row (search/schema.ts, REV_COLUMN), so a process that
 * reused the index shows a hit's or a listed document's `v:N` without the revision log: at a million documents the
 * log is ~90 MB, and a first search spent 0.7 s looking its hits up in it, the second 2.9 s folding it. A row written
 * by an older build (no revision) still gets it from the log; a file made before the column existed gets the column.
 * Real files, a real persisted index, the real revision log.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { CACHE_DIR, CACHE_FILE } from '../../src/knowledge/index-cache/index-cache.js'
import { REVISIONS_FILE } from '../../src/knowledge/logs/revisions.js'
import { LEDGER_DIR } from '../../src/knowledge/logs/ledger.js'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { createRedactor } from '../../src/redact/redactor.js'
import type { FrontMatter } from '../../src/types.js'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

async function session(root: string, look: (store: KnowledgeStore) => void = () => {}): Promise<void> {
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  stores.push(store)
  await store.start()
  look(store)
  await store.close()
  stores.pop()
}

function put(root: string, id: string, body: string): void {
  mkdirSync(join(root, 'notes'), { recursive: true })
  const file = join(root, 'notes', `${id}.md`)
  const meta = { id, title: `Doc ${id}`, kind: 'manual', cwd: '', created: '2026-01-01T00:00:00.000Z', tags: [], tools: [] } as FrontMatter
  writeFileSync(file, formatDocument(meta, body))
  const t = new Date(Date.now() - 60_000 + body.length) // old enough not to be racy, and a new mtime per text
  utimesSync(file, t, t)
}

/** A root whose `edited` document is at revision 3 and `once` at 1, indexed by stores that closed since. */
async function revised(): Promise<string> {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-rev-row-')), 'kb')
  put(root, 'edited-document', 'the walrus text, first')
  put(root, 'once-document', 'the walrus text that stays')
  await session(root)
  put(root, 'edited-document', 'the walrus text, second version')
  await session(root)
  put(root, 'edited-document', 'the walrus text, third and last version')
  await session(root)
  return root
}
const log = (root: string) => join(root, LEDGER_DIR, REVISIONS_FILE)
/** Runs `sql` on the root's index file, as an older build or a hand would have left it. */
function onCache(root: string, sql: string): void {
  const db = new DatabaseSync(join(root, CACHE_DIR, CACHE_FILE))
  db.exec(sql)
  db.close()
}
const versions = (store: KnowledgeStore) => ({
  hits: Object.fromEntries(store.search('walrus').map((h) => [h.id, h.version])),
  listed: Object.fromEntries(store.list().items.map((m) => [m.id, m.version])),
})

describe('the revision kept with the row', () => {
  it('shows revisions in a reused index without the revision log', async () => {
    const root = await revised()
    let seen: ReturnType<typeof versions> | undefined
    await session(root, (store) => (seen = versions(store)))
    expect(seen).toEqual({ hits: { 'edited-document': 3, 'once-document': 1 }, listed: { 'edited-document': 3, 'once-document': 1 } })
    // The log moved away: the rows still say which revision they hold.
    renameSync(log(root), `${log(root)}.aside`)
    writeFileSync(log(root), '')
    await session(root, (store) => (seen = versions(store)))
    expect(seen).toEqual({ hits: { 'edited-document': 3, 'once-document': 1 }, listed: { 'edited-document': 3, 'once-document': 1 } })
  })

  it('a row written without it (an older build) gets it from the log', async () => {
    const root = await revised()
    onCache(root, 'UPDATE doc SET rev = NULL')
    let seen: ReturnType<typeof versions> | undefined
    await session(root, (store) => (seen = versions(store)))
    expect(seen?.hits).toEqual({ 'edited-document': 3, 'once-document': 1 })
    expect(
      readFileSync(log(root), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('edited-document ')).length,
    ).toBe(3)
  })

  it("a watching owner's warm-up writes the revision into rows an older build left without one", async () => {
    const root = await revised()
    onCache(root, 'UPDATE doc SET rev = NULL')
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: true })
    stores.push(store)
    await store.start()
    await (store as unknown as { indexed: { warmed: Promise<void> } }).indexed.warmed
    ;(store as unknown as { index: { flush(): void } }).index.flush()
    const after = new DatabaseSync(join(root, CACHE_DIR, CACHE_FILE), { readOnly: true })
    expect(
      after
        .prepare('SELECT id, rev FROM doc ORDER BY id')
        .all()
        .map((r) => ({ ...r })),
    ).toEqual([
      { id: 'edited-document', rev: 3 },
      { id: 'once-document', rev: 1 },
    ])
    after.close()
  })

  it('a file made before the column existed gets it, and keeps its documents', async () => {
    const root = await revised()
    onCache(root, 'ALTER TABLE doc DROP COLUMN rev')
    let seen: ReturnType<typeof versions> | undefined
    await session(root, (store) => (seen = versions(store)))
    expect(seen?.hits).toEqual({ 'edited-document': 3, 'once-document': 1 })
    const after = new DatabaseSync(join(root, CACHE_DIR, CACHE_FILE), { readOnly: true })
    expect(after.prepare("SELECT count(*) AS n FROM pragma_table_info('doc') WHERE name = 'rev'").get()).toEqual({ n: 1 })
    expect(after.prepare('SELECT count(*) AS n FROM doc').get()).toEqual({ n: 2 })
    after.close()
  })
})
