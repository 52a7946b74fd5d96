/**
 * The originals row in the real harness core (AgentLoop, ToolRuntime, dsh's ApprovalService): its tools are offered
 * (the two that ask the person only where one can answer), the agent's own file tools are denied writing into the
 * folder by the `tools/pre-execute` guard while writes elsewhere go through, retire_source asks for approval, and
 * extract_text's result is redacted.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { tmpdir } from 'node:os'
import ApprovalService from '@deepseek-ai/dsh-user-approval'
import * as knowledge from '../../src/knowledge/index.js'
import * as originals from '../../src/originals/index.js'
import { byPrompt, createLoop, type Loop, type LoopRequest, type LoopScript, type Row } from '../harness/loop.ts'
import { makeDocx } from '../harness/office-files.ts'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})
const SECRET = 'ghp_R3alLooking0Token1234567890abcdefABCD'

/** A stand-in for dsh-tool-fs's `write` (same name and argument names): writes the file. */
const writeTool = {
  name: 'write',
  description: 'Write a file.',
  parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] },
  output: { schema: { type: 'string' }, render: (_a: unknown, v: unknown) => [{ type: 'text', text: String(v) }] },
  async execute(args: { file_path: string; content: string }, exec: { agent?: { session?: { header?: { cwd?: string } } } }) {
    const full = resolve(exec.agent?.session?.header?.cwd ?? '/', args.file_path)
    mkdirSync(dirname(full), { recursive: true })
    writeFileSync(full, args.content)
    return `wrote ${args.file_path}`
  },
}

async function boot(script: LoopScript, approval?: 'allowed-once' | 'rejected') {
  const ws = mkdtempSync(join(tmpdir(), 'dsh-ks-orig-ws-'))
  const root = join(ws, 'kb')
  const rows: Row[] = [
    [knowledge, { root }],
    [originals, {}],
  ]
  if (approval) rows.unshift([ApprovalService, {}])
  loop = await createLoop(script, rows)
  ;(loop.ctx as any).tools.register(writeTool)
  const asked: string[] = []
  if (approval) (loop.ctx as any).on('approval/request', async (req: { toolName: string; reason?: string }) => (asked.push(`${req.toolName}: ${req.reason}`), approval))
  return { ws, root, asked }
}

const results = (request: LoopRequest): string[] =>
  (request.options.messages as any[]).flatMap((m) =>
    (m.content ?? []).filter((b: any) => b.type === 'tool-result').map((b: any) => (b.content ?? []).map((c: any) => c.text ?? '').join('') + (b.isError ? ' [isError]' : '')),
  )
const lastResult = (l: Loop) => results(l.adapter.requests.at(-1)!).at(-1)!
const offered = (request: LoopRequest) => (request.options.tools ?? []).map((t: any) => t.name)

