/**
 * Correcting knowledge with the real `dsh --profile headless` CLI and the packed bundle: a headless run is offered
 * knowledge_supersede and knowledge_check but never knowledge_retire (nobody could approve it); a preference the
 * person states in one run is listed in the next run's system prompt; a note that supersedes an older one makes the
 * next run's search list the new one first with the old one marked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDshHome, type DshHome } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, systemText, type ChatMessage, type LoggedRequest, type ModelServer } from '../harness/model-server.ts'

let server: ModelServer
let home: DshHome
let workspace: string

const chat = () => server.requests.filter((r) => r.kind === 'chat')
const toolNames = (r: LoggedRequest) => (r.body.tools ?? []).map((t) => t.function.name)
const toolMessages = (r: LoggedRequest) => r.body.messages.filter((m: ChatMessage) => m.role === 'tool').map((m) => String(m.content))

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'dsh-ks-relws-'))
  mkdirSync(join(workspace, '.git'))
  server = await startModelServer(
    byPrompt(
      {
        'From now on': [
          {
            toolCalls: [
              {
                name: 'knowledge_note',
                arguments: { kind: 'preference', title: 'Always use British spelling', finding: 'Use British spelling in every answer and commit message.', quote: 'always use British spelling' },
              },
            ],
          },
          { text: 'Understood.' },
        ],
        'record the port': [
          { toolCalls: [{ name: 'knowledge_note', arguments: { title: 'Dev server runs on port 5173', finding: 'The vite dev server of this project listens on port 5173.' } }] },
          { text: 'Noted.' },
        ],
      },
      { title: 'Scripted title' },
    ),
  )
  home = await createDshHome({ profile: 'headless', modelUrl: server.url })
}, 180_000)

afterAll(async () => {
  await server?.close()
})

describe('correcting knowledge with the real dsh CLI (headless)', () => {
  it("offers supersede and check but not retire; the preference reaches the next run's prompt", async () => {
    const first = await home.run('From now on, always use British spelling, please.', { cwd: workspace })
    expect(first.code, first.log).toBe(0)
    const firstChat = chat()
    expect(toolNames(firstChat[0])).toEqual(expect.arrayContaining(['knowledge_note', 'knowledge_supersede', 'knowledge_check', 'knowledge_search', 'knowledge_read']))
    expect(toolNames(firstChat[0])).not.toContain('knowledge_retire')
    expect(toolMessages(firstChat.at(-1)!).at(-1)).toMatch(/^Saved preference \S+-n1: Always use British spelling\.$/)
    expect(systemText(firstChat[0].body)).not.toContain('Preferences the person stated')
    const second = await home.run('What is the port of the dev server?', { cwd: workspace })
    expect(second.code, second.log).toBe(0)
    const system = systemText(chat().at(-1)!.body)
    expect(system).toMatch(/Preferences the person stated in earlier sessions of this workspace[^\n]*\n- \S+-n1: Always use British spelling \(the person: "always use British spelling"\)/)
  }, 180_000)

  it("a later run supersedes a note with a new one; the next run's search lists the new one first, the old one marked", async () => {
    const noted = await home.run('Please record the port finding.', { cwd: workspace })
    expect(noted.code, noted.log).toBe(0)
    const oldId = /^id: (\S+)$/m.exec(allDocuments(home.knowledgeRoot).find((d) => d.text.includes('port 5173'))!.text)![1]
    server.setScript(
      byPrompt(
        {
          'port changed': [
            {
              toolCalls: [
                {
                  name: 'knowledge_note',
                  arguments: { title: 'Dev server moved to port 3000', finding: 'Since the vite config change the dev server of this project listens on port 3000, not 5173.', supersedes: [oldId] },
                },
              ],
            },
            { text: 'Corrected.' },
          ],
          'Which port': [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'dev server port' } }] }, { text: 'Port 3000.' }],
        },
        { title: 'Scripted title' },
      ),
    )
    const corrected = await home.run('The port changed to 3000, correct the note.', { cwd: workspace })
    expect(corrected.code, corrected.log).toBe(0)
    expect(toolMessages(chat().at(-1)!).at(-1)).toMatch(new RegExp(`It supersedes ${oldId}\\.$`))
    const asked = await home.run('Which port does the dev server use?', { cwd: workspace })
    expect(asked.code, asked.log).toBe(0)
    const result = toolMessages(chat().at(-1)!).at(-1)!
    const ids = result
      .split('\n')
      .filter((l) => /^\d+\. /.test(l))
      .map((l) => /^\d+\. (\S+)/.exec(l)![1])
    expect(ids.indexOf(oldId)).toBeGreaterThan(0)
    expect(result).toMatch(/1\. \S+ \(v:1\) — Dev server moved to port 3000/)
    expect(result).toMatch(new RegExp(`${oldId} \\(v:2\\) — Dev server runs on port 5173\\n .* · superseded by \\S+`))
  }, 180_000)
})
