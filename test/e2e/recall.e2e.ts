/**
 * Recall with the real `dsh --profile headless` CLI: session 1 captures; session 2 in the same workspace sees the
 * pointer and its model finds and reads the document; another workspace gets no pointer; a subdirectory does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDshHome, type DshHome } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, systemText, type ChatMessage, type LoggedRequest, type ModelServer } from '../harness/model-server.ts'

const FINDING =
  'The flaky checkout test fails because TZ is unset on the CI runner; the snapshot renders local time. Fixed by exporting TZ=UTC in .github/workflows/ci.yml, chosen over mocking Date because other tests rely on real timers.'

let server: ModelServer
let home: DshHome
let workspace: string
let capturedId = ''

const pointerOf = (r: LoggedRequest) => /Knowledge base:[^\n]*/.exec(systemText(r.body))?.[0] ?? ''
const toolMessages = (r: LoggedRequest) => r.body.messages.filter((m: ChatMessage) => m.role === 'tool').map((m) => String(m.content))

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'dsh-ks-ws-'))
  mkdirSync(join(workspace, '.git'))
  mkdirSync(join(workspace, 'packages/web'), { recursive: true })
  server = await startModelServer(
    byPrompt(
      {
        'Why is the checkout test flaky': [{ text: FINDING }],
      },
      { title: 'Scripted title' },
    ),
  )
  home = await createDshHome({ profile: 'headless', modelUrl: server.url })
}, 180_000)

afterAll(async () => {
  await server?.close()
})

describe('recall with the real dsh CLI', () => {
  it('session 1 captures a round; session 2 sees the pointer, searches and reads the right document', async () => {
    const first = await home.run('Why is the checkout test flaky on CI?', { cwd: workspace })
    expect(first.code, first.log).toBe(0)
    const docs = allDocuments(home.knowledgeRoot)
    expect(docs).toHaveLength(1)
    capturedId = /^id: (\S+)$/m.exec(docs[0].text)![1]
    // The read step's reply is built before the id is known; rebuild the script with it.
    server.setScript(
      byPrompt(
        {
          'checkout test is red again': [
            { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'flaky checkout test TZ' } }] },
            { toolCalls: [{ name: 'knowledge_read', arguments: { id: capturedId } }] },
            { text: 'Per the knowledge base: export TZ=UTC.' },
          ],
          'hello from elsewhere': [{ text: 'Hi.' }],
          'hello from a subdirectory': [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'checkout flaky' } }] }, { text: 'Found it.' }],
        },
        { title: 'Scripted title' },
      ),
    )
    const mark = server.requests.length
    const second = await home.run('The checkout test is red again, what do we know?', { cwd: workspace })
    expect(second.code, second.log).toBe(0)
    const chat = server.requests.slice(mark).filter((r) => r.kind === 'chat')
    expect(chat).toHaveLength(3)
    expect(pointerOf(chat[0])).toContain(`1 document for workspace ${workspace}`)
    expect(new Set(chat.map(pointerOf)).size).toBe(1)
    const searchResult = toolMessages(chat[1]).at(-1)!
    expect(searchResult).toContain(capturedId)
    expect(searchResult).toContain('Why is the checkout test flaky on CI?')
    const readResult = toolMessages(chat[2]).at(-1)!
    expect(readResult).toContain('exporting TZ=UTC in .github/workflows/ci.yml')
    expect(readResult).toContain(`id: ${capturedId}`)
    expect(second.stdout).toContain('export TZ=UTC')
  }, 180_000)

  it('gives a session in another workspace no pointer', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'dsh-ks-elsewhere-'))
    const mark = server.requests.length
    const run = await home.run('hello from elsewhere', { cwd: elsewhere })
    expect(run.code, run.log).toBe(0)
    const chat = server.requests.slice(mark).filter((r) => r.kind === 'chat')
    expect(chat.length).toBeGreaterThan(0)
    expect(chat.map(pointerOf)).toEqual(chat.map(() => ''))
  }, 180_000)

  it('gives a session in a subdirectory the pointer and the documents', async () => {
    const mark = server.requests.length
    const run = await home.run('hello from a subdirectory', { cwd: join(workspace, 'packages/web') })
    expect(run.code, run.log).toBe(0)
    const chat = server.requests.slice(mark).filter((r) => r.kind === 'chat')
    expect(pointerOf(chat[0])).toContain(`for workspace ${workspace}`)
    expect(toolMessages(chat[1]).at(-1)).toContain(capturedId)
  }, 180_000)

  it("finds the English round for a Traditional Chinese query through the installed package's dictionary tables", async () => {
    // 快照 is in CC-CEDICT (snapshot) but not in the glossary: a hit proves the packed cedict-tables.sqlite opens.
    server.setScript(byPrompt({ 中文查詢: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: '快照' } }] }, { text: 'ok' }] }, { title: 'Scripted title' }))
    const mark = server.requests.length
    const run = await home.run('中文查詢：快照為什麼不對？', { cwd: workspace })
    expect(run.code, run.log).toBe(0)
    const chat = server.requests.slice(mark).filter((r) => r.kind === 'chat')
    const result = toolMessages(chat[1]).at(-1)!
    expect(result.split('\n').find((l) => /^1\. /.test(l))).toContain(capturedId)
    expect(result).toContain('**snapshot**')
  }, 180_000)
})