describe('the originals row in the agent loop', () => {
  it('offers its tools; without an approval service or a question UI, retire_source and request_file are not offered', async () => {
    await boot(byPrompt({ hi: [{ text: 'hello' }] }))
    await loop!.ask('hi')
    const tools = offered(loop!.adapter.requests[0])
    expect(tools).toEqual(expect.arrayContaining(['list_sources', 'extract_text', 'save_to_sources', 'download_to_sources']))
    expect(tools).not.toContain('retire_source')
    expect(tools).not.toContain('request_file')
  })

  it("denies the agent's write tool inside originals/ (pointing at the tools) and lets it write elsewhere", async () => {
    const { ws, root } = await boot(
      byPrompt({
        'write inside': [{ toolCalls: [{ name: 'write', arguments: { file_path: 'kb/originals/notes.md', content: 'x' } }] }, { text: 'ok' }],
        'write outside': [{ toolCalls: [{ name: 'write', arguments: { file_path: 'kb/notes.md', content: 'x' } }] }, { text: 'ok' }],
      }),
    )
    await loop!.ask('write inside', { cwd: ws })
    expect(lastResult(loop!)).toMatch(/refused: kb\/originals\/notes\.md is inside the originals folder.*save_to_sources/)
    expect(existsSync(join(root, 'originals/notes.md'))).toBe(false)
    await loop!.ask('write outside', { cwd: ws })
    expect(lastResult(loop!)).toBe('wrote kb/notes.md')
  })

  it('save_to_sources then extract_text: the text comes back redacted', async () => {
    const { ws } = await boot(
      byPrompt({
        'save it': [{ toolCalls: [{ name: 'save_to_sources', arguments: { source: 'lab.docx', destination: 'lab.docx' } }] }, { text: 'ok' }],
        'read it': [{ toolCalls: [{ name: 'extract_text', arguments: { source: 'originals/lab.docx' } }] }, { text: 'ok' }],
      }),
    )
    writeFileSync(join(ws, 'lab.docx'), await makeDocx(SECRET))
    await loop!.ask('save it', { cwd: ws })
    expect(lastResult(loop!)).toBe('Saved as originals/lab.docx.')
    await loop!.ask('read it', { cwd: ws })
    expect(lastResult(loop!)).toContain('password: [REDACTED]')
    expect(lastResult(loop!)).not.toContain(SECRET)
  })

  it("retire_source asks the person through dsh's approval flow, moves the file and reminds about summaries", async () => {
    const { ws, root, asked } = await boot(
      byPrompt({
        'save it': [{ toolCalls: [{ name: 'save_to_sources', arguments: { source: 'old.docx', destination: 'old.docx' } }] }, { text: 'ok' }],
        'retire it': [{ toolCalls: [{ name: 'retire_source', arguments: { source: 'old.docx', why: 'wrong', reason: 'It lists last year prices.' } }] }, { text: 'ok' }],
      }),
      'allowed-once',
    )
    writeFileSync(join(ws, 'old.docx'), await makeDocx())
    await loop!.ask('save it', { cwd: ws })
    await loop!.ask('retire it', { cwd: ws })
    expect(asked).toEqual([expect.stringMatching(/^retire_source: Retire the original old\.docx as wrong .*: It lists last year prices\./)])
    expect(lastResult(loop!)).toMatch(/^originals\/old\.docx is retired \(wrong\)\. If any summary or note was built on it, retire or supersede it\./)
    expect(existsSync(join(root, 'originals/.retired/old.docx'))).toBe(true)
  })
})

describe('request_file', () => {
  it("asks the person through dsh's question service and copies the path they give, with provenance person", async () => {
    const { default: UserQuestionService } = await import('@deepseek-ai/dsh-user-questions')
    const ws = mkdtempSync(join(tmpdir(), 'dsh-ks-orig-ws-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'dsh-ks-orig-home-'))
    writeFileSync(join(elsewhere, 'prices.xlsx'), 'not really a workbook')
    loop = await createLoop(
      byPrompt({ 'ask for it': [{ toolCalls: [{ name: 'request_file', arguments: { description: 'The 2026 price list you mentioned.', destination: 'prices/2026.xlsx' } }] }, { text: 'ok' }] }),
      [
        [UserQuestionService, {}],
        [knowledge, { root: join(ws, 'kb') }],
        [originals, {}],
      ],
    )
    const asked: string[] = []
    ;(loop.ctx as any).userQuestions.registerProvider({
      async ask(request: { questions: Array<{ id: string; detail?: string }> }) {
        asked.push(request.questions[0].detail ?? '')
        return { answers: [{ id: 'path', selected: [], custom: join(elsewhere, 'prices.xlsx') }] }
      },
    })
    await loop.ask('ask for it', { cwd: ws })
    expect(asked).toEqual(['The 2026 price list you mentioned.'])
    expect(lastResult(loop)).toBe('Copied as originals/prices/2026.xlsx.')
    expect(existsSync(join(ws, 'kb/originals/prices/2026.xlsx'))).toBe(true)
  })
})
