/**
 * Recall through the real dsh agent loop (in-process): the pointer, knowledge_search, knowledge_read, scoping,
 * and the rows' independence.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import * as recall from '../../src/recall/index.js'
import * as note from '../../src/note/index.js'
import { byPrompt, createLoop, type Loop, type LoopRequest, type Row } from '../harness/loop.ts'
import type { KnowledgeStore } from '../../src/knowledge/store.js'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-${name}-`))

async function seed(store: KnowledgeStore, cwd: string, title: string, answer: string, session = 'session-5eed0000-0000-4000-8000-000000000000', turn = 1) {
  return store.write({
    kind: 'raw',
    title,
    cwd,
    session,
    turn,
    outcome: 'completed',
    sections: [
      { heading: 'Question', text: title },
      { heading: 'Answer', text: answer },
    ],
    tools: [{ name: 'bash', arguments: '{"command":"pnpm install"}' }],
    tags: ['pnpm'],
  })
}

/** The pointer as the model saw it in each request ('' when absent). */
const pointers = (requests: LoopRequest[]) => requests.map((r) => /Knowledge base:[^\n]*/.exec(r.system)?.[0] ?? '')

/** Text of the tool-result messages the model received in a request. */
function toolResults(request: LoopRequest): string[] {
  return (request.options.messages as any[]).flatMap((m) =>
    (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => (b.content ?? []).map((c: any) => c.text ?? '').join('') + (b.isError ? ' [isError]' : '')),
  )
}

async function boot(rows: (root: string) => Row[], script = byPrompt({})) {
  const root = join(tmp('recall'), 'kb')
  loop = await createLoop(script, rows(root))
  return { root, loop, store: (loop.ctx as any).knowledge as KnowledgeStore }
}

describe('the pointer', () => {
  it('is byte-stable for a whole session even when every turn captures a document', async () => {
    const ws = tmp('ws')
    const answer = 'Root cause: the build failed because NODE_OPTIONS contained --max-old-space-size=64; raised it to 4096 in .npmrc.'
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [capture, { salience: { minScore: 0 } }],
        [recall, {}],
      ],
      byPrompt({ turn: [{ text: answer }] }),
    )
    await seed(store, ws, 'Why does the build OOM?', answer)
    await seed(store, ws, 'Which node version?', 'Use Node 22.19 because dsh requires it.', undefined, 2)
    for (let k = 1; k <= 5; k++) await loop!.ask(`turn ${k}: why does the build run out of memory?`, { session: 'session-aaaaaaaa-0000-4000-8000-000000000001', cwd: ws })
    await until(() => store.count({ scope: ws }) === 7)
    const seen = pointers(loop!.adapter.requests)
    expect(seen).toHaveLength(5)
    expect(new Set(seen).size).toBe(1)
    expect(seen[0]).toContain('2 documents')
    expect(seen[0]).toContain(ws)
    expect(seen[0]).toContain('NOT included')
    expect(seen[0].split(/(?<=\.)\s+(?=[A-Z])/)).toHaveLength(2)
  })

  it('is absent when nothing is visible, and with announce off', async () => {
    const ws = tmp('ws'),
      other = tmp('other')
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      byPrompt({}, { text: 'ok' }),
    )
    await seed(store, ws, 'Why does the build OOM?', 'Because of NODE_OPTIONS.')
    await loop!.ask('hello', { session: 'session-bbbbbbbb-0000-4000-8000-000000000001', cwd: other })
    expect(pointers(loop!.adapter.requests)).toEqual([''])
    await loop!.dispose()
    const again = await boot(
      (_root) => [
        [knowledge, { root: store.root }],
        [recall, { announce: false }],
      ],
      byPrompt({}, { text: 'ok' }),
    )
    await again.loop.ask('hello', { session: 'session-cccccccc-0000-4000-8000-000000000001', cwd: ws })
    expect(pointers(again.loop.adapter.requests)).toEqual([''])
  })

  it('never lets {{ from a workspace path reach the prompt (the turn still completes)', async () => {
    const ws = join(tmp('ws'), '{{evil}}')
    mkdirSync(ws)
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      byPrompt({}, { text: 'answered' }),
    )
    await seed(store, ws, 'Template trouble', 'The {{ var }} syntax broke the prompt renderer.')
    await loop!.ask('hello', { session: 'session-dddddddd-0000-4000-8000-000000000001', cwd: ws })
    const [pointer] = pointers(loop!.adapter.requests)
    expect(pointer).toContain('1 document')
    expect(pointer).not.toContain('{{')
    expect(loop!.adapter.requests[0].system).not.toContain('{{evil}}')
  })
})

