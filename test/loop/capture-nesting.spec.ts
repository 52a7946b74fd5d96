/**
 * Deep nesting in the plugin (issue 10, item 11): the real capture row, in the real in-process dsh core, gets a turn
 * whose tool arguments are nested 200k levels deep, both as a value (a code-mode dispatch records its arguments as a
 * value) and as the JSON string a model sends through the real agent loop. The round is stored with a bounded marker
 * in place of the deep part, redacted like any argument: never a crash, never a silent loss.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { byPrompt, createLoop, type Loop } from '../harness/loop.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'

const SESSION = 'session-3f2a9c1e-1111-4222-8333-444455556666'
// Fake credential of a real shape, assembled so no scanner flags this file itself.
const GH = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
const ANSWER =
  'The cause was the pnpm store path: pnpm install failed with ERR_PNPM_EACCES because /root/.local/share/pnpm was owned by another user. Fixed by setting store-dir=/tmp/pnpm-store in .npmrc; chose that over chown because CI images are read-only.'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

/** A value nested `levels` deep, built without recursion; a token sits at the top and at the bottom. */
function deepValue(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { token: GH }
  for (let i = 0; i < levels; i++) v = { a: v }
  return { command: `GITHUB_TOKEN=${GH} pnpm install`, nested: v }
}

describe('capture with deeply nested tool arguments', () => {
  it('stores a code-mode round whose arguments value is 200k levels deep, with the deep part replaced by a marker', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-nest-loop-')), 'kb')
    loop = await createLoop(
      () => ({ text: 'unused' }),
      [
        [knowledge, { root }],
        [capture, {}],
      ],
    )
    const session = { id: SESSION, header: { cwd: '/work/proj' } }
    const emit = (type: string, data: unknown) => (loop!.ctx as any).emit('session/event', session, { type, time: Date.now(), data })
    emit('turn/start', { turn: 1 })
    emit('user/message', { source: { kind: 'user' }, content: [{ type: 'text', text: 'Why does pnpm install fail on the CI runner?' }] })
    emit('tool/code-dispatch-start', { dispatchId: 'd1', tool: 'bash', args: deepValue(200_000) })
    emit('assistant/message', { message: { content: [{ type: 'text', text: ANSWER }] } })
    emit('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await loop.dispose()

    const docs = allDocuments(root)
    expect(docs, JSON.stringify(ledgerEntries(root))).toHaveLength(1)
    const { meta, body } = parseDocument(docs[0].text, docs[0].path, 'x', 0)
    expect(meta.id).toBe('3f2a9c1e-t1')
    expect(body).toContain('[nested deeper than 64 levels: omitted]')
    expect(body).toContain('GITHUB_TOKEN=[REDACTED] pnpm install')
    expect(docs[0].text).not.toContain(GH)
    expect(docs[0].text.length).toBeLessThan(10_000)
    expect(ledgerEntries(root).map((e) => e.type)).toEqual(['kept'])
  })

  it('records a round that cannot be folded as failed, with the reason (never a silent loss)', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-nest-loop-')), 'kb')
    loop = await createLoop(
      () => ({ text: 'unused' }),
      [
        [knowledge, { root }],
        [capture, {}],
      ],
    )
    const session = { id: SESSION, header: { cwd: '/work/proj' } }
    const emit = (type: string, data: unknown) => (loop!.ctx as any).emit('session/event', session, { type, time: Date.now(), data })
    const hostile = {
      get command(): string {
        throw new Error('hostile getter')
      },
    }
    emit('turn/start', { turn: 2 })
    emit('user/message', { source: { kind: 'user' }, content: [{ type: 'text', text: 'Why does pnpm install fail on the CI runner?' }] })
    emit('tool/code-dispatch-start', { dispatchId: 'd1', tool: 'bash', args: hostile })
    emit('assistant/message', { message: { content: [{ type: 'text', text: ANSWER }] } })
    emit('turn/end', { turn: 2, reason: { kind: 'completed' } })
    await loop.dispose()
    expect(allDocuments(root)).toEqual([])
    expect(ledgerEntries(root)).toMatchObject([{ type: 'failed', session: SESSION, turn: 2, error: 'hostile getter' }])
  })

  it('stores a round whose model-sent arguments string is 200k levels deep, through the real agent loop', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-nest-loop-')), 'kb')
    const deep = '{"a":'.repeat(200_000) + `{"token":"${GH}"}` + '}'.repeat(200_000)
    loop = await createLoop(byPrompt({ 'pnpm install': [{ toolCalls: [{ name: 'write', arguments: deep }] }, { text: ANSWER }] }), [
      [knowledge, { root }],
      [capture, {}],
    ])
    await loop.ask('Why does pnpm install fail on the CI runner?', { session: SESSION, cwd: '/work/proj' })
    await loop.dispose()
    const docs = allDocuments(root)
    expect(docs, JSON.stringify(ledgerEntries(root))).toHaveLength(1)
    expect(docs[0].text).not.toContain(GH.slice(0, 10))
    expect(docs[0].text.length).toBeLessThan(10_000)
  })
})
