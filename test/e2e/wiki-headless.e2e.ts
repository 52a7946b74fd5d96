/**
 * The wiki with the real `dsh --profile headless` CLI and the packed bundle: the five wiki tools and the prompt
 * section reach the model, the bundle's skills are in dsh's skill registry (the model loads knowledge-ingest with
 * dsh's own `skill` tool), and a page created in the run is on disk with the generated index.md. Build first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDshHome, type DshHome } from '../harness/dsh.ts'
import { byPrompt, startModelServer, systemText, type ChatMessage, type LoggedRequest, type ModelServer } from '../harness/model-server.ts'

let server: ModelServer
let home: DshHome
let workspace: string
const chat = () => server.requests.filter((r) => r.kind === 'chat')
const toolNames = (r: LoggedRequest) => (r.body.tools ?? []).map((t) => t.function.name)
const toolMessages = (r: LoggedRequest) => r.body.messages.filter((m: ChatMessage) => m.role === 'tool').map((m) => String(m.content))

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'dsh-ks-wikiws-'))
  mkdirSync(join(workspace, '.git'))
  // dsh adds the skill catalogue (and a loaded skill) as user messages after the prompt: steps count from the prompt.
  const steps = [
    { toolCalls: [{ name: 'skill', arguments: { name: 'knowledge-ingest' } }] },
    { toolCalls: [{ name: 'knowledge_create', arguments: { type: 'concept', slug: 'spring-tides', title: 'Spring tides', content: 'Tides of the largest range.' } }] },
    { text: 'Done.' },
  ]
  const script = byPrompt({}, { title: 'Scripted title' })
  server = await startModelServer((request) => {
    if (request.kind !== 'chat') return script(request)
    const at = request.body.messages.findIndex((m: ChatMessage) => m.role === 'user' && JSON.stringify(m.content).includes('curate the wiki'))
    const step = request.body.messages.slice(at + 1).filter((m: ChatMessage) => m.role === 'assistant').length
    return steps[Math.min(step, steps.length - 1)]
  })
  home = await createDshHome({ profile: 'headless', modelUrl: server.url })
}, 180_000)

afterAll(async () => {
  await server?.close()
})

describe('the wiki in a real headless dsh run', () => {
  it('offers the tools, the prompt section and the skills; the page and index.md land on disk', async () => {
    const run = await home.run('Please curate the wiki.', { cwd: workspace })
    expect(run.code, run.log).toBe(0)
    const [first, afterSkill, afterCreate] = chat()
    expect(chat().length, `${run.stdout}\n${run.log.slice(-3000)}\n${JSON.stringify(toolNames(first))}`).toBe(3)
    expect(toolNames(first)).toEqual(expect.arrayContaining(['knowledge_index', 'knowledge_create', 'knowledge_edit', 'knowledge_rewrite', 'knowledge_log', 'skill']))
    expect(systemText(first.body)).toContain('## Knowledge wiki')
    expect(JSON.stringify(first.body)).toContain('knowledge-ingest')
    expect(toolMessages(afterSkill).join('\n')).toContain('Ingest into the knowledge wiki')
    expect(toolMessages(afterCreate).at(-1)).toMatch(/^Created concept\/spring-tides \(v:1, concepts\/spring-tides\.md\)/)
    expect(existsSync(join(home.knowledgeRoot, 'concepts/spring-tides.md'))).toBe(true)
    expect(readFileSync(join(home.knowledgeRoot, 'index.md'), 'utf8')).toContain('- [Spring tides](concepts/spring-tides.md) — Tides of the largest range.')
  })
})
