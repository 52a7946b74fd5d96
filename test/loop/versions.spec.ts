/**
 * Version tags through the real dsh agent loop (in-process): a session reads a document; between two turns another
 * process changes it; the next turn's search hit and the runtime context name the change, told once; the system
 * prompt stays byte-identical. Section reads and the UI card; compaction stubs that keep the version.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import TokenMeter from '@deepseek-ai/dsh-token-meter'
import BasicCompactionEngine from '@deepseek-ai/dsh-compaction-basic'
import * as knowledge from '../../src/knowledge/index.js'
import * as recall from '../../src/recall/index.js'
import { presentReadResult } from '../../src/recall/presentation.js'
import { byPrompt, createLoop, type Loop, type LoopRequest, type LoopScript, type Row } from '../harness/loop.ts'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import type { KnowledgeStore } from '../../src/knowledge/store.js'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-${name}-`))
const until = async (check: () => boolean, ms = 5000, what = '') => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
/** Another process on the root (test/harness/revise.ts, through the built store). */
const otherProcess = (root: string, ...args: string[]) => {
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'test/harness/revise.ts'), root, ...args], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(result.stderr)
  return JSON.parse(result.stdout.trim().split('\n').pop()!)
}

const SESSION = 'session-7e550000-0000-4000-8000-000000000001'
const CONTEXT_SOURCE = '@deepseek-ai/dsh-system-prompt'
const textOf = (content: any[]) => content.map((c: any) => c.text ?? '').join('')
/** Text of the tool results a request carried. */
const toolResults = (request: LoopRequest): string[] =>
  (request.options.messages as any[]).flatMap((m) => (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => textOf(b.content ?? []) + (b.isError ? ' [isError]' : '')))
/** The runtime-context snapshots a request carried, in order. */
const contexts = (request: LoopRequest): string[] =>
  (request.options.messages as any[]).filter((m) => m.role === 'user' && m.source?.kind === 'plugin' && m.source?.plugin === CONTEXT_SOURCE).map((m) => textOf(m.content))

async function boot(script: LoopScript, extra: Row[] = []) {
  const root = join(tmp('versions'), 'kb')
  loop = await createLoop(script, [...extra, [knowledge, { root }], [recall, {}]])
  return { root, loop, store: (loop.ctx as any).knowledge as KnowledgeStore }
}

async function seed(store: KnowledgeStore, ws: string, session: string, sections: Array<{ heading: string; text: string }>, title = 'Why does pnpm install fail on CI?') {
  return store.write({ kind: 'raw', title, cwd: ws, session, turn: 1, outcome: 'completed', sections, tools: [{ name: 'bash', arguments: '{"command":"pnpm install"}' }] })
}

describe('changed since you read it', () => {
  it('names a change made by another process between turns in the next search hit and once in the runtime context; the system prompt never changes', async () => {
    const ws = tmp('ws')
    const id = 'abcd1234-t1'
    const script = byPrompt({
      first: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }, { text: 'Read it.' }],
      second: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'pnpm store permission' } }] }, { text: 'Searched.' }],
      third: [{ text: 'Nothing new.' }],
      fourth: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }, { text: 'Read again.' }],
    })
    const { root, store } = await boot(script)
    await seed(store, ws, 'session-abcd1234-0000-4000-8000-000000000000', [
      { heading: 'Question', text: 'pnpm fails' },
      { heading: 'Answer', text: 'ERR_PNPM_EACCES: the pnpm store is not writable; set store-dir.' },
    ])

    await loop!.ask('first: read the pnpm finding', { session: SESSION, cwd: ws })
    const requests = loop!.adapter.requests
    expect(toolResults(requests[1])[0]).toMatch(/^abcd1234-t1 \(v:1\) "Why does pnpm install fail on CI\?"/)
    expect(contexts(requests[1])).toEqual([])

    // Another process rewrites the document through the store (as distillation or a supersede does).
    expect(otherProcess(root, 'replace', id, 'EACCES came from a read-only HOME; the store permission was a red herring.').version).toBe(2)
    await until(() => store.list().items.find((d) => d.id === id)?.version === 2, 5000, 'v2 indexed') // the watcher re-indexed it

    await loop!.ask('second: search the pnpm store permission again', { session: SESSION, cwd: ws })
    const turn2 = requests.slice(2)
    const hits = toolResults(turn2[1]).at(-1)!
    expect(hits).toContain(`${id} (v:2) — Why does pnpm install fail on CI?`)
    expect(hits).toContain('changed since you read it: v:1 → v:2; read it again before relying on it')
    expect(hits).toContain('read-only HOME') // the snippet comes from v:2
    // Told once through the runtime context, at the turn's first request.
    const told = contexts(turn2[0])
    expect(told).toHaveLength(1)
    expect(told[0]).toContain(`- ${id} "Why does pnpm install fail on CI?": v:1 → v:2`)

    await loop!.ask('third: anything else?', { session: SESSION, cwd: ws })
    const last = requests.at(-1)!
    expect(contexts(last).filter((t) => t.includes('v:1 → v:2'))).toHaveLength(1) // not re-sent

    // A person edits the file by hand: one more revision, named once more; a re-read says what changed.
    const file = join(root, store.get(id)!.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('red herring', 'red herring (checked twice)'))
    await until(() => store.list().items.find((d) => d.id === id)?.version === 3, 5000, 'v3 indexed')
    await loop!.ask('fourth: read it again', { session: SESSION, cwd: ws })
    const reread = toolResults(requests.at(-1)!).at(-1)!
    expect(reread).toMatch(/^abcd1234-t1 \(v:3\)/)
    expect(reread).toContain('Changed since you read it: v:1 → v:3.')
    expect(reread).toContain('(checked twice)')
    const snapshots = contexts(requests.at(-1)!)
    expect(snapshots).toHaveLength(2)
    expect(snapshots[1]).toContain(`${id} "Why does pnpm install fail on CI?": v:1 → v:3`)

    // The system prompt is byte-identical in every request of the session.
    expect(new Set(requests.map((r) => r.system)).size).toBe(1)
    expect(requests[0].system).not.toContain('v:')
  })
})

