/**
 * Hand-written documents cannot flood the model (issue 10, item 9), through the real dsh agent loop: one document
 * with 100k tags, a 600 KB title and 100k tools, and a 1 MB body. Every field is bounded when the file is parsed, and
 * every tool's text stays within the budget its description states.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as recall from '../../src/recall/index.js'
import * as note from '../../src/note/index.js'
import { byPrompt, createLoop, type Loop, type LoopRequest } from '../harness/loop.ts'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { OUTPUT_BUDGET } from '../../src/tool-output.js'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

function toolResults(request: LoopRequest): string[] {
  return (request.options.messages as any[]).flatMap((m) => (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => (b.content ?? []).map((c: any) => c.text ?? '').join('')))
}

/** A hand-written flood: 100k tags, 100k tools, a 600 KB title, a 1 MB body (3.8 MB in all, under the 4 MiB limit) that matches the query everywhere. */
function writeFlood(root: string) {
  mkdirSync(root, { recursive: true })
  const tags = Array.from({ length: 100_000 }, (_, k) => `tag${k}`)
  const tools = Array.from({ length: 100_000 }, (_, k) => `tool${k}`)
  const title = 'flood '.repeat(100_000)
  const body = 'flood marker line with words\n'.repeat(40_000)
  writeFileSync(join(root, 'flood.md'), `---\nid: flood\ntitle: ${JSON.stringify(title)}\ntags: ${JSON.stringify(tags)}\ntools: ${JSON.stringify(tools)}\n---\n\n${body}`)
  for (let k = 0; k < 49; k++) writeFileSync(join(root, `f${k}.md`), `---\nid: f${k}\ntitle: flood ${k}\ntags: ${JSON.stringify(tags.slice(0, 2000))}\n---\n\n${'flood marker '.repeat(500)}\n`)
}

describe('tool output budgets (10.9)', () => {
  it('bounds titles, tags and tools at parse time', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-budget-')), 'kb')
    writeFlood(root)
    loop = await createLoop(byPrompt({}), [
      [knowledge, { root }],
      [recall, {}],
    ])
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    await store.start()
    const meta = store.get('flood')!
    expect(meta.title.length).toBeLessThanOrEqual(200)
    expect(meta.tags.length).toBeLessThanOrEqual(32)
    expect(meta.tools.length).toBeLessThanOrEqual(50)
  }, 180_000)

  it('keeps knowledge_search, knowledge_read and knowledge_note within the budgets their descriptions state', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-budget-')), 'kb')
    writeFlood(root)
    const script = byPrompt({
      flood: [
        { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'flood marker words', limit: 50 } }] },
        { toolCalls: [{ name: 'knowledge_read', arguments: { id: 'flood' } }] },
        { toolCalls: [{ name: 'knowledge_read', arguments: { id: 'flood', offset: 23_000 } }] },
        { toolCalls: [{ name: 'knowledge_note', arguments: { title: 'T'.repeat(200), finding: 'a finding', tags: ['a'] } }] },
        { text: 'done' },
      ],
    })
    loop = await createLoop(script, [
      [knowledge, { root }],
      [recall, { sameWorkspaceOnly: false }],
      [note, {}],
    ])
    await ((loop.ctx as any).knowledge as KnowledgeStore).start()
    await loop.ask('flood check', { session: 'session-f1000000-0000-4000-8000-000000000001', cwd: root })
    const requests = loop.adapter.requests
    const tools = (requests[0].options as any).tools as Array<{ name: string; description: string }>
    for (const name of ['knowledge_search', 'knowledge_read', 'knowledge_note'] as const) {
      expect(tools.find((t) => t.name === name)?.description).toContain(`at most ${OUTPUT_BUDGET[name]} characters`)
    }
    const search = toolResults(requests[1])[0]
    expect(search.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_search)
    expect(search).toMatch(/more hit\(s\) left out/)
    expect(search).not.toContain('tag9999')
    const read = toolResults(requests[2])[1]
    expect(read.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_read)
    expect(read).toMatch(/Continue with knowledge_read\(\{"id": "flood", "offset": \d+\}\)/)
    const next = toolResults(requests[3])[2]
    expect(next.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_read)
    expect(next).toMatch(/^\[flood from character 23000 of \d+\]/)
    const saved = toolResults(requests[4])[3]
    expect(saved).toMatch(/^Saved note/)
    expect(saved.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_note)
  }, 180_000)
})
