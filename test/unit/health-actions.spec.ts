/**
 * Health findings a person can act on (issue 28, item 6): superseded documents stay out of the probe, totals are
 * counted past the lists' cap, near-duplicate pairs carry both titles, a probe reports its progress, the page's
 * last probe survives (GET /health/last), one pair is superseded from the page through the guarded POST route, and
 * the CLI prints the same totals.
 * @module dsh-knowledge-sync/test/unit/health-actions
 */
import { mkdtempSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { health as healthCommand } from '../../src/cli/health.js'
import { supersede } from '../../src/knowledge/corrections/correct.js'
import { probeHealth } from '../../src/knowledge/reports/health.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { healthRoutes } from '../../src/http/health-routes.js'
import { statusMutations } from '../../src/http/mutations.js'
import { createHandler } from '../../src/http/routes.js'
import { createRedactor } from '../../src/redact/redactor.js'

const SESSION = 'session-4ea1b7e2-0000-4000-8000-000000000002'
let root = ''
let store: KnowledgeStore
let server: Server
let port = 0
const ids: Record<string, string> = {}

const note = async (title: string, finding: string) =>
  (await store.write({ kind: 'note', title, cwd: '/work/app', session: SESSION, suffix: store.nextNoteSuffix(SESSION), sections: [{ heading: 'Finding', text: finding }] })).id

function call(path: string, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

beforeAll(async () => {
  root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-health-actions-')), 'kb')
  store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false })
  ids.onCi = await note('Docker layer cache misses on CI', 'COPY package.json before the sources so the install layer is reused.')
  ids.inCi = await note('Docker layer cache misses in CI builds', 'COPY package.json before the sources so the install layer is reused.')
  ids.old = await note('Postgres migration locks the orders table', 'Run CREATE INDEX CONCURRENTLY outside the transaction so writes keep flowing.')
  ids.newer = await note('Postgres migration: create the index concurrently', 'Use CREATE INDEX CONCURRENTLY, outside any transaction.')
  await supersede(store, { id: ids.old, by: ids.newer }, undefined, 'cli')
  // More unfindable documents than a report lists (50): words that find nothing.
  for (let k = 0; k < 55; k++) await note('???', '…')
  const health = healthRoutes(store, 500)
  server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50, mutations: [...statusMutations(store), health.mutation], reads: health.reads }))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
}, 120_000)
afterAll(async () => {
  server?.close()
  await store?.close()
})

describe('the probe', () => {
  it('leaves superseded documents out, counts past the cap, names both documents of a pair, and reports progress', async () => {
    const progress: Array<[number, number]> = []
    const report = await probeHealth(store, { record: false, onProgress: (done, total) => progress.push([done, total]) })
    expect(report.documents).toBe(58)
    expect(report.probed).toBe(58)
    expect(report.unfindable.some((u) => u.id === ids.old)).toBe(false)
    expect(report.unfindableTotal).toBe(55)
    expect(report.unfindable).toHaveLength(50)
    expect(report.nearDuplicatesTotal).toBe(1)
    const [pair] = report.nearDuplicates
    expect([pair.aTitle, pair.bTitle].sort()).toEqual(['Docker layer cache misses in CI builds', 'Docker layer cache misses on CI'])
    expect(progress[0]).toEqual([0, 58])
    expect(progress.at(-1)).toEqual([58, 58])
  })
})

describe('the page routes', () => {
  const origin = () => `http://127.0.0.1:${port}`
  const token = async () => (await call('/knowledge/token', 'POST', { origin: origin(), 'content-type': 'application/json' }, '{}')).body.token as string
  const post = (path: string, headers: Record<string, string>, body: unknown) => call(`/knowledge${path}`, 'POST', headers, JSON.stringify(body))

  it('keep the last probe from the page, so the findings survive switching tabs', async () => {
    expect((await call('/knowledge/health/last')).body).toEqual({})
    const run = await post('/health/run', { origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': await token() }, {})
    expect(run.status).toBe(200)
    const last = (await call('/knowledge/health/last')).body
    expect(last.last).toMatchObject({ unfindableTotal: 55, nearDuplicatesTotal: 1, probed: 58 })
    expect(last.running).toBeUndefined()
  })

  it('supersede one near-duplicate with the other, behind the guard: a cross-origin POST or a missing token changes nothing', async () => {
    const path = `/documents/${encodeURIComponent(ids.onCi)}/supersede`
    const crossSite = await post(path, { origin: 'http://evil.example', 'content-type': 'application/json', 'x-knowledge-token': await token() }, { by: ids.inCi })
    expect(crossSite.status).toBe(403)
    const noToken = await post(path, { origin: origin(), 'content-type': 'application/json' }, { by: ids.inCi })
    expect(noToken.status).toBe(403)
    expect(noToken.body.error).toMatch(/token/)
    expect(store.get(ids.onCi)?.status ?? 'active').toBe('active')
    const done = await post(path, { origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': await token() }, { by: ids.inCi })
    expect(done.status).toBe(200)
    expect(done.body).toEqual({ id: ids.onCi, by: ids.inCi, status: 'superseded' })
    expect(store.get(ids.onCi)?.status).toBe('superseded')
    expect((await store.read(ids.inCi))?.meta.supersedes).toEqual([ids.onCi])
    // Now out of the probe: no pair is left.
    expect((await probeHealth(store, { record: false })).nearDuplicatesTotal).toBe(0)
  })

  it('the CLI prints the totals the page shows, not the length of what it lists', async () => {
    const out: string[] = []
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk))
      return true
    })
    try {
      await healthCommand({ values: { root }, positionals: [] })
    } finally {
      spy.mockRestore()
    }
    const text = out.join('')
    expect(text).toMatch(/^57 of 57 document\(s\) probed/)
    expect(text).toContain('not found by their own words: 55, the first 10:')
    expect(text.split('\n').filter((l) => l.includes(' — ???'))).toHaveLength(10)
  })
})
