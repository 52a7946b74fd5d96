/**
 * One target rule for every path to a write: sources.yml targets, `in-use` decisions from decisions.json (which may
 * come from someone else's push) and a direct splice all refuse `.git/`, `.knowledge/`, non-`.md` files and `..`;
 * a synced document keeps its file mode.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { KnowledgeSync } from '../../src/sync/service.js'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'

let server: WebServer
beforeAll(async () => {
  server = await startWebServer({ '/page': text('upstream text') })
})
afterAll(async () => {
  await server.close()
})
const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

const section = (name: string) => `<!-- upstream:start name="${name}" -->\nold\n<!-- upstream:end -->\n`
const doc = (id: string, body: string) => `---\nid: ${id}\ntitle: ${id}\n---\n${body}`

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ks-targets-'))
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  stores.push(store)
  return { root, store, sync: new KnowledgeSync(store, { fetcher: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 } }) }
}

describe('in-use decisions pass the target rule', () => {
  it('refuses .git/hooks, .knowledge/ and non-.md targets from decisions.json and touches none of them', async () => {
    const { root, sync } = setup()
    const hook = `#!/bin/sh\n${section('a')}`
    const targets = { '.git/hooks/post-checkout': hook, '.knowledge/hidden.md': doc('hidden', section('a')), 'notes.txt': doc('notes', section('a')) }
    for (const [file, body] of Object.entries(targets)) {
      mkdirSync(join(root, file, '..'), { recursive: true })
      writeFileSync(join(root, file), body)
    }
    chmodSync(join(root, '.git/hooks/post-checkout'), 0o755)
    const decisions = Object.keys(targets).map((file, k) => ({
      url: `${server.url}/page?${k}`,
      status: 'in-use',
      discovered_at: '2026-01-01T00:00:00.000Z',
      target_file: file,
      target_section: 'a',
    }))
    writeFileSync(join(root, '.knowledge/decisions.json'), JSON.stringify({ version: '1.0.0', decisions }))
    const report = await sync.run()
    expect(report.results.map((r) => r.status)).toEqual(['invalid-target', 'invalid-target', 'invalid-target'])
    for (const r of report.results) expect(r.reason).toMatch(/in-use decision: target\.file .*(hidden path|\.md document)/)
    for (const [file, body] of Object.entries(targets)) expect(readFileSync(join(root, file), 'utf8'), file).toBe(body)
    expect(statSync(join(root, '.git/hooks/post-checkout')).mode & 0o777).toBe(0o755)
    expect(server.seen).toEqual([])
  })

  it('a splice called directly refuses the same paths', async () => {
    const { root, store } = setup()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const hidden = doc('hidden', section('a'))
    writeFileSync(join(root, '.knowledge/hidden.md'), hidden)
    await expect(store.splice('.knowledge/hidden.md', hidden, [{ start: 0, end: 0, text: 'x' }])).rejects.toThrow(/hidden path/)
    await expect(store.splice('notes.txt', '', [{ start: 0, end: 0, text: 'x' }])).rejects.toThrow(/\.md document/)
    expect(readFileSync(join(root, '.knowledge/hidden.md'), 'utf8')).toBe(hidden)
    expect(existsSync(join(root, 'notes.txt'))).toBe(false)
  })
})

describe('a synced document keeps its mode', () => {
  it('an executable or private document stays so after its section is replaced', async () => {
    const { root, sync } = setup()
    writeFileSync(join(root, 'sources.yml'), `sources:\n  - { name: a, type: http, url: "${server.url}/page", target: { file: d.md, section: a } }\n`)
    writeFileSync(join(root, 'd.md'), doc('d', section('a')))
    chmodSync(join(root, 'd.md'), 0o750)
    const report = await sync.run()
    expect(report.results.map((r) => r.status)).toEqual(['changed'])
    expect(readFileSync(join(root, 'd.md'), 'utf8')).toContain('upstream text')
    expect(statSync(join(root, 'd.md')).mode & 0o7777).toBe(0o750)
  })
})
