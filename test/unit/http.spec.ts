/**
 * The JSON routes over a real store and a real node:http server on 127.0.0.1: listing, search, filters, one
 * document, stats, config; loopback-only access, JSON 404s, read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { createHandler } from '../../src/http/routes.js'
import { PageTokens, parseHost, refusal } from '../../src/http/guard.js'

let server: Server
let port = 0
let store: KnowledgeStore
const echoed: unknown[] = []

function get(path: string, host = `127.0.0.1:${port}`, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<{ status: number; type: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host, ...headers } }, (res) => {
      let text = ''
      res.on('data', (d) => {
        text += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text ? JSON.parse(text) : undefined }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

beforeAll(async () => {
  store = new KnowledgeStore({ root: join(mkdtempSync(join(tmpdir(), 'dsh-ks-http-')), 'kb'), redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  const write = (session: string, cwd: string, title: string, answer: string, kind: 'raw' | 'note' = 'raw', tools = ['bash']) =>
    store.write({
      kind,
      title,
      cwd,
      session,
      turn: 1,
      suffix: kind === 'note' ? 'n1' : 't1',
      tags: kind === 'note' ? ['ci'] : ['pnpm'],
      sections: [{ heading: 'Answer', text: answer }],
      tools: tools.map((name) => ({ name, arguments: '{}' })),
    })
  await write('session-aaaa1111-0000-4000-8000-000000000000', '/ws/a', 'Why does pnpm fail?', 'ERR_PNPM_EACCES: fix the store dir.')
  await write('session-bbbb2222-0000-4000-8000-000000000000', '/ws/b', 'Flaky test', 'Set TZ=UTC in CI.', 'note', [])
  await write('session-cccc3333-0000-4000-8000-000000000000', '/ws/a/sub', '<script>alert(1)</script>', 'Render me as text.', 'raw', ['read_file'])
  store.settings.publish('recall', () => ({ announce: true, sameWorkspaceOnly: true, searchLimit: 8 }))
  server = createServer(
    createHandler(store, {
      path: '/knowledge',
      trustedHosts: ['kb.local'],
      pageSize: 50,
      mutations: [
        {
          pattern: /^\/echo$/,
          run: async (_m, body) => {
            echoed.push(body)
            return { ok: true }
          },
        },
      ],
    }),
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.close()
  await store.close()
})

describe('routes', () => {
  it('lists documents newest first with facets, and pages', async () => {
    const all = await get('/knowledge/documents')
    expect(all.status).toBe(200)
    expect(all.type).toMatch(/^application\/json/)
    expect(all.body.total).toBe(3)
    expect(all.body.facets.kinds).toEqual({ raw: 2, note: 1 })
    const page = await get('/knowledge/documents?limit=1&offset=1')
    expect(page.body.items).toHaveLength(1)
    expect(page.body.total).toBe(3)
  })

  it('searches through the same engine as the tools and filters by kind, tag, tool and workspace', async () => {
    expect((await get('/knowledge/documents?q=ERR_PNPM_EACCES')).body.items[0].id).toBe('aaaa1111-t1')
    expect((await get('/knowledge/documents?kind=note')).body.items.map((i: any) => i.id)).toEqual(['bbbb2222-n1'])
    expect((await get('/knowledge/documents?tag=ci')).body.items.map((i: any) => i.id)).toEqual(['bbbb2222-n1'])
    expect((await get('/knowledge/documents?tool=read*')).body.items.map((i: any) => i.id)).toEqual(['cccc3333-t1'])
    const scoped = await get(`/knowledge/documents?cwd=${encodeURIComponent('/ws/a')}`)
    expect(scoped.body.items.map((i: any) => i.id).sort()).toEqual(['aaaa1111-t1', 'cccc3333-t1'])
  })

  it('serves one document with its front matter and body, and a JSON 404 for unknown or hostile ids', async () => {
    const doc = await get('/knowledge/documents/aaaa1111-t1')
    expect(doc.body.meta.title).toBe('Why does pnpm fail?')
    expect(doc.body.body).toContain('ERR_PNPM_EACCES')
    for (const bad of ['nope-t9', '..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd']) {
      const res = await get(`/knowledge/documents/${bad}`)
      expect(res.status).toBe(404)
      expect(res.body.error).toBeTruthy()
    }
  })

  it('serves stats and the live config', async () => {
    const stats = await get('/knowledge/stats')
    expect(stats.body.documents).toBe(3)
    expect(stats.body.byKind).toEqual({ raw: 2, note: 1 })
    const config = await get('/knowledge/config')
    expect(config.body.attached).toBe(false)
    expect(config.body.sections.recall.effective.searchLimit).toBe(8)
  })

  it('answers unknown sub-paths with a JSON 404 and refuses writes', async () => {
    const res = await get('/knowledge/nope')
    expect(res.status).toBe(404)
    expect(res.type).toMatch(/^application\/json/)
    expect((await get('/knowledge/documents', undefined, 'POST')).status).toBe(405)
    expect((await get('/knowledge/documents', undefined, 'DELETE')).status).toBe(405)
  })

  it('refuses a foreign Host header with 403, and accepts loopback and trusted names', async () => {
    const evil = await get('/knowledge/documents', 'evil.example')
    expect(evil.status).toBe(403)
    expect(evil.body.error).toMatch(/not loopback or trusted/)
    expect((await get('/knowledge/documents', `localhost:${port}`)).status).toBe(200)
    expect((await get('/knowledge/documents', 'kb.local')).status).toBe(200)
    expect((await get('/knowledge/documents', '127.0.0.1.evil.example')).status).toBe(403)
  })
})

describe('loopback check', () => {
  const req = (remoteAddress: string, host?: string) => ({ socket: { remoteAddress }, headers: { host } }) as unknown as IncomingMessage
  it('refuses non-loopback peers whatever the Host says', () => {
    expect(refusal(req('10.1.2.3', '127.0.0.1'), [])).toMatch(/not loopback/)
    expect(refusal(req('192.168.0.9', 'localhost'), [])).toMatch(/not loopback/)
    expect(refusal(req('::ffff:10.0.0.1', 'localhost'), [])).toMatch(/not loopback/)
  })
  it('accepts loopback peers naming a loopback host', () => {
    expect(refusal(req('127.0.0.1', '127.0.0.1:3080'), [])).toBeUndefined()
    expect(refusal(req('::1', '[::1]:3080'), [])).toBeUndefined()
    expect(refusal(req('::ffff:127.0.0.1', 'localhost'), [])).toBeUndefined()
    expect(refusal(req('127.0.0.1', undefined), [])).toMatch(/host/)
    expect(parseHost('LocalHost:80')).toEqual({ host: 'localhost', port: '80' })
  })
})

describe('strict Host and request target', () => {
  it('refuses a Host with anything after the bracketed literal, and absolute-form targets naming another host', async () => {
    expect((await get('/knowledge/stats', '[::1]evil.com')).status).toBe(403)
    expect((await get('/knowledge/stats', '127.0.0.1:3080 evil.com')).status).toBe(403)
    expect((await get('/knowledge/stats', '127.0.0.1:99999')).status).toBe(403)
    expect((await get('http://evil.com/knowledge/stats', `127.0.0.1:${port}`)).status).toBe(403)
    expect((await get(`http://127.0.0.1:${port}/knowledge/stats`, `127.0.0.1:${port}`)).status).toBe(200)
  })
})

describe('state-changing routes', () => {
  const origin = () => `http://127.0.0.1:${port}`
  const mint = (headers: Record<string, string> = { origin: origin(), 'content-type': 'application/json' }) => get('/knowledge/token', `127.0.0.1:${port}`, 'POST', headers, '{}')
  const token = async () => (await mint()).body.token as string
  const post = (headers: Record<string, string>, host = `127.0.0.1:${port}`) => get('/knowledge/echo', host, 'POST', headers, JSON.stringify({ n: 1 }))

  it('runs for a same-origin JSON POST carrying a page token', async () => {
    const before = echoed.length
    const res = await post({ origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': await token(), 'sec-fetch-site': 'same-origin' })
    expect(res.status).toBe(200)
    expect(echoed.length).toBe(before + 1)
  })

  it('refuses a cross-origin form post, a foreign Host, a missing or forged token, and GET', async () => {
    const before = echoed.length
    const t = await token()
    const form = await post({ origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' })
    expect(form.status).toBe(403)
    expect((await post({ origin: 'http://evil.example', 'content-type': 'application/json', 'x-knowledge-token': t })).body.error).toMatch(/origin/)
    expect((await post({ origin: 'http://evil.example:80', 'content-type': 'application/json', 'x-knowledge-token': t }, 'evil.example:80')).status).toBe(403)
    expect((await post({ origin: origin(), 'content-type': 'application/json' })).body.error).toMatch(/token/)
    expect((await post({ origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': 'x'.repeat(32) })).body.error).toMatch(/token/)
    // 32 latin-1 characters: 32 characters, 64 bytes once encoded; refused, not thrown.
    expect((await post({ origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': '\u00e9'.repeat(32) })).body.error).toMatch(/token/)
    expect((await post({ origin: origin(), 'content-type': 'text/plain', 'x-knowledge-token': t })).body.error).toMatch(/json/)
    for (const type of ['application/jsonx', 'application/json-seq', 'application/json/x', 'application/json x', 'application/jsonp; charset=utf-8'])
      expect((await post({ origin: origin(), 'content-type': type, 'x-knowledge-token': t })).body.error, type).toMatch(/json/)
    expect((await get('/knowledge/echo')).status).toBe(404)
    expect(echoed.length).toBe(before)
  })
})

describe('minting page tokens', () => {
  const origin = () => `http://127.0.0.1:${port}`
  const mint = (headers: Record<string, string>) => get('/knowledge/token', `127.0.0.1:${port}`, 'POST', headers, '{}')
  const retire = (token: string) => get('/knowledge/echo', `127.0.0.1:${port}`, 'POST', { origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': token }, '{}')

  it('refuses GET and cross-origin mints, so another site cannot flush the live page token', async () => {
    const live = (await mint({ origin: origin(), 'content-type': 'application/json' })).body.token as string
    expect((await retire(live)).status).toBe(200)
    for (let i = 0; i < 200; i++) {
      const answer = i % 2 ? await get('/knowledge/token') : await mint({ origin: 'http://evil.example', 'content-type': 'application/json' })
      expect(answer.status).toBeGreaterThanOrEqual(403)
      expect(answer.body.token).toBeUndefined()
    }
    expect((await mint({ 'content-type': 'application/json' })).status).toBe(403)
    expect((await retire(live)).status).toBe(200)
  })

  it('keeps a token in use when the page itself mints past the bound (least recently used goes first)', () => {
    const tokens = new PageTokens(4)
    const live = tokens.issue()
    for (let i = 0; i < 10; i++) {
      tokens.issue()
      expect(tokens.valid(live)).toBe(true)
    }
    const idle = tokens.issue()
    for (let i = 0; i < 4; i++) tokens.issue()
    expect(tokens.valid(idle)).toBe(false)
  })
})

describe('page tokens', () => {
  it('refuses a token whose characters number 32 but whose bytes do not, without throwing', () => {
    const tokens = new PageTokens()
    const issued = tokens.issue()
    expect(tokens.valid(issued)).toBe(true)
    for (const forged of ['\u00e9'.repeat(32), '\u00ff'.repeat(16), '\u{1F600}'.repeat(8), `${issued.slice(0, 31)}\u00e9`]) expect(tokens.valid(forged)).toBe(false)
  })
})
