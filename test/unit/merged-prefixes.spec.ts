/**
 * Two machines' sessions share an 8-character id prefix and meet in one root (a team base merged through git): the
 * session that sorts first keeps the short ids, the other's documents take a longer prefix of their own session id.
 * Every process over the root must give the same ids, also one that starts while another holds the shared index and
 * re-reads files whose times changed (git rewrote them): an id the index already holds for a file is that file's own.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { cpSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { teamRedactor, teamRound } from '../harness/team-rounds.ts'

const X = 'session-abcd1234-aaaa-4000-8000-000000000001'
const Y = 'session-abcd1234-bbbb-4000-8000-000000000002'
const redactor = teamRedactor
const round = teamRound
const idMap = (store: KnowledgeStore) => Object.fromEntries(store.list({ limit: 100 }).items.map((m) => [m.id, m.path]))
const open: KnowledgeStore[] = []
async function started(root: string): Promise<KnowledgeStore> {
  const store = new KnowledgeStore({ root, redactor: redactor(), watch: false })
  open.push(store)
  await store.start()
  return store
}

afterEach(async () => {
  for (const store of open.splice(0)) await store.close()
})

describe('ids after two sessions with one prefix meet in a root', () => {
  it('are the same in a second process over the shared index, also for files it re-reads', async () => {
    const [a, b] = [mkdtempSync(join(tmpdir(), 'dsh-ks-prefix-a-')), mkdtempSync(join(tmpdir(), 'dsh-ks-prefix-b-'))]
    for (const [root, session, topics] of [
      [a, X, ['esbuild', 'the TLS proxy']],
      [b, Y, ['the docker cache', 'the flaky e2e test']],
    ] as const) {
      const store = await started(root)
      for (const [k, topic] of topics.entries()) expect((await captureRound(store, round(session, k + 1, topic), { minScore: 2 })).kept).toBe(true)
      expect(store.get('abcd1234-t1')?.session).toBe(session)
    }
    for (const store of open.splice(0)) await store.close()
    const folder = readdirSync(b).find((name) => name.includes('bbbb'))!
    cpSync(join(b, folder), join(a, folder), { recursive: true })

    const first = await started(a)
    const ids = idMap(first)
    expect(Object.keys(ids).sort()).toEqual(['abcd1234-t1', 'abcd1234-t2', 'abcd1234bbbb-t1', 'abcd1234bbbb-t2'])
    expect(first.get('abcd1234bbbb-t2')?.session).toBe(Y)

    // The teammate's files get new times (as a checkout gives them), so the next process reads them again while the
    // first one's index already holds their longer ids.
    const later = new Date(Date.UTC(2026, 11, 1))
    for (const name of readdirSync(join(a, folder))) utimesSync(join(a, folder, name), later, later)
    const second = await started(a)
    expect(idMap(second)).toEqual(ids)
    expect(idMap(first)).toEqual(ids)
  })
})