describe('knowledge_search and knowledge_read', () => {
  it('lets the model find and read the right document', async () => {
    const ws = tmp('ws')
    const script = byPrompt({
      'pnpm fails': [
        { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'ERR_PNPM_EACCES store permission' } }] },
        { toolCalls: [{ name: 'knowledge_read', arguments: { id: 'abcd1234-t1' } }] },
        { text: 'Set store-dir, as recorded.' },
      ],
    })
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      script,
    )
    await seed(store, ws, 'Why does pnpm install fail?', 'ERR_PNPM_EACCES: the store at /root/.local/share/pnpm is not writable; set store-dir.', 'session-abcd1234-0000-4000-8000-000000000000')
    await seed(store, ws, 'Which node version?', 'Node 22.19, because dsh needs it.', 'session-ffff0000-0000-4000-8000-000000000000')
    await loop!.ask('pnpm fails again with EACCES', { session: 'session-eeeeeeee-0000-4000-8000-000000000001', cwd: ws })
    const [afterSearch] = toolResults(loop!.adapter.requests[1])
    expect(afterSearch).toMatch(/^\d+ document\(s\) match/)
    expect(afterSearch.split('\n').find((l) => /^1\. /.test(l))).toContain('abcd1234-t1')
    const read = toolResults(loop!.adapter.requests[2])[1]
    expect(read).toContain('ERR_PNPM_EACCES: the store at /root/.local/share/pnpm is not writable')
  })

  it('refuses hostile and invisible ids with a clear message', async () => {
    const ws = tmp('ws'),
      other = tmp('other')
    const script = byPrompt({
      'read them': [
        {
          toolCalls: [
            { name: 'knowledge_read', arguments: { id: '../../../etc/passwd' } },
            { name: 'knowledge_read', arguments: { id: '/etc/passwd' } },
            { name: 'knowledge_read', arguments: { id: 'abc\u0000def' } },
            { name: 'knowledge_read', arguments: { id: 'abcd1234-t1' } },
          ],
        },
        { text: 'done' },
      ],
    })
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      script,
    )
    await seed(store, other, 'Elsewhere', 'A document of another workspace.', 'session-abcd1234-0000-4000-8000-000000000000')
    await loop!.ask('read them', { session: 'session-eeeeeeee-0000-4000-8000-000000000002', cwd: ws })
    const results = toolResults(loop!.adapter.requests[1])
    expect(results).toHaveLength(4)
    expect(results[0]).toMatch(/invalid id.*no paths.*\[isError\]/)
    expect(results[1]).toMatch(/invalid id.*\[isError\]/)
    expect(results[2]).toMatch(/invalid id.*\[isError\]/)
    expect(results[3]).toMatch(/no document abcd1234-t1 is visible in .*\[isError\]/)
    expect(results.join('')).not.toContain('A document of another workspace')
  })

  it("shows a session in a subdirectory of a git project the project's documents", async () => {
    const project = tmp('proj')
    mkdirSync(join(project, '.git'))
    mkdirSync(join(project, 'packages/app'), { recursive: true })
    const script = byPrompt({ look: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'flaky snapshot' } }] }, { text: 'ok' }] })
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      script,
    )
    await seed(store, project, 'Flaky snapshot test', 'The snapshot test is flaky because of timezone; set TZ=UTC.')
    await loop!.ask('look for it', { session: 'session-12121212-0000-4000-8000-000000000001', cwd: join(project, 'packages/app') })
    expect(pointers(loop!.adapter.requests)[0]).toContain(`1 document for workspace ${project}`)
    expect(toolResults(loop!.adapter.requests[1])[0]).toContain('Flaky snapshot test')
  })
})

