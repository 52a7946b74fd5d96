/**
 * The `knowledge_note` tool through the real dsh agent loop (in-process): what a note document looks like, that it
 * is redacted, searchable in the same turn and ranked above a raw round with the same words, how invalid arguments
 * are refused, and that a disabled row offers no tool.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as note from '../../src/note/index.js'
import * as recall from '../../src/recall/index.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { byPrompt, createLoop, type Loop, type LoopRequest, type LoopScript, type Row } from '../harness/loop.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'

const SESSION = 'session-7a1b2c3d-1111-4222-8333-444455556666'
// A fake credential of a real shape, assembled so no scanner flags this file itself.
const GH_TOKEN = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'

const NOTE = {
  title: 'Vite HMR websocket blocked by the corporate proxy',
  finding: 'The vite dev server HMR websocket on port 24678 is blocked by the corporate proxy; setting server.hmr.clientPort to 443 in vite.config.ts makes hot reload work again.',
  evidence: `Browser console: WebSocket connection to ws://localhost:24678 failed. curl with GITHUB_TOKEN=${GH_TOKEN} reached the proxy.`,
  scope: 'vite 5.x behind the office proxy; not needed on the VPN.',
  tags: ['Vite', 'proxy'],
}

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-${name}-`))

async function boot(
  script: LoopScript,
  rows: (root: string) => Row[] = (root) => [
    [knowledge, { root }],
    [note, {}],
    [recall, {}],
  ],
) {
  const root = join(tmp('note'), 'kb')
  loop = await createLoop(script, rows(root))
  return { root, store: (loop.ctx as any).knowledge as KnowledgeStore }
}

/** The tool results the model received in a request, with `[isError]` appended to failed ones. */
function toolResults(request: LoopRequest): string[] {
  return (request.options.messages as any[]).flatMap((m) =>
    (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => (b.content ?? []).map((c: any) => c.text ?? '').join('') + (b.isError ? ' [isError]' : '')),
  )
}
const offeredTools = (request: LoopRequest) => (request.options.tools ?? []).map((t: any) => t.name)

