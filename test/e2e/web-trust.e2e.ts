/**
 * The store's trust fixes and the Host checks against a real `dsh web` (0.1.0-rc.8) with the packed bundle, in the
 * order a user meets them: the knowledge root does not exist when dsh web boots and documents written later by the
 * CLI appear without a restart (issue 10, item 6); a symbolic link made in the root while dsh web runs never serves
 * the outside file (item 2, the reported reproduction). Then strict Host parsing and dsh web's own settings API
 * (item 10). Our routes: a Host with anything after the bracketed literal and an absolute-form target
 * naming another host are refused by the running server, not only by the unit-tested guard. dsh's `/api`: the
 * settings write the Config tab uses (`settings.mutate`) is fenced by dsh itself (Host, Origin, Sec-Fetch-Site, JSON
 * only), so a DNS-rebinding or cross-site page cannot switch `redact.enabled` off; a loopback request with no
 * browser markers can (the positive control), which is why the page asks before it does (issue 16, item 2).
 * If a later dsh drops that fence, this file fails and the decision in README "Live settings" must be revisited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDshHome, PROJECT_ROOT, type WebProcess } from '../harness/dsh.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
let root: string
let outside: string

let web: WebProcess

interface Reply {
  status: number
  body: string
}
function send(path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const url = new URL(web.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const loopbackHost = () => new URL(web.url).host
let rpc = 0
/** One `settings.mutate` call of dsh's /api, as the Config tab sends it, with the given headers laid over the defaults. */
function mutate(value: boolean, headers: Record<string, string> = {}): Promise<Reply> {
  const body = JSON.stringify({ type: 'client-request', rpcId: `t-${++rpc}`, method: 'settings.mutate', payload: { ns: 'knowledge', ops: [{ op: 'set', path: ['redact', 'enabled'], value }] } })
  return send('/api/settings.mutate', { method: 'POST', headers: { host: loopbackHost(), 'content-type': 'application/json', ...headers }, body })
}
const redactionEnabled = async () => JSON.parse((await send('/knowledge/stats', { headers: { host: loopbackHost() } })).body).redactionEnabled as boolean

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), 'dsh-ks-guard-'))
  // Not created: the root is missing when dsh web boots.
  root = join(base, 'knowledge')
  outside = join(base, 'outside')
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.md'), '---\nid: stolen\ntitle: Outside\n---\n\nthe outside-secret-77aa lives here\n')
  const home = await createDshHome({ profile: 'web', knowledgeRoot: root })
  web = await home.web()
})
afterAll(async () => {
  await web?.stop()
})

const getJson = async (path: string) => {
  const reply = await send(path, { headers: { host: loopbackHost() } })
  return { status: reply.status, body: reply.body, json: JSON.parse(reply.body) as any }
}

describe('the store under a running dsh web (10.6, 10.2)', () => {
  it('indexes a root created after boot: a round the CLI writes later appears without a restart', async () => {
    expect((await getJson('/knowledge/stats')).json.documents).toBe(0)
    const round = {
      session: 'session-1a2b3c4d-0000-4000-8000-000000000001',
      turn: 1,
      cwd: '/work/proj',
      question: 'Why does the deploy fail?',
      answer: 'Root cause: the deploy key expired; rotated it and pinned the runner image because the old one lacked ssh.',
      outcome: 'completed',
      tools: [],
    }
    execFileSync(process.execPath, [CLI, 'capture', '--root', root, '--min-score', '0'], { input: JSON.stringify(round) })
    await expect.poll(async () => (await getJson('/knowledge/documents')).json.items?.map((d: { id: string }) => d.id), { timeout: 60_000 }).toEqual(['1a2b3c4d-t1'])
  })

  it('never serves a file outside the root through a link made while it runs (the reported reproduction)', async () => {
    symlinkSync(join(outside, 'secret.md'), join(root, 'notes.md'))
    // Give the watcher time to see the link (it must refuse it), then ask for it every way the page would.
    await expect.poll(async () => JSON.stringify((await getJson('/knowledge/stats')).json.invalidFiles), { timeout: 60_000 }).toMatch(/notes\.md.*symbolic link/)
    for (const id of ['notes', 'stolen']) {
      const doc = await getJson(`/knowledge/documents/${id}`)
      expect(doc.status).toBe(404)
      expect(doc.body).not.toContain('outside-secret-77aa')
    }
    expect((await getJson('/knowledge/documents?q=outside-secret-77aa')).json.items).toEqual([])
  })

  it('an indexed document replaced by a link is never served', async () => {
    const [item] = (await getJson('/knowledge/documents')).json.items
    const full = join(root, item.path)
    execFileSync('rm', [full])
    symlinkSync(join(outside, 'secret.md'), full)
    const doc = await getJson(`/knowledge/documents/${item.id}`)
    expect(doc.status).toBe(404)
    expect(doc.body).not.toContain('outside-secret-77aa')
    expect(doc.body).toMatch(/symbolic link|no document/)
  })
})

describe('strict Host on the running dsh web (10.10)', () => {
  it('refuses a Host with text after the bracketed IPv6 literal, and accepts the literal itself', async () => {
    const port = new URL(web.url).port
    expect((await send('/knowledge/stats', { headers: { host: `[::1]evil.com:${port}` } })).status).toBe(403)
    expect((await send('/knowledge/stats', { headers: { host: '[::1]evil.com' } })).status).toBe(403)
    expect((await send('/knowledge/stats', { headers: { host: `[::1]:${port}` } })).status).toBe(200)
  })

  it('refuses an absolute-form target naming another host, even with a loopback Host', async () => {
    const refused = await send('http://evil.com/knowledge/stats', { headers: { host: loopbackHost() } })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatch(/forbidden/)
    expect((await send(`http://${loopbackHost()}/knowledge/stats`, { headers: { host: loopbackHost() } })).status).toBe(200)
  })
})

describe("dsh web's own settings API at rc.8 (10.10)", () => {
  it('refuses a rebound Host, a foreign Origin, a cross-site fetch and a simple (non-JSON) post; redaction stays on', async () => {
    expect(await redactionEnabled()).toBe(true)
    expect((await mutate(false, { host: `evil.example:${new URL(web.url).port}` })).status).toBe(403)
    expect((await mutate(false, { origin: 'http://evil.example' })).status).toBe(403)
    expect((await mutate(false, { origin: 'http://localhost:5173' })).status).toBe(403)
    expect((await mutate(false, { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await mutate(false, { 'content-type': 'text/plain' })).status).toBe(415)
    expect(await redactionEnabled()).toBe(true)
  })

  it('a same-origin loopback write is accepted (the positive control), and redaction follows it live', async () => {
    const off = await mutate(false, { origin: web.url })
    expect(off.status, off.body).toBe(200)
    expect(off.body).not.toMatch(/settings-rejected|"error"/)
    await expect.poll(redactionEnabled, { timeout: 60_000 }).toBe(false)
    const on = await mutate(true, { origin: web.url })
    expect(on.status, on.body).toBe(200)
    await expect.poll(redactionEnabled, { timeout: 60_000 }).toBe(true)
  })
})
