/**
 * The page's first state-changing routes against a real `dsh web` with the packed bundle installed: retire (with a
 * reason) and restore through POST with the per-page token; a cross-origin form post, a foreign Host, a missing
 * token and a GET are refused; the ledger records the page as the actor; computed relations in the document route.
 * Build and pack first (`bash scripts/bootstrap.sh`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDshHome, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { ledgerEntries } from '../harness/files.ts'

let home: DshHome
let web: WebProcess
let port = 0

interface Answer {
  status: number
  body: any
}
function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = ''
      res.on('data', (d) => {
        text += d
      })
      res.on('end', () => {
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}
const origin = () => `http://127.0.0.1:${port}`

beforeAll(async () => {
  home = await createDshHome({ profile: 'web' })
  const dir = join(home.knowledgeRoot, 'manual')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'old-proxy.md'),
    '---\nid: old-proxy\ntitle: Proxy needs port 8080\nkind: note\nstatus: superseded\nsuperseded_by: new-proxy\n---\n\n# Proxy needs port 8080\n\nThe office proxy listens on 8080.\n',
  )
  writeFileSync(
    join(dir, 'new-proxy.md'),
    '---\nid: new-proxy\ntitle: Proxy moved to port 3128\nkind: note\nsupersedes: [old-proxy]\n---\n\n# Proxy moved to port 3128\n\nThe office proxy listens on 3128 since May; see [the old note](./old-proxy.md).\n',
  )
  web = await home.web()
  port = Number(new URL(web.url).port)
}, 180_000)
afterAll(async () => {
  await web?.stop()
})

describe('state-changing routes on real dsh web', () => {
  it('serves computed relations with the document: superseded by, linked from, links as ids', async () => {
    const old = await call('GET', '/knowledge/documents/old-proxy', { accept: 'application/json' })
    expect(old.status).toBe(200)
    expect(old.body.supersededBy).toEqual({ id: 'new-proxy', title: 'Proxy moved to port 3128' })
    expect(old.body.linkedFrom).toEqual([{ id: 'new-proxy', title: 'Proxy moved to port 3128' }])
    const fresh = await call('GET', '/knowledge/documents/new-proxy', { accept: 'application/json' })
    expect(fresh.body.body).toContain('[the old note](old-proxy)')
    expect(fresh.body.supersedes).toEqual([{ id: 'old-proxy', title: 'Proxy needs port 8080', status: 'superseded' }])
  })

  it('refuses a cross-origin form post, a foreign Host, a missing token and a GET; nothing changes', async () => {
    const token = (await call('POST', '/knowledge/token', { origin: origin(), 'content-type': 'application/json' }, '{}')).body.token as string
    const form = await call('POST', '/knowledge/documents/new-proxy/retire', { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, 'reason=pwned')
    expect(form.status).toBe(403)
    expect(form.body.error).toMatch(/origin "http:\/\/evil\.example" is not this page's origin/)
    const foreign = await call(
      'POST',
      '/knowledge/documents/new-proxy/retire',
      { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'content-type': 'application/json', 'x-knowledge-token': token },
      '{"reason":"x"}',
    )
    expect(foreign.status).toBe(403)
    expect(foreign.body.error).toMatch(/host "evil\.example" is not loopback or trusted/)
    const noToken = await call('POST', '/knowledge/documents/new-proxy/retire', { origin: origin(), 'content-type': 'application/json' }, '{"reason":"x"}')
    expect(noToken.status).toBe(403)
    expect(noToken.body.error).toMatch(/page token/)
    const get = await call('GET', '/knowledge/documents/new-proxy/retire', { accept: 'application/json' })
    expect(get.status).toBe(404)
    const list = await call('GET', '/knowledge/documents', { accept: 'application/json' })
    expect(list.body.items.map((i: { id: string }) => i.id).sort()).toEqual(['new-proxy', 'old-proxy'])
    expect(ledgerEntries(home.knowledgeRoot).filter((e) => e.type === 'status')).toEqual([])
  })

  it('retires with a reason and restores, through POST with the page token; recorded in the ledger as the page', async () => {
    const token = (await call('POST', '/knowledge/token', { origin: origin(), 'content-type': 'application/json' }, '{}')).body.token as string
    const headers = { origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': token }
    const noReason = await call('POST', '/knowledge/documents/new-proxy/retire', headers, '{}')
    expect(noReason.status).toBe(400)
    expect(noReason.body.error).toMatch(/"reason" is required/)
    const retired = await call('POST', '/knowledge/documents/new-proxy/retire', headers, JSON.stringify({ reason: 'The proxy was removed in June.' }))
    expect(retired).toEqual({ status: 200, body: { id: 'new-proxy', status: 'retired' } })
    const list = await call('GET', '/knowledge/documents', { accept: 'application/json' })
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual(['old-proxy'])
    const onlyRetired = await call('GET', '/knowledge/documents?status=retired', { accept: 'application/json' })
    expect(onlyRetired.body.items).toMatchObject([{ id: 'new-proxy', status: 'retired' }])
    const restored = await call('POST', '/knowledge/documents/new-proxy/restore', headers, '{}')
    expect(restored).toEqual({ status: 200, body: { id: 'new-proxy', status: 'active' } })
    expect(ledgerEntries(home.knowledgeRoot).filter((e) => e.type === 'status')).toMatchObject([
      { id: 'new-proxy', status: 'retired', reason: 'The proxy was removed in June.', actor: 'page' },
      { id: 'new-proxy', status: 'active', actor: 'page' },
    ])
  })
})
