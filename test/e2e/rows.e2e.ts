/**
 * Row independence with the real dsh CLI: a row disabled in the profile's patch layer leaves the others working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDshHome } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

const FINDING = 'The cause was a stale lockfile: pnpm resolved esbuild 0.19 because pnpm-lock.yaml pinned it; regenerated the lockfile with pnpm@10.'
let server: ModelServer

beforeAll(async () => {
  server = await startModelServer(byPrompt({ 'Why does esbuild': [{ text: FINDING }] }, { title: 'Scripted title' }))
})
afterAll(async () => {
  await server?.close()
})

const toolsOffered = () =>
  new Set(
    server.requests
      .filter((r) => r.kind === 'chat')
      .at(-1)
      ?.body.tools?.map((t) => t.function.name) ?? [],
  )

describe('rows are independent in a real dsh profile', () => {
  it('captures with recall, note and http disabled', async () => {
    const home = await createDshHome({ modelUrl: server.url, profilePatch: ['knowledge-recall', 'knowledge-note', 'knowledge-http'].map((id) => `- id: ${id}\n  disabled: true`).join('\n') })
    const run = await home.run('Why does esbuild resolve the old version?')
    expect(run.code, run.log).toBe(0)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(1)
    const tools = toolsOffered()
    expect(tools.has('knowledge_search')).toBe(false)
    expect(tools.has('knowledge_note')).toBe(false)
  }, 180_000)

  it('offers recall and note with capture disabled, and writes nothing', async () => {
    const home = await createDshHome({ modelUrl: server.url, profilePatch: '- id: knowledge-capture\n  disabled: true' })
    const run = await home.run('Why does esbuild resolve the old version?')
    expect(run.code, run.log).toBe(0)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(0)
    const tools = toolsOffered()
    expect(tools.has('knowledge_search')).toBe(true)
    expect(tools.has('knowledge_read')).toBe(true)
    expect(tools.has('knowledge_note')).toBe(true)
  }, 180_000)
})
