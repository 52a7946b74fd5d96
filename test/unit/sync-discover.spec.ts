/**
 * discover against a real server on 127.0.0.1: sitemaps (and sitemap indexes), the origin's /sitemap.xml, a
 * bounded breadth-first crawl, robots.txt honoured, new URLs recorded as pending with a generated decisions.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { KnowledgeSync } from '../../src/sync/service.js'
import { MD_BANNER } from '../../src/sync/decisions.js'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'

let server: WebServer
beforeAll(async () => {
  server = await startWebServer()
})
afterAll(async () => {
  await server.close()
})
const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
  server.seen.length = 0
  server.routes.clear()
})

function setup(yml: string) {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-disc-')), 'kb')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'sources.yml'), yml)
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  stores.push(store)
  return { root, sync: new KnowledgeSync(store, { fetcher: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 } }) }
}
const html = (...links: string[]) => text(`<html><body>${links.map((l) => `<a href="${l}">x</a>`).join(' ')}</body></html>`, 'text/html')
const urlset = (...locs: string[]) =>
  text(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`, 'application/xml')

describe('discover', () => {
  it('reads a sitemap index and its sitemaps, skips what robots.txt disallows, and records pending URLs', async () => {
    const u = server.url
    server.routes.set('/robots.txt', text('User-agent: *\nDisallow: /private\n', 'text/plain'))
    server.routes.set(
      '/sitemap_index.xml',
      text(`<?xml version="1.0"?><sitemapindex><sitemap><loc>${u}/s1.xml</loc></sitemap><sitemap><loc>${u}/s2.xml</loc></sitemap></sitemapindex>`, 'application/xml'),
    )
    server.routes.set('/s1.xml', urlset(`${u}/docs/a`, `${u}/private/secret`, `${u}/docs/a?x=1&amp;y=2`))
    server.routes.set('/s2.xml', urlset(`${u}/docs/b`, 'http://elsewhere.example/x'))
    const { root, sync } = setup(`roots:\n  - { name: site, url: "${u}/sitemap_index.xml" }\n`)
    const [result] = await sync.discover()
    expect(result).toMatchObject({ root: 'site', method: 'sitemap', found: 3, added: 3, skippedByRobots: 1 })
    const { decisions } = await sync.decisions.read()
    expect(decisions.map((d) => d.url).sort()).toEqual([`${u}/docs/a`, `${u}/docs/a?x=1&y=2`, `${u}/docs/b`])
    expect(decisions.every((d) => d.status === 'pending' && d.root === 'site' && d.discovered_at)).toBe(true)
    expect(server.seen.map((s) => s.path)).not.toContain('/private/secret')
    const md = readFileSync(join(root, '.knowledge/decisions.md'), 'utf8')
    expect(md.startsWith(MD_BANNER)).toBe(true)
    expect(md).toContain('## pending (3)')
    // Running again adds nothing new.
    expect((await sync.discover())[0].added).toBe(0)
    // regenerate-md rebuilds the file from decisions.json.
    writeFileSync(join(root, '.knowledge/decisions.md'), 'hand edit')
    expect(await sync.decisions.regenerate()).toBe(md)
  }, 180_000)

  it('falls back to a breadth-first crawl bounded by max_depth and max_urls, under the root, honouring robots.txt', async () => {
    const u = server.url
    server.routes.set('/robots.txt', text('User-agent: *\nDisallow: /docs/private\n', 'text/plain'))
    server.routes.set('/docs/', html('a', 'b', '/docs/private/x', '/other', 'https://elsewhere.example/', 'mailto:x@y.z', '#top'))
    server.routes.set('/docs/a', html('/docs/a/deep', '/docs/'))
    server.routes.set('/docs/b', html('/docs/b/deep'))
    server.routes.set('/docs/a/deep', html('/docs/a/deeper'))
    server.routes.set('/docs/b/deep', html())
    server.routes.set('/docs/private/x', html())
    const { sync } = setup(`roots:\n  - { name: docs, url: "${u}/docs/", max_depth: 1, max_urls: 50 }\n`)
    const [result] = await sync.discover()
    expect(result).toMatchObject({ method: 'crawl', found: 3, skippedByRobots: 1 })
    const urls = (await sync.decisions.read()).decisions.map((d) => d.url).sort()
    expect(urls).toEqual([`${u}/docs/`, `${u}/docs/a`, `${u}/docs/b`])
    const paths = server.seen.map((s) => s.path)
    expect(paths.filter((p) => p === '/robots.txt')).toHaveLength(1)
    expect(paths).toContain('/sitemap.xml')
    expect(paths).not.toContain('/docs/private/x')
    expect(paths).not.toContain('/docs/a/deep')
    expect(paths).not.toContain('/other')
    // Every request to the one host, across the whole run, at least 0.5 s apart.
    const times = server.seen.map((s) => s.at)
    for (let k = 1; k < times.length; k++) expect(times[k] - times[k - 1]).toBeGreaterThanOrEqual(495)
  }, 180_000)

  it("keeps only the URLs under a sitemap root's directory, and records none that carries a credential", async () => {
    const u = server.url
    const secretish = [
      `${u}/docs/report?token=9f8e7d6c5b4a39281706f5e4d3c2b1a0`,
      `${u}/docs/signed?X-Amz-Signature=0123abcd&X-Amz-Date=20260101`,
      `${u}/docs/k?key=ghp_0123456789abcdefABCDEF0123456789abcd`,
      `${u}/docs/p?user=ann&password=hunter2hunter2`,
      `${u.replace('://', '://ann:pw@')}/docs/inline`,
    ]
    server.routes.set('/docs/sitemap.xml', urlset(`${u}/docs/a`, `${u}/docs/b?page=2&sort=asc`, `${u}/admin/panel`, `${u}/docsearch`, `${u}/`, ...secretish))
    const { root, sync } = setup(`roots:\n  - { name: docs, url: "${u}/docs/sitemap.xml" }\n`)
    const [result] = await sync.discover()
    expect(result).toMatchObject({ method: 'sitemap', found: 2, added: 2, skippedCredentials: 4 })
    const { decisions } = await sync.decisions.read()
    expect(decisions.map((d) => d.url).sort()).toEqual([`${u}/docs/a`, `${u}/docs/b?page=2&sort=asc`])
    const stored = readFileSync(join(root, '.knowledge/decisions.json'), 'utf8') + readFileSync(join(root, '.knowledge/decisions.md'), 'utf8')
    for (const secret of ['9f8e7d6c5b4a', '0123abcd', 'ghp_0123', 'hunter2', 'ann:pw', '/admin/']) expect(stored).not.toContain(secret)
  }, 180_000)

  it("names a synced section's source with its credentials masked: the document never holds the token", async () => {
    server.routes.set('/feed', text('upstream text'))
    const { root, sync } = setup(`sources:\n  - { name: feed, type: http, url: "${server.url}/feed?page=1&sig=a1b2c3&token=letmein2026", target: { file: d.md, section: s } }\n`)
    writeFileSync(join(root, 'd.md'), '---\nid: d\n---\n<!-- upstream:start name="s" -->\n<!-- upstream:end -->\n')
    const report = await sync.run()
    expect(report.results[0].status).toBe('changed')
    const doc = readFileSync(join(root, 'd.md'), 'utf8')
    expect(doc).toContain(`<!-- upstream:source ${server.url}/feed?page=1&sig=[REDACTED]&token=[REDACTED] -->`)
    expect(doc).toContain('upstream text')
  }, 180_000)

  it('uses the origin /sitemap.xml for a page root, keeps only URLs under it, and stops at max_urls', async () => {
    const u = server.url
    server.routes.set('/sitemap.xml', urlset(`${u}/guide/1`, `${u}/guide/2`, `${u}/guide/3`, `${u}/blog/1`))
    const { sync } = setup(`roots:\n  - { name: g, url: "${u}/guide/", max_urls: 2 }\n  - { name: b, url: "${u}/blog/" }\n`)
    const results = await sync.discover()
    expect(results.map((r) => [r.root, r.method, r.found])).toEqual([
      ['g', 'origin-sitemap', 2],
      ['b', 'origin-sitemap', 1],
    ])
    // Two roots, one host: still one robots.txt fetch and spaced requests.
    expect(server.seen.filter((s) => s.path === '/robots.txt')).toHaveLength(1)
  }, 180_000)
})
