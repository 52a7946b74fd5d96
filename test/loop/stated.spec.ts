/**
 * A round in which the person states how they want work done and the agent only says "Got it" (issue 25), through
 * the real agent loop with a scripted model: it is kept, titled and found by the statement, tagged
 * `preference-stated`, and the next request of the session carries the suggestion to record it as a preference in
 * the runtime context, with the system prompt byte-identical before and after.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import * as recall from '../../src/recall/index.js'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { byPrompt, createLoop, type Loop, type LoopRequest } from '../harness/loop.ts'

const SESSION = 'session-5a7e0c11-2222-4333-8444-555566667777'
const RULE = 'Never push straight to main; always a feature branch and a PR.'
let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

/** Resolves at the next document the store writes (capture runs after the turn, off the loop). */
const nextWrite = (store: KnowledgeStore) =>
  new Promise<string>((resolve) => {
    const off = store.onChange((change) => {
      if (change.type !== 'written') return
      off()
      resolve(change.id)
    })
  })

const contextOf = (request: LoopRequest): string =>
  (request.options.messages as Array<{ role: string; source?: { kind?: string }; content: Array<{ type: string; text?: string }> }>)
    .filter((m) => m.role === 'user' && m.source?.kind === 'plugin')
    .flatMap((m) => m.content.map((b) => b.text ?? ''))
    .join('\n')

describe('a stated way of working in the real agent loop', () => {
  it('is kept under the statement, and the hint reaches the model through the runtime context only', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-stated-')), 'kb')
    loop = await createLoop(byPrompt({ 'Never push': [{ text: 'Got it.' }], 'Rename the helper': [{ text: 'Renamed it to parseArgs in src/cli.ts.' }] }), [
      [knowledge, { root }],
      [capture, {}],
      [recall, { sameWorkspaceOnly: false }],
    ])
    const store = (loop.ctx as unknown as { knowledge: KnowledgeStore }).knowledge
    const written = nextWrite(store)
    await loop.ask(RULE, { session: SESSION, cwd: '/work/proj' })
    const id = await written
    const meta = store.get(id)!
    expect(meta.title).toBe(RULE)
    expect(meta.tags).toContain('preference-stated')
    const hit = store.search('push feature branch', { limit: 3 })[0]
    expect(hit.id).toBe(id)
    expect(hit.snippet).toMatch(/feature/)

    await loop.ask('Rename the helper in src/cli.ts', { session: SESSION, cwd: '/work/proj' })
    const [first, second] = loop.adapter.requests
    expect(second.system).toBe(first.system)
    expect(first.system).not.toMatch(/preference-stated|stated how they want/)
    expect(contextOf(first)).not.toContain('knowledge_note(kind: "preference"')
    const hint = contextOf(second)
    expect(hint).toContain(id)
    expect(hint).toContain('knowledge_note(kind: "preference", quote:')
    // what the hint costs: stated once, about this many characters (≈ 4 per token)
    console.log(`stated-preference hint: ${hint.length} characters, system prompt ${first.system.length} characters both times`)
  })

  it('gives no hint for a round that states nothing lasting', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-stated-')), 'kb')
    loop = await createLoop(byPrompt({ Thanks: [{ text: 'You are welcome!' }], Rename: [{ text: 'Renamed it to parseArgs in src/cli.ts because the old name shadowed a builtin.' }] }), [
      [knowledge, { root }],
      [capture, {}],
      [recall, { sameWorkspaceOnly: false }],
    ])
    await loop.ask('Thanks!', { session: SESSION, cwd: '/work/proj' })
    await loop.ask('Rename the helper in src/cli.ts', { session: SESSION, cwd: '/work/proj' })
    expect(contextOf(loop.adapter.requests[1])).not.toContain('knowledge_note(kind: "preference"')
  })

  it("keeps a fact stated across turns with the stating turn, the agent's question beside it", async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-stated-')), 'kb')
    loop = await createLoop(byPrompt({ 'Set up the project': [{ text: 'Sure. Which package manager do you use here?' }], pnpm: [{ text: 'Got it.' }], '5433': [{ text: 'Noted.' }] }), [
      [knowledge, { root }],
      [capture, {}],
      [recall, { sameWorkspaceOnly: false }],
    ])
    const store = (loop.ctx as unknown as { knowledge: KnowledgeStore }).knowledge
    await loop.ask('Set up the project for me', { session: SESSION, cwd: '/work/proj' })
    const written = nextWrite(store)
    await loop.ask('pnpm', { session: SESSION, cwd: '/work/proj' })
    const id = await written
    expect(store.get(id)!.turn).toBe(2)
    expect(store.get(id)!.title).toBe('Which package manager do you use here? pnpm')
    expect(store.text(id)).toMatch(/## Asked\n+Which package manager do you use here\?/)
    expect(store.search('package manager', { limit: 3 })[0]?.id).toBe(id)
    await store.flush()
    // the first turn (a question back, no finding) is not a document
    expect(store.count({})).toBe(1)
  })
})
