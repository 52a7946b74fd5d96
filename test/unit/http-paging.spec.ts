/**
 * Honest counts and paging through the document routes over a real store: 200 documents match one error code; the
 * page is told more exist beyond the first window, and paging reaches every one of them exactly once. Also the recent
 * rounds route the salience chart reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { createHandler } from '../../src/http/routes.js'
import { captureRound } from '../../src/capture/keep-round.js'

let server: Server
let port = 0
let store: KnowledgeStore
const GH = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'

const get = (path: string): Promise<any> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      let text = ''
      res.on('data', (d) => {
        text += d
      })
      res.on('end', () => resolve(JSON.parse(text)))
    })
      .on('error', reject)
      .end()
  })

beforeAll(async () => {
  store = new KnowledgeStore({ root: join(mkdtempSync(join(tmpdir(), 'dsh-ks-paging-')), 'kb'), redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  for (let k = 0; k < 200; k++) {
    await store.write({
      kind: 'raw',
      title: `Install ${k} fails`,
      cwd: '/ws',
      session: `session-${String(k).padStart(8, '0')}-aaaa`,
      turn: 1,
      sections: [{ heading: 'Answer', text: `ERR_PNPM_FETCH_404 on package ${k}: the registry URL was wrong.` }],
    })
  }
  for (const [turn, answer] of [
    [1, 'All 12 tests passed.'],
    [2, 'Done.'],
  ] as const) {
    await captureRound(
      store,
      { session: 'session-dropped-1', turn, cwd: '/ws', created: new Date().toISOString(), outcome: 'completed', tools: [], question: `run the tests with GITHUB_TOKEN=${GH} please`, answer },
      { minScore: 2 },
    )
  }
  await captureRound(
    store,
    {
      session: 'session-raised-bar',
      turn: 1,
      cwd: '/ws',
      created: new Date().toISOString(),
      outcome: 'completed',
      tools: [],
      question: 'Why does the deploy fail?',
      answer: 'The cause was a stale `DATABASE_URL` in `.env.production`; the fix is to update it and redeploy, because the migration reads it first.',
    },
    { minScore: 50 },
  )
  server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50 }))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
}, 180_000)
afterAll(async () => {
  server.close()
  await store.close()
})

describe('honest counts', () => {
  it('says more than a page matches, and paging reaches all 200 matches once each', async () => {
    const first = await get('/knowledge/documents?q=ERR_PNPM_FETCH_404&limit=50')
    expect(first.items).toHaveLength(50)
    expect(first.more).toBe(true)
    expect(first.total).toBeGreaterThan(50)
    const seen = new Set<string>(first.items.map((i: { id: string }) => i.id))
    let offset = 50
    let last = first
    while (last.more || offset < last.total) {
      last = await get(`/knowledge/documents?q=ERR_PNPM_FETCH_404&limit=50&offset=${offset}`)
      for (const item of last.items) seen.add(item.id)
      offset += 50
      if (offset > 1000) break
    }
    expect(seen.size).toBe(200)
    expect(last.more).toBe(false)
    expect(last.total).toBe(200)
  })

  it('lists without a query with the exact total', async () => {
    const page = await get('/knowledge/documents?limit=50&offset=150')
    expect(page.total).toBe(200)
    expect(page.items).toHaveLength(50)
  })
})

describe('recent rounds for the salience chart', () => {
  it('lists dropped rounds with their score, reason and a redacted title', async () => {
    const body = await get('/knowledge/rounds')
    const dropped = body.rounds.filter((r: { kept: boolean }) => !r.kept)
    expect(dropped).toHaveLength(3)
    // A round the default bar keeps, dropped by a raised bar, is counted as such, not as a weak signal.
    expect(dropped[2]).toMatchObject({ title: 'Why does the deploy fail?', reason: '-below-bar' })
    expect(dropped[2].score).toBeGreaterThanOrEqual(2)
    expect(dropped[0]).toMatchObject({ kept: false, reason: expect.stringMatching(/^-/) })
    expect(dropped[0].title).toContain('run the tests with GITHUB_TOKEN=')
    expect(JSON.stringify(body)).not.toContain(GH)
    expect(body.minScore).toBeNull()
  })
})
