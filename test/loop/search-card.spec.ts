/**
 * The chat card of `knowledge_search` (issue 16, item 11) through the real dsh agent loop: the definition dsh's UI
 * asks rebuilds dsh's search card (`shape: 'paths'`), titled `Searched "<q>": <n> hits`, with `id (v:N) — title` lines and no snippet marks, from
 * the meta dsh persisted with the `tool/result` event (so a replayed session shows the same card). The model's text is
 * unchanged. Errors keep dsh's default card.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as recall from '../../src/recall/index.js'
import { byPrompt, createLoop, type Loop } from '../harness/loop.ts'
import type { KnowledgeStore } from '../../src/knowledge/store.js'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-${name}-`))
const SESSION = 'session-5ea4c000-0000-4000-8000-000000000001'

describe('the knowledge_search card', () => {
  it('shows "Searched "<q>": <n> hits" with the hits\' ids and titles, rebuilt from the persisted meta', async () => {
    const ws = tmp('ws')
    const script = byPrompt({
      look: [
        {
          toolCalls: [
            { name: 'knowledge_search', arguments: { query: 'ERR_PNPM_FETCH_404' } },
            { name: 'knowledge_search', arguments: { query: 'zzqxnothing' } },
            { name: 'knowledge_search', arguments: { query: 42 } },
          ],
        },
        { text: 'ok' },
      ],
    })
    loop = await createLoop(script, [
      [knowledge, { root: join(tmp('card'), 'kb') }],
      [recall, {}],
    ])
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    for (const [k, title] of ['Why does pnpm fail with ERR_PNPM_FETCH_404 in CI?', 'ERR_PNPM_FETCH_404 again after the registry move'].entries()) {
      await store.write({
        kind: 'raw',
        title,
        cwd: ws,
        session: `session-0000000${k}-0000-4000-8000-000000000000`,
        turn: 1,
        outcome: 'completed',
        sections: [
          { heading: 'Question', text: title },
          { heading: 'Answer', text: 'The **scoped** registry 404s: set `@acme:registry`.' },
        ],
      })
    }
    await loop.ask('look it up', { session: SESSION, cwd: ws })

    const tool = (loop.ctx as any).tools.get('knowledge_search') // the definition dsh's UI asks
    expect(tool.presentCall({ query: 'ERR_PNPM_FETCH_404' })).toEqual({ card: 'generic', title: 'Search "ERR_PNPM_FETCH_404"', kind: 'search' })
    const results = (loop.agent(SESSION).session.events as any[]).filter((e) => e.type === 'tool/result')
    expect(results).toHaveLength(3)
    const cards = results.map((e) => tool.presentResult({}, { isError: !!e.data.message.content[0].isError, meta: e.data.meta, content: e.data.message.content[0].content }))
    expect(cards[0]).toMatchObject({ card: 'search', shape: 'paths', title: 'Searched "ERR_PNPM_FETCH_404": 2 hits', truncated: false, total: 2 })
    const lines = cards[0].paths as string[]
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{8}-t1 \(v:1\) — .*ERR_PNPM_FETCH_404/)
    expect(lines.join('\n')).not.toContain('**')
    expect(cards[1]).toEqual({ card: 'search', shape: 'paths', title: 'Searched "zzqxnothing": 0 hits', paths: [], truncated: false, total: 0 })
    expect(cards[2]).toBeUndefined() // a refused call keeps dsh's default card
    // The model still got the full text, snippets and all.
    const modelText = JSON.stringify(loop.adapter.requests[1].options.messages)
    expect(modelText).toContain('2 document(s) match \\"ERR_PNPM_FETCH_404\\"')
  })

  it('says "3 of 12 hits" when more documents match than the limit returns (issue 28, item 7)', async () => {
    const ws = tmp('ws')
    loop = await createLoop(byPrompt({ count: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'zebracache', limit: 3 } }] }, { text: 'ok' }] }), [
      [knowledge, { root: join(tmp('count'), 'kb') }],
      [recall, {}],
    ])
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    for (let k = 0; k < 12; k++)
      await store.write({
        kind: 'raw',
        title: `zebracache round ${k}`,
        cwd: ws,
        session: `session-0000${String(k).padStart(4, '0')}-0000-4000-8000-000000000000`,
        turn: 1,
        outcome: 'completed',
        sections: [{ heading: 'Answer', text: `zebracache answer number ${k}` }],
      })
    expect(store.search('zebracache', { limit: 50 }).length).toBe(12)
    await loop.ask('count them', { session: SESSION, cwd: ws })
    const tool = (loop.ctx as any).tools.get('knowledge_search')
    const [result] = (loop.agent(SESSION).session.events as any[]).filter((e) => e.type === 'tool/result')
    expect(result.data.meta).toMatchObject({ hits: 3, total: 12 })
    expect(tool.presentResult({}, { isError: false, meta: result.data.meta })).toMatchObject({ title: 'Searched "zebracache": 3 of 12 hits', truncated: true, total: 12 })
    // The model's text lists the three it asked for.
    expect(JSON.stringify(loop.adapter.requests[1].options.messages)).toContain('3 document(s) match')
  })
})
