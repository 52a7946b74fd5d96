/**
 * `dsh-knowledge mcp` as MCP clients really start it: the built `lib/cli/bin.js` over stdio, driven by the SDK's own
 * stdio client, by the MCP Inspector's CLI mode, and by dsh's own MCP client in a headless run whose profile reaches
 * the base only through the server. Build first (`node scripts/build.mjs`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { createDshHome, PROJECT_ROOT } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ChatMessage } from '../harness/model-server.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { roundDraft } from '../harness/stores.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const INSPECTOR = join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js')
let root = ''

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('build first: node scripts/build.mjs')
  root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-mcp-')), 'kb')
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  await store.write(roundDraft('Bump the cache key with the lockfile hash: `hashFiles(pnpm-lock.yaml)`.', { cwd: '/ws/app' }))
  await store.close()
})

describe('the built server over stdio', () => {
  let client: Client
  afterAll(async () => client?.close())

  it('answers the SDK stdio client: tools, a search, a resource, a note; stdout carries only the protocol', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root, '--cwd', '/ws/app'], stderr: 'pipe' })
    client = new Client({ name: 'e2e', version: '1.0.0' })
    await client.connect(transport)
    expect(client.getServerVersion()?.name).toBe('dsh-knowledge')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('knowledge_search')
    const found = (await client.callTool({ name: 'knowledge_search', arguments: { query: 'lockfile cache key' } })) as { content: Array<{ text: string }> }
    expect(found.content[0].text).toMatch(/^1 document\(s\) match "lockfile cache key" in \/ws\/app/)
    const { resources } = await client.listResources()
    const read = await client.readResource({ uri: resources[0].uri })
    expect((read.contents[0] as { text: string }).text).toContain('hashFiles(pnpm-lock.yaml)')
    const saved = (await client.callTool({ name: 'knowledge_note', arguments: { title: 'CI cache key', finding: 'The CI cache key is the lockfile hash.' } })) as {
      content: Array<{ text: string }>
    }
    expect(saved.content[0].text).toMatch(/^Saved note /)
    // The note is a file under the client's session folder; once the client is gone, so is the server's lock.
    expect(readdirSync(root)).toContain('mcp-e2e')
    await client.close()
    expect(existsSync(join(root, '.knowledge/cache/index.lock'))).toBe(false)
  })
})

describe('the MCP Inspector (CLI mode) against the built binary', () => {
  const inspect = (args: string[]) => spawnCollect(process.execPath, [INSPECTOR, '--cli', process.execPath, BIN, 'mcp', '--root', root, '--cwd', '/ws/app', ...args], { env: process.env })

  it('lists the tools and calls knowledge_search', async () => {
    const listed = await inspect(['--method', 'tools/list'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
      'knowledge_search',
      'knowledge_read',
      'knowledge_note',
      'knowledge_supersede',
      'knowledge_check',
      'knowledge_index',
      'knowledge_create',
      'knowledge_edit',
      'knowledge_rewrite',
      'knowledge_log',
    ])
    const called = await inspect(['--method', 'tools/call', '--tool-name', 'knowledge_search', '--tool-arg', 'query=hashFiles'])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout).content[0].text).toMatch(/document\(s\) match "hashFiles"/)
  })
})

describe("dsh's own MCP client", () => {
  it("a headless round whose profile has none of the bundle's rows searches and reads through the server", async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'dsh-ks-mcp-ws-'))
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
    await store.start()
    const written = await store.write(roundDraft('Deploys go through `make release`, never `kubectl apply` by hand.', { cwd: workspace, title: 'How do we deploy?', turn: 7 }))
    await store.close()
    const model = await startModelServer(
      byPrompt(
        {
          'How do we deploy': [
            { toolCalls: [{ name: 'mcp__knowledge__knowledge_search', arguments: { query: 'deploy release' } }] },
            { toolCalls: [{ name: 'mcp__knowledge__knowledge_read', arguments: { id: written.id } }] },
            { text: 'Use make release.' },
          ],
        },
        { title: 'Scripted title' },
      ),
    )
    try {
      // The bundle is installed (so the patch can name its rows) but every row of it is off: only the MCP server serves.
      // Every row the bundle's patch inserts, read from it, so a new row is switched off here too.
      const patch = parse(readFileSync(join(PROJECT_ROOT, 'cordis.patch.yml'), 'utf8')) as Array<{ insert?: Array<{ id: string }> }>
      const rows = patch.flatMap((entry) => entry.insert ?? []).map((row) => row.id)
      const off = rows.map((id) => `- id: ${id}\n  disabled: true`).join('\n')
      const client = `- insert:\n    - id: mcp-knowledge\n      name: '@deepseek-ai/dsh-mcp-client'\n      config:\n        serverName: knowledge\n        transport: stdio\n        command: ${JSON.stringify(process.execPath)}\n        args: ${JSON.stringify([BIN, 'mcp', '--root', root, '--cwd', workspace])}\n        failOnStartupError: true\n`
      const home = await createDshHome({ profile: 'headless', modelUrl: model.url, profilePatch: `${off}\n${client}` })
      const run = await home.run('How do we deploy this service?', { cwd: workspace })
      expect(run.code, `${run.stderr}\n${run.log}`).toBe(0)
      const chat = model.requests.filter((r) => r.kind === 'chat')
      const tools = (chat[0].body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? []
      expect(tools).toContain('mcp__knowledge__knowledge_search')
      expect(tools.some((n) => n === 'knowledge_search')).toBe(false)
      const results = (i: number) => chat[i].body.messages.filter((m: ChatMessage) => m.role === 'tool').map((m: ChatMessage) => String(m.content))
      expect(results(1).at(-1)).toContain(written.id)
      expect(results(2).at(-1)).toContain('never `kubectl apply` by hand')
      expect(run.stdout).toContain('Use make release.')
    } finally {
      await model.close()
    }
  }, 180_000)
})
