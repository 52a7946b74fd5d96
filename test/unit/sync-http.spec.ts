/**
 * The Sources routes over a real sync service, store and HTTP servers on 127.0.0.1: the list (no network), the
 * dry-run diff, "Sync now" behind the state-change guard, and the page's answer when the sync row is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { createHandler } from '../../src/http/routes.js'
import { sourceRoutes } from '../../src/http/sources.js'
import { KnowledgeSync } from '../../src/sync/service.js'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'

let upstream: WebServer
let server: Server
let port = 0
let store: KnowledgeStore
let root = ''
let sync: KnowledgeSync | undefined

function call(path: string, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let t = ''
      res.on('data', (d) => {
        t += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: t ? JSON.parse(t) : undefined }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
const post = async (path: string, extra: Record<string, string> = {}) => {
  const token = (await call('/knowledge/token', 'POST', { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' }, '{}')).body.token as string
  return call(path, 'POST', { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json', 'x-knowledge-token': token, ...extra }, '{}')
}

beforeAll(async () => {
  upstream = await startWebServer({ '/page': text('fresh upstream text') })
  root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-shttp-')), 'kb')
  mkdirSync(root, { recursive: true })
  writeFileSync(
    join(root, 'sources.yml'),
    `sources:\n  - { name: page, type: http, url: "${upstream.url}/page", target: { file: d.md, section: s } }\n  - { name: bad, type: http, url: "ftp://x", target: { file: d.md, section: s } }\n`,
  )
  writeFileSync(join(root, 'd.md'), '---\nid: d\n---\n<!-- upstream:start name="s" -->\nold\n<!-- upstream:end -->\n')
  store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  sync = new KnowledgeSync(store, { fetcher: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 } })
  const routes = sourceRoutes(() => sync)
  server = createServer(createHandler(store, { path: '/knowledge', trustedHosts: [], pageSize: 50, mutations: routes.mutations, reads: routes.reads }))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.close()
  await upstream.close()
  await store.close()
})

describe('the Sources routes', () => {
  it('lists sources with no network request, then shows a dry-run diff, then syncs on a guarded POST', async () => {
    const list = await call('/knowledge/sources')
    expect(list.status).toBe(200)
    expect(list.body.available).toBe(true)
    expect(list.body.sources.map((s: any) => [s.name, s.origin])).toEqual([
      ['page', 'declared'],
      ['bad', 'invalid'],
    ])
    expect(list.body.sources[0].cache).toBeNull()
    expect(upstream.seen).toHaveLength(0)

    // A cross-origin POST cannot sync.
    const forged = await call('/knowledge/sources/sync', 'POST', { origin: 'http://evil.example', 'content-type': 'application/json' }, '{}')
    expect(forged.status).toBe(403)
    expect(upstream.seen).toHaveLength(0)

    const dry = await post('/knowledge/sources/dry-run')
    expect(dry.status).toBe(200)
    expect(dry.body.dryRun).toBe(true)
    expect(dry.body.results.find((r: any) => r.name === 'page')).toMatchObject({ status: 'would-change', diff: expect.stringContaining('+fresh upstream text') })
    expect(readFileSync(join(root, 'd.md'), 'utf8')).toContain('\nold\n')

    const now = await post('/knowledge/sources/sync')
    expect(now.body.results.find((r: any) => r.name === 'page')).toMatchObject({ status: 'changed', from_cache: true })
    expect(readFileSync(join(root, 'd.md'), 'utf8')).toContain('fresh upstream text')
    const after = await call('/knowledge/sources')
    expect(after.body.sources[0]).toMatchObject({ last: { status: 'changed' }, cache: { fresh: true } })
    expect(after.body.lastRun).toBeTruthy()
  })

  it('says the sync row is off when its service is absent', async () => {
    const saved = sync
    sync = undefined
    try {
      expect((await call('/knowledge/sources')).body).toMatchObject({ available: false, sources: [] })
      expect((await post('/knowledge/sources/sync')).body.error).toMatch(/knowledge-sync row is not running/)
    } finally {
      sync = saved
    }
  })
})