describe('the agent as a bridge between languages', () => {
  it('retries once in the other language after a no-hit answer, and finds the Chinese document', async () => {
    const ws = tmp('ws')
    // A model that only does what the tool results tell it: it retries in Chinese only when the no-hit answer says so.
    const script = (request: LoopRequest) => {
      if (!request.prompt.includes('code freeze')) return { text: 'unscripted' }
      const last = toolResults(request).at(-1) ?? ''
      if (request.step === 0) return { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'codefreeze policy' } }] }
      if (request.step === 1) {
        if (/^No knowledge documents match/.test(last) && last.includes('other language')) {
          return { toolCalls: [{ name: 'knowledge_search', arguments: { query: '冻结主干' } }] }
        }
        return { text: 'Nothing recorded.' }
      }
      const id = /^1\. (\S+)/m.exec(last)?.[1]
      if (request.step === 2 && id) return { toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }
      return { text: last.includes('发版前一天') ? 'Freeze the trunk the day before release, as recorded.' : 'Nothing recorded.' }
    }
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      script,
    )
    await store.write({
      kind: 'raw',
      title: '发版前冻结主干',
      cwd: ws,
      session: 'session-f1f1f1f1-0000-4000-8000-000000000000',
      turn: 1,
      outcome: 'completed',
      sections: [
        { heading: 'Question', text: '发版流程里主干什么时候冻结？' },
        { heading: 'Answer', text: '发版前一天 18:00 冻结主干，只允许合入修复，由值班同学审批。' },
      ],
      tools: [],
      tags: ['流程'],
    })
    await seed(store, ws, 'Which node version?', 'Node 22.19, because dsh needs it.', 'session-ffff0000-0000-4000-8000-000000000000')
    await loop!.ask('what is our code freeze rule before a release?', { session: 'session-f2f2f2f2-0000-4000-8000-000000000001', cwd: ws })
    const requests = loop!.adapter.requests
    expect(requests).toHaveLength(4)
    const first = toolResults(requests[1]).at(-1)!
    expect(first).toMatch(/^No knowledge documents match "codefreeze policy"/)
    expect(first).toContain('in the other language')
    const second = toolResults(requests[2]).at(-1)!
    expect(second.split('\n').find((l) => /^1\. /.test(l))).toContain('发版前冻结主干')
    expect(toolResults(requests[3]).at(-1)).toContain('发版前一天 18:00 冻结主干')
    // The tool's description tells the model the same before any search.
    const description = (requests[0].options.tools as Array<{ name: string; description: string }>).find((t) => t.name === 'knowledge_search')!.description
    expect(description).toContain('search once more with synonyms or in the other language')
  })

  it("finds an English answer for a Traditional Chinese question without the model's help (expansion in the index)", async () => {
    const ws = tmp('ws')
    const script = byPrompt({ 逾時: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: '安裝逾時' } }] }, { text: 'ok' }] })
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [recall, {}],
      ],
      script,
    )
    await seed(store, ws, 'pnpm install times out', 'The registry was slow from the office; a timeout of 120000 and the internal mirror fixed it.')
    await loop!.ask('安裝逾時怎麼辦', { session: 'session-f3f3f3f3-0000-4000-8000-000000000001', cwd: ws })
    expect(
      toolResults(loop!.adapter.requests[1])[0]
        .split('\n')
        .find((l) => /^1\. /.test(l)),
    ).toContain('pnpm install times out')
  })
})

describe('rows are independent', () => {
  it('recall works with capture and note absent; note works with recall absent', async () => {
    const ws = tmp('ws')
    const script = byPrompt({
      'note it': [
        { toolCalls: [{ name: 'knowledge_note', arguments: { title: 'Pin hmr to 1.0.17', finding: 'dsh rc.8 breaks with hmr 1.0.19 (registerConfig was removed).', tags: ['dsh'] } }] },
        { text: 'noted' },
      ],
    })
    const { store } = await boot(
      (root) => [
        [knowledge, { root }],
        [note, {}],
      ],
      script,
    )
    await loop!.ask('note it', { session: 'session-34343434-0000-4000-8000-000000000001', cwd: ws })
    expect(store.list({}).items.map((m) => m.kind)).toEqual(['note'])
    const tools = loop!.adapter.requests[0].options.tools?.map((t: any) => t.name) ?? []
    expect(tools).toContain('knowledge_note')
    expect(tools).not.toContain('knowledge_search')
    await loop!.dispose()
    const again = await boot(
      (_root) => [
        [knowledge, { root: store.root }],
        [recall, {}],
      ],
      byPrompt({ find: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'hmr registerConfig' } }] }, { text: 'ok' }] }),
    )
    await again.loop.ask('find the hmr note', { session: 'session-34343434-0000-4000-8000-000000000002', cwd: ws })
    expect(toolResults(again.loop.adapter.requests[1])[0]).toContain('Pin hmr to 1.0.17')
    const tools2 = again.loop.adapter.requests[0].options.tools?.map((t: any) => t.name) ?? []
    expect(tools2).not.toContain('knowledge_note')
  })

  it('does not offer knowledge_note when the note row is disabled', async () => {
    await boot(
      (root) => [
        [knowledge, { root }],
        [note, { enabled: false }],
        [recall, {}],
      ],
      byPrompt({}, { text: 'ok' }),
    )
    await loop!.ask('hello', { session: 'session-56565656-0000-4000-8000-000000000001', cwd: tmp('ws') })
    const tools = loop!.adapter.requests[0].options.tools?.map((t: any) => t.name) ?? []
    expect(tools).toContain('knowledge_search')
    expect(tools).not.toContain('knowledge_note')
  })
})