describe('progressive disclosure', () => {
  it('reads one section with the list of the others, refuses an unknown one, and shows a one-line card', async () => {
    const ws = tmp('ws')
    const id = 'feed0001-t1'
    const script = byPrompt({
      finding: [
        {
          toolCalls: [
            { name: 'knowledge_read', arguments: { id, section: 'finding' } },
            { name: 'knowledge_read', arguments: { id, section: 'appendix' } },
            { name: 'knowledge_read', arguments: { id, section: 'Nope' } },
            { name: 'knowledge_read', arguments: { id, section: 42 } },
          ],
        },
        { text: 'ok' },
      ],
    })
    const { store } = await boot(script)
    const appendix = 'The raw round: ' + 'pnpm install output line. '.repeat(400)
    await seed(store, ws, 'session-feed0001-0000-4000-8000-000000000000', [
      { heading: 'Summary', text: 'pnpm failed on CI because HOME was read-only.' },
      { heading: 'Finding', text: 'Set HOME to a writable directory in the CI job; store-dir alone does not help.' },
      { heading: 'Appendix: the raw round', text: appendix },
    ])
    await loop!.ask('finding: read the finding only', { session: SESSION, cwd: ws })
    const [finding, raw, unknown, bad] = toolResults(loop!.adapter.requests[1])
    expect(finding).toContain('## Finding\n\nSet HOME to a writable directory')
    expect(finding).not.toContain('## Summary')
    expect(finding).not.toContain('pnpm install output line')
    expect(finding).toContain('Section "Finding" of 4. Others: Summary · Appendix: the raw round · Tools')
    expect(finding).toContain(`id: ${id}`) // the front matter comes with every section
    expect(finding.length).toBeLessThan(1200)
    expect(raw).toContain('pnpm install output line')
    expect(unknown).toMatch(/no section "Nope"; its sections: Summary · Finding · Appendix: the raw round · Tools \[isError\]/)
    expect(bad).toMatch(/"section" must be a section name.*\[isError\]/)

    // The card dsh's UI shows, rebuilt from the meta dsh persisted with the tool result.
    const events = loop!.agent(SESSION).session.events as any[]
    const results = events.filter((e) => e.type === 'tool/result')
    const tool = (loop!.ctx as any).tools.get('knowledge_read') // the definition dsh's UI asks
    expect(tool.presentCall({ id, section: 'finding' })).toEqual({ card: 'generic', title: `Read ${id} § finding`, kind: 'read' })
    const cards = results.map((e) => tool.presentResult({}, { isError: !!e.data.message.content[0].isError, meta: e.data.meta, content: e.data.message.content[0].content }))
    expect(cards[0]).toMatchObject({
      card: 'read',
      title: `Read ${id} (v:1), 4 sections: "Finding" — Why does pnpm install fail on CI?`,
      offset: 1,
      lang: 'md',
      content: [{ type: 'text', text: `Read ${id} (v:1), 4 sections: "Finding"\nWhy does pnpm install fail on CI?` }],
    })
    expect(cards[0].path).toMatch(new RegExp(`/${id}-why-does-pnpm-install-fail-on-ci\\.md$`))
    // The preview is lines of the text the model got (the section after the front matter), numbered as there.
    const lines = finding.split('\n')
    expect(cards[0].lines.map((l: { text: string }) => l.text)).toEqual(['## Finding', 'Set HOME to a writable directory in the CI job; store-dir alone does not help.'])
    for (const l of cards[0].lines) expect(lines[l.number - 1]).toBe(l.text)
    expect(cards[2]).toBeUndefined() // errors keep dsh's default card
  })

  it('returns a long document as its first sections plus the names of the rest', async () => {
    const ws = tmp('ws')
    const id = 'feed0002-t1'
    const script = byPrompt({ whole: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }, { text: 'ok' }] })
    const { store } = await boot(script)
    await seed(store, ws, 'session-feed0002-0000-4000-8000-000000000000', [
      { heading: 'Summary', text: 'Short summary.' },
      { heading: 'Finding', text: 'Short finding.' },
      { heading: 'Appendix: the raw round', text: 'x '.repeat(9000) },
    ])
    await loop!.ask('whole document please', { session: SESSION, cwd: ws })
    const [text] = toolResults(loop!.adapter.requests[1])
    expect(text).toContain('## Summary\n\nShort summary.')
    expect(text).toContain('## Finding\n\nShort finding.')
    expect(text).toContain('[2 more section(s) not shown: Appendix: the raw round · Tools; read them with "section".]')
    expect(text.length).toBeLessThan(2000)
  })
})