describe('knowledge_note', () => {
  it("writes a kind: note document with Finding, Evidence and Scope in the session's folder", async () => {
    const ws = tmp('ws')
    await boot(byPrompt({ 'note the proxy': [{ toolCalls: [{ name: 'knowledge_note', arguments: NOTE }] }, { text: 'Noted.' }] }))
    await loop!.ask('note the proxy finding', { session: SESSION, cwd: ws })
    const [result] = toolResults(loop!.adapter.requests[1])
    expect(result).toMatch(/^Saved note 7a1b2c3d-n1: Vite HMR websocket blocked by the corporate proxy \(1 secret-like value\(s\) were masked\)\.$/)
    const docs = allDocuments((loop!.ctx as any).knowledge.root)
    expect(docs).toHaveLength(1)
    expect(docs[0].path).toBe(`${SESSION}/7a1b2c3d-n1-vite-hmr-websocket-blocked-by-the-corporate.md`)
    const { meta, body } = parseDocument(docs[0].text, docs[0].path, 'x', 0)
    expect(meta).toMatchObject({ id: '7a1b2c3d-n1', kind: 'note', title: NOTE.title, session: SESSION, cwd: ws, tags: ['vite', 'proxy'], tools: [] })
    expect(meta.turn).toBeUndefined()
    expect(body).toBe(`# ${NOTE.title}\n\n## Finding\n\n${NOTE.finding}\n\n## Evidence\n\n${NOTE.evidence.replace(GH_TOKEN, '[REDACTED]')}\n\n## Scope\n\n${NOTE.scope}\n`)
  })

  it('masks a token given in evidence before anything reaches disk, and counts it', async () => {
    const { root } = await boot(byPrompt({ note: [{ toolCalls: [{ name: 'knowledge_note', arguments: NOTE }] }, { text: 'Noted.' }] }))
    await loop!.ask('note it', { session: SESSION, cwd: tmp('ws') })
    await loop!.dispose()
    const [doc] = allDocuments(root)
    expect(doc.text).not.toContain(GH_TOKEN)
    expect(doc.text).toContain('curl with GITHUB_TOKEN=[REDACTED] reached the proxy')
    expect(parseDocument(doc.text, doc.path, 'x', 0).meta.redacted).toBe(1)
    expect(ledgerEntries(root)).toMatchObject([{ type: 'note', session: SESSION, id: '7a1b2c3d-n1', redacted: 1 }])
  })

  it("numbers a session's notes n1, n2 and never overwrites one; optional fields may be left out", async () => {
    const { root } = await boot(
      byPrompt({
        'two notes': [
          {
            toolCalls: [
              { name: 'knowledge_note', arguments: { title: 'First finding', finding: 'Alpha is configured in a.yml.' } },
              { name: 'knowledge_note', arguments: { title: 'Second finding', finding: 'Beta is configured in b.yml.' } },
            ],
          },
          { text: 'Noted both.' },
        ],
      }),
    )
    await loop!.ask('two notes please', { session: SESSION, cwd: tmp('ws') })
    await loop!.dispose()
    const docs = allDocuments(root).map((d) => parseDocument(d.text, d.path, 'x', 0))
    expect(docs.map((d) => d.meta.id).sort()).toEqual(['7a1b2c3d-n1', '7a1b2c3d-n2'])
    const first = docs.find((d) => d.meta.title === 'First finding')!
    expect(first.body).toBe('# First finding\n\n## Finding\n\nAlpha is configured in a.yml.\n')
  })

  it('is searchable in the same turn and ranks above a raw round with the same words', async () => {
    const ws = tmp('ws')
    const { store } = await boot(
      byPrompt({
        'record and look up': [
          { toolCalls: [{ name: 'knowledge_note', arguments: NOTE }] },
          { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'vite HMR websocket corporate proxy clientPort' } }] },
          { text: 'Found it.' },
        ],
      }),
    )
    // A raw round saying the same thing (shorter, so plain BM25 would favour it), and unrelated rounds for the idf.
    const raw = await store.write({
      kind: 'raw',
      title: 'Why does vite HMR websocket fail behind the corporate proxy?',
      cwd: ws,
      session: 'session-0a0a0a0a-0000-4000-8000-000000000000',
      turn: 1,
      outcome: 'completed',
      sections: [
        { heading: 'Question', text: 'Why does vite HMR websocket fail behind the corporate proxy?' },
        { heading: 'Answer', text: NOTE.finding },
      ],
    })
    const fillers = ['pnpm store permissions on CI', 'Postgres migration lock timeout', 'Docker layer cache misses', 'TypeScript project references build order', 'Flaky snapshot test and TZ']
    for (const [k, title] of fillers.entries()) {
      await store.write({
        kind: 'raw',
        title,
        cwd: ws,
        session: `session-f${k}f${k}f${k}f${k}-0000-4000-8000-000000000000`,
        turn: 1,
        outcome: 'completed',
        sections: [
          { heading: 'Question', text: title },
          { heading: 'Answer', text: `${title}: fixed in the config.` },
        ],
      })
    }
    await loop!.ask('record and look up the proxy issue', { session: SESSION, cwd: ws })
    const search = toolResults(loop!.adapter.requests[2]).at(-1)!
    const ranked = search
      .split('\n')
      .filter((l) => /^\d+\. /.test(l))
      .map((l) => /^\d+\. (\S+)/.exec(l)![1])
    expect(ranked.slice(0, 2), search).toEqual(['7a1b2c3d-n1', raw.id])
    const scores = [...search.matchAll(/score (\d+\.\d+)/g)].map((m) => Number(m[1]))
    expect(scores[0]).toBeGreaterThan(scores[1])
  })

  it.each([
    ['an empty finding', { title: 'A title', finding: '   ' }, /"finding" is required and must not be empty/],
    ['a missing finding', { title: 'A title' }, /"finding" is required and must not be empty/],
    ['a 1 MB title', { title: 'x'.repeat(1024 * 1024), finding: 'Something true.' }, /"title" is 1048576 characters long; the limit is 200/],
    ['tags that are not strings', { title: 'A title', finding: 'Something true.', tags: ['ok', 42] }, /"tags" must be an array of strings/],
    ['tags that are not an array', { title: 'A title', finding: 'Something true.', tags: 'vite' }, /"tags" must be an array of strings/],
    ['a finding that is not a string', { title: 'A title', finding: { text: 'x' } }, /"finding" must be a string/],
    ['too many tags', { title: 'A title', finding: 'Something true.', tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] }, /at most 8 tags/],
  ])('refuses %s with a clear tool error and writes nothing', async (_name, args, message) => {
    const { root } = await boot(byPrompt({ 'bad note': [{ toolCalls: [{ name: 'knowledge_note', arguments: args }] }, { text: 'I will fix the arguments.' }] }))
    await loop!.ask('bad note please', { session: SESSION, cwd: tmp('ws') })
    await loop!.dispose()
    const [result] = toolResults(loop!.adapter.requests[1])
    expect(result).toMatch(message)
    expect(result).toMatch(/\[isError\]$/)
    expect(result.length).toBeLessThan(500)
    expect(allDocuments(root)).toHaveLength(0)
    expect(ledgerEntries(root)).toHaveLength(0)
    // The turn went on: the model saw the error and answered.
    expect(loop!.adapter.requests).toHaveLength(2)
  })

  it('is not offered when the row is disabled', async () => {
    await boot(byPrompt({}, { text: 'ok' }), (root) => [
      [knowledge, { root }],
      [note, { enabled: false }],
      [recall, {}],
    ])
    await loop!.ask('hello', { session: SESSION, cwd: tmp('ws') })
    expect(offeredTools(loop!.adapter.requests[0])).toContain('knowledge_search')
    expect(offeredTools(loop!.adapter.requests[0])).not.toContain('knowledge_note')
  })

  it('is offered with its schema when the row is enabled', async () => {
    await boot(byPrompt({}, { text: 'ok' }))
    await loop!.ask('hello', { session: SESSION, cwd: tmp('ws') })
    const tool = (loop!.adapter.requests[0].options.tools ?? []).find((t: any) => t.name === 'knowledge_note') as any
    expect(tool).toBeDefined()
    expect(JSON.stringify(tool)).toContain('"required":["title","finding"]')
  })
})
