/**
 * The MCP server through the SDK's own client (in-memory transport, the real server and store): the tools it lists
 * are the dsh rows' own words, each tool does its work on a real root, resources read documents, hostile arguments
 * get errors, a huge document is cut to the read budget, and retire and preferences need the person (elicitation).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createKnowledgeServer, sessionName, storeClosed, workspaceOfRoots } from '../../src/cli/mcp/server.js'
import { READ_DESCRIPTION, SEARCH_DESCRIPTION } from '../../src/recall/tool-specs.js'
import { NOTE_DESCRIPTION } from '../../src/note/tool-specs.js'
import { OUTPUT_BUDGET } from '../../src/tool-output.js'
import { createDescription } from '../../src/wiki/tools.js'
import { resolveTypes } from '../../src/knowledge/wiki/page-types.js'
import { roundDraft, storeFixture } from '../harness/stores.js'

const fixture = storeFixture('mcp')
const clients: Client[] = []
afterEach(async () => {
  while (clients.length) await clients.pop()!.close()
})

interface Connect {
  cwd?: string
  /** Answer elicitation requests with this (omit: the client declares no elicitation). */
  approve?: boolean
  /** Declare roots and answer roots/list with these. */
  roots?: Array<{ uri: string }>
  idleMs?: number
}

async function connect(root: string, { cwd, approve, roots, idleMs }: Connect = {}): Promise<{ client: Client; server: ReturnType<typeof createKnowledgeServer>; asked: string[] }> {
  const server = createKnowledgeServer({ root, cwd, version: '0.0.0-test', idleMs })
  const capabilities: Record<string, unknown> = {}
  if (approve !== undefined) capabilities.elicitation = {}
  if (roots) capabilities.roots = { listChanged: true }
  const client = new Client({ name: 'Test Client', version: '1.0.0' }, { capabilities })
  const asked: string[] = []
  if (approve !== undefined)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message))
      return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' }
    })
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }))
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(a), client.connect(b)])
  clients.push(client)
  return { client, server, asked }
}

const text = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n')

async function seeded(): Promise<string> {
  const root = fixture.tmpRoot()
  const store = fixture.open(root)
  await store.start()
  await store.write(roundDraft('The cache key includes the lockfile hash, so every dependency bump misses the cache.', { cwd: '/ws/app' }))
  await store.write(roundDraft('Rotate the staging certificates with certbot renew --force-renewal.', { cwd: '/other', title: 'How do I rotate certificates?', turn: 2 }))
  await fixture.closeAll()
  return root
}