describe('compaction keeps the tag', () => {
  it('shrinks a knowledge_read result to {id, title, version, note} and names summarized reads with their versions', async () => {
    const ws = tmp('ws')
    const [a, b] = ['c0a00001-t1', 'c0a00002-t1']
    const summarize: LoopScript = (request) => {
      const last = (request.options.messages as any[]).at(-1)
      if (/checkpoint/i.test(textOf(last?.content ?? []))) return { text: 'Checkpoint: the user asked about pnpm; two knowledge documents were read.' }
      return script(request)
    }
    const script = byPrompt({
      'read a': [{ toolCalls: [{ name: 'knowledge_read', arguments: { id: a } }] }, { text: 'Read a.' }],
      'read b': [{ toolCalls: [{ name: 'knowledge_read', arguments: { id: b } }] }, { text: 'Read b.' }],
      after: [{ text: 'Continuing.' }],
      later: [{ text: 'Still here.' }],
    })
    const { store } = await boot(summarize, [[TokenMeter], [BasicCompactionEngine, { auto: false }]])
    const long = 'pnpm fetch output, line after line. '.repeat(150)
    await seed(store, ws, 'session-c0a00001-0000-4000-8000-000000000000', [{ heading: 'Answer', text: `Use a writable HOME. ${long}` }], 'Document A about pnpm')
    await seed(store, ws, 'session-c0a00002-0000-4000-8000-000000000000', [{ heading: 'Answer', text: `Set store-dir. ${long}` }], 'Document B about pnpm')
    await loop!.ask('read a please', { session: SESSION, cwd: ws })
    await loop!.ask('read b please', { session: SESSION, cwd: ws })
    const agent = loop!.agent(SESSION)
    const session = agent.session
    const fullB = toolResults(loop!.adapter.requests.at(-1)!).at(-1)!
    // Compaction inside the next turn's first step, as dsh's automatic (pressure) compaction runs: turn 1 (read a)
    // goes into a summary, turn 2's read stays on the surface.
    let compacted: any
    ;(loop!.ctx as any).on('agent/pre-step', async (payload: any, next: () => Promise<unknown>) => {
      if (payload.turn === 3 && !compacted) {
        const nodes: number[] = [...session.surface.nodes]
        const endOfTurn1 = nodes.find((seq) => {
          const e = session.events[seq]
          return e.type === 'assistant/message' && textOf(e.data.message.content) === 'Read a.'
        })!
        compacted = await (loop!.ctx as any).compaction.compactRegion(nodes[0], endOfTurn1, agent, payload.signal)
      }
      return next()
    })
    const before = loop!.adapter.requests.length
    await loop!.ask('after the compaction', { session: SESSION, cwd: ws })
    expect(compacted.shadowedSeqs.length).toBeGreaterThan(0)
    const turn3 = loop!.adapter.requests.slice(before).find((r) => !/checkpoint/i.test(textOf((r.options.messages as any[]).at(-1)?.content ?? [])))!
    const results = toolResults(turn3)
    expect(results).toHaveLength(1) // read a is inside the summary now; read b is the stub
    const stub = JSON.parse(results[0])
    expect(stub).toEqual({ id: b, title: 'Document B about pnpm', version: 1, note: 'dropped by compaction; reload with knowledge_read' })
    expect(results[0].length).toBeLessThan(130) // about 30 tokens (4 characters a token), from a result of thousands of characters
    expect(fullB.length).toBeGreaterThan(5000)
    // The full result stays in the session log; the card says it was compacted.
    const readB = session.events.filter((e: any) => e.type === 'tool/result' && e.data.meta?.id === b)
    expect(readB.map((e: any) => textOf(e.data.message.content[0].content).length > 5000)).toEqual([true, false])
    expect(presentReadResult({}, { isError: false, meta: readB[1].data.meta, content: readB[1].data.message.content[0].content })!.title).toBe(
      `Read ${b} (v:1), 2 sections (compacted) — Document B about pnpm`,
    )
    // The read the summary swallowed is named, with its version, in the next runtime-context snapshot.
    await loop!.ask('later still', { session: SESSION, cwd: ws })
    const told = contexts(loop!.adapter.requests.at(-1)!).at(-1)!
    expect(told).toContain(`Knowledge documents you read before this conversation was compacted`)
    expect(told).toContain(`- ${a} "Document A about pnpm" (v:1)`)
    expect(told).not.toContain(b)
    // The system prompt never changed.
    expect(new Set(loop!.adapter.requests.filter((r) => !/checkpoint/i.test(textOf((r.options.messages as any[]).at(-1)?.content ?? []))).map((r) => r.system)).size).toBe(1)
  })
})

