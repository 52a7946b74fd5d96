/**
 * After a sync run replaces a section, every reader shows the same revision: the list (the page's Documents tab),
 * the search hit, the read (document view, API, CLI) — one source of the revision.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { KnowledgeSync } from '../../src/sync/service.js'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'

let server: WebServer
beforeAll(async () => {
  server = await startWebServer({ '/limits': text('Rate limits: 100 requests per minute.') })
})
afterAll(async () => {
  await server.close()
})
const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

describe('the revision after Sync now', () => {
  it('is v:2 in the list, the search hit and the read alike', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-syncrev-'))
    writeFileSync(join(root, 'vendor.md'), '---\nid: vendor\ntitle: Vendor limits\n---\n<!-- upstream:start name="limits" -->\nold\n<!-- upstream:end -->\n')
    writeFileSync(join(root, 'sources.yml'), `sources:\n  - { name: limits, type: http, url: "${server.url}/limits", target: { file: vendor.md, section: limits } }\n`)
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    stores.push(store)
    await store.start()
    expect(store.list().items.find((m) => m.id === 'vendor')?.version).toBe(1)
    const report = await new KnowledgeSync(store, { fetcher: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 } }).run()
    expect(report.results.map((r) => r.status)).toEqual(['changed'])
    const listed = store.list().items.find((m) => m.id === 'vendor')?.version
    const hit = store.search('requests per minute').find((h) => h.id === 'vendor')?.version
    const read = (await store.read('vendor'))?.version
    expect({ listed, hit, read }).toEqual({ listed: 2, hit: 2, read: 2 })
  })
})