describe('dsh-knowledge mcp: tools', () => {
  it("lists the rows' tools with the same descriptions; no retire where the client cannot ask", async () => {
    const { client } = await connect(await seeded(), { cwd: '/ws/app' })
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual([
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
    expect(tools.find((t) => t.name === 'knowledge_create')?.description).toBe(createDescription(resolveTypes()))
    expect(tools.find((t) => t.name === 'knowledge_search')?.description).toBe(SEARCH_DESCRIPTION)
    expect(tools.find((t) => t.name === 'knowledge_read')?.description).toBe(READ_DESCRIPTION)
    expect(tools.find((t) => t.name === 'knowledge_note')?.description).toBe(NOTE_DESCRIPTION)
    expect(tools.find((t) => t.name === 'knowledge_search')?.annotations?.readOnlyHint).toBe(true)
    expect(tools.find((t) => t.name === 'knowledge_note')?.annotations?.readOnlyHint).toBe(false)
  })

  it('searches and reads within the workspace rule, as knowledge_search does', async () => {
    const { client } = await connect(await seeded(), { cwd: '/ws/app' })
    const found = text(await client.callTool({ name: 'knowledge_search', arguments: { query: 'cache lockfile' } }))
    expect(found).toMatch(/1 document\(s\) match "cache lockfile" in \/ws\/app/)
    const id = /\d+\. (\S+) \(v:1\)/.exec(found)?.[1]
    expect(id).toBeTruthy()
    // The other workspace's document is not visible from here.
    expect(text(await client.callTool({ name: 'knowledge_search', arguments: { query: 'certbot' } }))).toMatch(/^No knowledge documents match/)
    const read = text(await client.callTool({ name: 'knowledge_read', arguments: { id, section: 'Answer' } }))
    expect(read).toContain('lockfile hash')
  })

  it("takes the workspace from the client's roots when no --cwd is given", async () => {
    const { client } = await connect(await seeded(), { roots: [{ uri: pathToFileURL('/other').href }, { uri: pathToFileURL('/ws/app').href }] })
    expect(text(await client.callTool({ name: 'knowledge_search', arguments: { query: 'certbot' } }))).toMatch(/1 document\(s\) match "certbot" in \/other/)
    expect(workspaceOfRoots([{ uri: 'file:///a/b' }])).toBe('/a/b')
    expect(workspaceOfRoots([{ uri: 'http://x/' }])).toBeUndefined()
  })

  it('writes a note through the store: redacted, filed under the client, then searchable', async () => {
    const root = await seeded()
    const { client } = await connect(root, { cwd: '/ws/app' })
    const saved = text(
      await client.callTool({ name: 'knowledge_note', arguments: { title: 'Staging DB port', finding: 'The staging database listens on 5433. password=hunter2hunter2 is the old one.' } }),
    )
    expect(saved).toMatch(/^Saved note \S+: Staging DB port \(1 secret-like value\(s\) were masked\)/)
    const found = text(await client.callTool({ name: 'knowledge_search', arguments: { query: 'staging database 5433' } }))
    const id = /\d+\. (\S+) \(v:1\) — Staging DB port/.exec(found)?.[1]
    expect(id).toBeTruthy()
    const store = fixture.open(root)
    await store.start()
    const doc = await store.read(id!)
    expect(doc?.meta.session).toBe(sessionName('Test Client'))
    expect(readFileSync(join(root, doc!.path), 'utf8')).not.toContain('hunter2hunter2')
  })

  it('answers hostile arguments with errors, never a crash', async () => {
    const { client } = await connect(await seeded(), { cwd: '/ws/app' })
    for (const [name, args] of [
      ['knowledge_read', { id: '../../etc/passwd' }],
      ['knowledge_read', { id: '/etc/passwd' }],
      ['knowledge_read', { id: 'x\u0000y' }],
      ['knowledge_search', { query: 42 }],
      ['knowledge_search', { query: 'x', limit: 10_000 }],
      ['knowledge_note', { title: 'no finding' }],
      ['knowledge_supersede', { id: 'nope-t1', by: 'nope-t2' }],
      ['no_such_tool', {}],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as { isError?: boolean }
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(text(result)).toMatch(/^Error: /)
    }
  })

  it('cuts a huge document to the read budget, with the offset to go on from', async () => {
    const root = fixture.tmpRoot()
    const store = fixture.open(root)
    await store.start()
    const big = await store.write(roundDraft(`${'lorem ipsum dolor sit amet '.repeat(4000)}`, { cwd: '/ws/app' }))
    await fixture.closeAll()
    const { client } = await connect(root, { cwd: '/ws/app' })
    const read = text(await client.callTool({ name: 'knowledge_read', arguments: { id: big.id, section: 'Answer' } }))
    expect(read.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_read)
    expect(read).toMatch(new RegExp(`Continue with knowledge_read\\(\\{"id": "${big.id}", "offset": \\d+\\}\\)\\]$`))
  })
})

describe('dsh-knowledge mcp: the wiki', () => {
  it('creates, edits, catalogues and logs wiki pages through the same code as the wiki row', async () => {
    const root = await seeded()
    const { client } = await connect(root, { cwd: '/ws/app', idleMs: 0 })
    const created = text(
      await client.callTool({
        name: 'knowledge_create',
        arguments: { type: 'concept', slug: 'cache-key', title: 'The CI cache key', content: 'The key is the lockfile hash, so a dependency bump misses the cache.' },
      }),
    )
    expect(created).toMatch(/^Created concept\/cache-key \(v:1, concepts\/cache-key\.md\)/)
    expect(text(await client.callTool({ name: 'knowledge_edit', arguments: { page: 'concept/cache-key', oldText: 'lockfile hash', newText: 'hash of pnpm-lock.yaml' } }))).toMatch(
      /^Edited concept\/cache-key \(v:2/,
    )
    expect(text(await client.callTool({ name: 'knowledge_index', arguments: {} }))).toContain('concept/cache-key')
    expect(text(await client.callTool({ name: 'knowledge_log', arguments: { operation: 'ingest', what: 'the cache key round', pages: ['concept/cache-key'] } }))).toMatch(
      /^Logged .* ingest: the cache key round$/,
    )
    const found = text(await client.callTool({ name: 'knowledge_search', arguments: { query: 'pnpm-lock.yaml cache key' } }))
    expect(found).toMatch(/1\. concept\/cache-key \(v:2\)/)
    expect(readFileSync(join(root, 'concepts/cache-key.md'), 'utf8')).toContain('hash of pnpm-lock.yaml')
    const refused = (await client.callTool({ name: 'knowledge_create', arguments: { type: 'concept', slug: 'x', title: 'X', content: 'See [missing](concept/nope).' } })) as { isError?: boolean }
    expect(refused.isError).toBe(true)
  })
})

describe('dsh-knowledge mcp: the index lock', () => {
  it('keeps no lock on the shared index while its store is open: another process opens the same file meanwhile', async () => {
    const root = await seeded()
    const lock = join(root, '.knowledge/cache/index-v4.lock')
    const kept = await connect(root, { cwd: '/ws/app', idleMs: 60_000 })
    await kept.client.callTool({ name: 'knowledge_search', arguments: { query: 'cache' } })
    expect(existsSync(lock)).toBe(false)
    expect(existsSync(join(root, '.knowledge/cache/index-v4.sqlite'))).toBe(true)
    await kept.client.close()
    await storeClosed(kept.server)
    expect(existsSync(lock)).toBe(false)
  })
})

describe('dsh-knowledge mcp: the person', () => {
  it('offers retire only with elicitation, and retires only when the person approves', async () => {
    const root = await seeded()
    const declined = await connect(root, { cwd: '/ws/app', approve: false })
    expect((await declined.client.listTools()).tools.map((t) => t.name)).toContain('knowledge_retire')
    const id = /\d+\. (\S+) \(v:1\)/.exec(text(await declined.client.callTool({ name: 'knowledge_search', arguments: { query: 'cache lockfile' } })))?.[1]
    const refused = (await declined.client.callTool({ name: 'knowledge_retire', arguments: { id, reason: 'wrong key' } })) as { isError?: boolean }
    expect(refused.isError).toBe(true)
    expect(declined.asked[0]).toMatch(/^Retire knowledge document/)
    expect(text(await declined.client.callTool({ name: 'knowledge_search', arguments: { query: 'cache lockfile' } }))).toContain(String(id))

    const approved = await connect(root, { cwd: '/ws/app', approve: true })
    expect(text(await approved.client.callTool({ name: 'knowledge_retire', arguments: { id, reason: 'wrong key' } }))).toMatch(/is retired/)
    expect(text(await approved.client.callTool({ name: 'knowledge_search', arguments: { query: 'cache lockfile' } }))).toMatch(/^No knowledge documents match/)
  })

  it('records a preference only when the person confirms it; a client that cannot ask is refused', async () => {
    const root = await seeded()
    const args = { kind: 'preference', title: 'Always a feature branch', finding: 'Never push straight to main; always a feature branch and a PR.', quote: 'Never push straight to main' }
    const mute = await connect(root, { cwd: '/ws/app' })
    const refused = (await mute.client.callTool({ name: 'knowledge_note', arguments: args })) as { isError?: boolean }
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/needs the person's confirmation/)
    const no = await connect(root, { cwd: '/ws/app', approve: false })
    expect(((await no.client.callTool({ name: 'knowledge_note', arguments: args })) as { isError?: boolean }).isError).toBe(true)
    const yes = await connect(root, { cwd: '/ws/app', approve: true })
    expect(text(await yes.client.callTool({ name: 'knowledge_note', arguments: args }))).toMatch(/^Saved preference /)
    expect(yes.asked[0]).toContain('Never push straight to main')
  })
})

describe('dsh-knowledge mcp: resources', () => {
  it('lists visible documents and reads one by knowledge://<id>; other workspaces and bad ids are refused', async () => {
    const { client } = await connect(await seeded(), { cwd: '/ws/app' })
    const { resources } = await client.listResources()
    expect(resources).toHaveLength(1)
    const uri = resources[0].uri
    expect(uri).toMatch(/^knowledge:\/\//)
    const read = await client.readResource({ uri })
    expect((read.contents[0] as { text: string }).text).toContain('lockfile hash')
    await expect(client.readResource({ uri: 'knowledge://../../etc/passwd' })).rejects.toThrow()
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/not a knowledge resource/)
    const templates = await client.listResourceTemplates()
    expect(templates.resourceTemplates[0].uriTemplate).toBe('knowledge://{id}')
  })
})