describe('a resumed session', () => {
  it('knows from its log which revisions it read: a reloaded recall row still names the change', async () => {
    const ws = tmp('ws')
    const id = '4e5u0000-t1'
    const script = byPrompt({
      read: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }, { text: 'Read.' }],
      search: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'pnpm install fail' } }] }, { text: 'ok' }],
    })
    const root = join(tmp('versions'), 'kb')
    loop = await createLoop(script, [[knowledge, { root }]])
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    const first = (loop.ctx as any).plugin(recall, {})
    await first
    await seed(store, ws, 'session-4e5u0000-0000-4000-8000-000000000000', [{ heading: 'Answer', text: 'Before.' }])
    await loop.ask('read it', { session: SESSION, cwd: ws })
    await first.dispose() // the row goes (a reload; a restarted dsh resuming the session starts the same way)
    const second = (loop.ctx as any).plugin(recall, {})
    await second
    const file = join(root, store.get(id)!.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('Before.', 'After.'))
    await until(() => store.list().items[0]?.version === 2)
    await loop.ask('search again', { session: SESSION, cwd: ws })
    const requests = loop.adapter.requests
    expect(toolResults(requests.at(-1)!).at(-1)).toContain('changed since you read it: v:1 → v:2')
    expect(contexts(requests.at(-2)!).at(-1)).toContain(`${id} "Why does pnpm install fail on CI?": v:1 → v:2`)
  })
})

describe('disposal', () => {
  it('removes the tools and the runtime-context notice with the recall row', async () => {
    const ws = tmp('ws')
    const id = 'd15p0000-t1'
    const script = byPrompt({
      read: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id } }] }, { text: 'Read.' }],
      again: [{ text: 'ok' }],
      gone: [{ text: 'ok' }],
    })
    const root = join(tmp('versions'), 'kb')
    loop = await createLoop(script, [[knowledge, { root }]])
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    const fiber = (loop.ctx as any).plugin(recall, {})
    await fiber
    await seed(store, ws, 'session-d15p0000-0000-4000-8000-000000000000', [{ heading: 'Answer', text: 'Before.' }])
    await loop.ask('read it', { session: SESSION, cwd: ws })
    const file = join(root, store.get(id)!.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('Before.', 'After.'))
    await until(() => store.versionOf(id) === 2)
    await loop.ask('again', { session: SESSION, cwd: ws })
    const tools = (r: LoopRequest) => ((r.options as any).tools ?? []).map((t: any) => t.name)
    expect(tools(loop.adapter.requests.at(-1)!)).toContain('knowledge_read')
    expect(contexts(loop.adapter.requests.at(-1)!).at(-1)).toContain(`${id} "Why does pnpm install fail on CI?": v:1 → v:2`)
    await fiber.dispose()
    await loop.ask('gone now', { session: SESSION, cwd: ws })
    const last = loop.adapter.requests.at(-1)!
    expect(tools(last).filter((n: string) => n.startsWith('knowledge_'))).toEqual([])
    expect(contexts(last).at(-1)).not.toContain(id) // the snapshot no longer carries the notice
  })
})
