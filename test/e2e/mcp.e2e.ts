/**
 * `dsh-knowledge mcp` as MCP clients really start it: the built `lib/cli/bin.js` over stdio, driven by the SDK's own
 * stdio client and by the MCP Inspector's CLI mode. Build first (`node scripts/build.mjs`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
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
    // The note is a file under the client's session folder, and no lock was left behind.
    expect(readdirSync(root)).toContain('mcp-e2e')
    expect(existsSync(join(root, '.knowledge/cache/index.lock'))).toBe(false)
  })
})

describe('the MCP Inspector (CLI mode) against the built binary', () => {
  const inspect = (args: string[]) => spawnCollect(process.execPath, [INSPECTOR, '--cli', process.execPath, BIN, 'mcp', '--root', root, '--cwd', '/ws/app', ...args], { env: process.env })

  it('lists the tools and calls knowledge_search', async () => {
    const listed = await inspect(['--method', 'tools/list'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['knowledge_search', 'knowledge_read', 'knowledge_note', 'knowledge_supersede', 'knowledge_check'])
    const called = await inspect(['--method', 'tools/call', '--tool-name', 'knowledge_search', '--tool-arg', 'query=hashFiles'])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout).content[0].text).toMatch(/document\(s\) match "hashFiles"/)
  })
})
