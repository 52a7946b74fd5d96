/**
 * A reused persisted index ranks exactly as a fresh build of the same files: after 150 edits on disk (bodies
 * rewritten, titles changed, files removed and added), the top 20 of a fixed query set are identical, in order.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatDocument } from '../../src/knowledge/documents/document.js'
import { CACHE_DIR } from '../../src/knowledge/index-cache/index-cache.js'
import { mulberry32 } from '../harness/rng.ts'
import { storeFixture } from '../harness/stores.ts'

const { open, closeAll, tmpRoot } = storeFixture('cache-rank')

const WORDS =
  'cache build proxy deploy timeout pnpm install docker image layer kubernetes pod restart memory leak heap socket retry backoff token expiry redis cluster shard replica index query plan vacuum wal checkpoint lock contention thread pool queue worker cron schedule tls certificate renewal dns resolver latency p99 histogram metric alert pager runbook rollback canary flag'.split(
    ' ',
  )
const QUERIES = [
  'cache build',
  'proxy timeout',
  'redis cluster shard',
  'tls certificate renewal',
  'memory leak heap',
  'deploy rollback canary',
  'wal checkpoint lock',
  'dns latency',
  'token expiry retry',
  'pnpm install docker',
]

function text(rng: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(rng() * WORDS.length)]).join(' ')
}

function writeDoc(root: string, k: number, rng: () => number): void {
  // Written over time: a document's created time follows its number, and an edit keeps it.
  const created = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString()
  const meta = { id: `doc-${k}`, title: text(rng, 3), kind: 'note', created, cwd: '/ws', tags: [WORDS[k % WORDS.length]] }
  writeFileSync(join(root, 'notes', `doc-${k}.md`), formatDocument(meta as never, `# ${meta.title}\n\n${text(rng, 20 + Math.floor(rng() * 200))}\n`))
}

const top = async (root: string) => {
  // A small scoring budget, so common-word queries take the approximate plans that a large corpus takes.
  const store = open(root, false, { index: { scoreBudget: 60 } })
  await store.start()
  const ranked = QUERIES.map((q) => store.search(q, { limit: 20 }).map((h) => `${h.id}`))
  await closeAll()
  return ranked
}

describe('a reused cache after many edits', () => {
  it('ranks the top 20 of every query exactly as a fresh build of the same files', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, 'notes'), { recursive: true })
    const rng = mulberry32(23)
    for (let k = 0; k < 1500; k++) writeDoc(root, k, rng)
    await top(root)
    // 150 edits across three restarts: rewritten bodies, new documents, removed ones.
    // (A removed document does not come back: one written again with its old created time is a new row, placed
    // last in a reused index but by its time in a rebuild; see the search docs.)
    const removed = new Set<number>()
    let next = 1500
    for (let round = 0; round < 3; round++) {
      for (let e = 0; e < 50; e++) {
        const k = Math.floor(rng() * 1500)
        if (removed.has(k)) continue
        if (e % 10 === 9) {
          unlinkSync(join(root, 'notes', `doc-${k}.md`))
          removed.add(k)
        } else if (e % 10 === 8) writeDoc(root, next++, rng)
        else writeDoc(root, k, rng)
      }
      await top(root)
    }
    const reused = await top(root)
    rmSync(join(root, CACHE_DIR), { recursive: true, force: true })
    const fresh = await top(root)
    for (let q = 0; q < QUERIES.length; q++) expect(reused[q], QUERIES[q]).toEqual(fresh[q])
  }, 120_000)
})
