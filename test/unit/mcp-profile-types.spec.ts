/**
 * The wiki page types a dsh profile declares reach `dsh-knowledge mcp --profile` (issue 31): read from the files a
 * person edits in the order dsh layers them (the profile's cordis.patch.yml, then $DSH_HOME's), offered by the real
 * server through the SDK's own client (knowledge_create's description lists the type, a page of it is created in its
 * folder), and checked as the row checks them; hostile files are refused with the reason. And the server builds its
 * tool table, the wiki's specs included, once: a hundred calls do not build it again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createKnowledgeServer } from '../../src/cli/mcp/server.js'
import { profileTypes, typesInPatch } from '../../src/cli/mcp/profile-types.js'
import * as wikiTools from '../../src/wiki/tools.js'

vi.mock('../../src/wiki/tools.js', async (load) => {
  const real = await load<typeof import('../../src/wiki/tools.js')>()
  return { ...real, wikiToolSpecs: vi.fn(real.wikiToolSpecs) }
})

const clients: Client[] = []
afterEach(async () => {
  while (clients.length) await clients.pop()!.close()
})

const RUNBOOK = `
- id: knowledge-wiki
  config:
    enabled: true
    types:
      - type: runbook
        folder: runbooks
        section: Runbooks
        description: Step-by-step operations for one service.
        template: "## Steps\\n\\n1. …\\n"
        fields: [service]
        indexFields: [service]
`
const home = (): string => mkdtempSync(join(tmpdir(), 'dsh-ks-mcp-home-'))
const profileFile = (h: string, profile: string, text: string) => {
  mkdirSync(join(h, 'profiles', profile), { recursive: true })
  writeFileSync(join(h, 'profiles', profile, 'cordis.patch.yml'), text)
}

async function connect(root: string, types: ReturnType<typeof profileTypes>) {
  const server = createKnowledgeServer({ root, cwd: '/ws/app', version: '0.0.0-test', idleMs: 0, types })
  const client = new Client({ name: 'Test Client', version: '1.0.0' })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(a), client.connect(b)])
  clients.push(client)
  return client
}
const text = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n')

describe('the profile patch files', () => {
  it('takes the wiki row config from an override entry or an inserted row; the home file is layered after the profile', () => {
    expect(typesInPatch(RUNBOOK, 'p')?.map((t) => t.type)).toEqual(['runbook'])
    expect(typesInPatch(`- insert:\n    - { id: x, name: dsh-knowledge-sync/wiki, config: { types: [] } }\n`, 'p')).toEqual([])
    expect(typesInPatch(`- id: knowledge-sync\n  config: { maxItems: 5 }\n`, 'p')).toBeUndefined()
    const h = home()
    profileFile(h, 'web', RUNBOOK)
    expect(profileTypes(h, 'web').map((t) => t.type)).toEqual(['runbook'])
    // $DSH_HOME/cordis.patch.yml comes after the profile's: its config replaces the whole object, types included
    writeFileSync(join(h, 'cordis.patch.yml'), '- id: knowledge-wiki\n  config: { enabled: true, types: [] }\n')
    expect(profileTypes(h, 'web')).toEqual([])
    expect(profileTypes(home(), 'nothing-here')).toEqual([])
  })

  it('refuses hostile or broken files with the reason', () => {
    const h = home()
    expect(() => profileTypes(h, '../etc')).toThrow(/not a profile name/)
    profileFile(h, 'bad', RUNBOOK.replace('folder: runbooks', 'folder: ../outside'))
    expect(() => profileTypes(h, 'bad')).toThrow(/wiki types of profile bad/)
    profileFile(h, 'notlist', 'knowledge-wiki: { types: [] }\n')
    expect(() => profileTypes(h, 'notlist')).toThrow(/a cordis patch is a list/)
    mkdirSync(join(h, 'profiles', 'link'), { recursive: true })
    const target = join(h, 'real.yml')
    writeFileSync(target, RUNBOOK)
    symlinkSync(target, join(h, 'profiles', 'link', 'cordis.patch.yml'))
    expect(() => profileTypes(h, 'link')).toThrow(/cannot be read \(ELOOP\)/)
    mkdirSync(join(h, 'profiles', 'fifo'), { recursive: true })
    execFileSync('mkfifo', [join(h, 'profiles', 'fifo', 'cordis.patch.yml')])
    expect(() => profileTypes(h, 'fifo')).toThrow(/not a regular file/)
    profileFile(h, 'huge', `# ${'x'.repeat(1024 * 1024 + 10)}\n`)
    expect(() => profileTypes(h, 'huge')).toThrow(/more than a configuration/)
  })
})

describe('dsh-knowledge mcp --profile', () => {
  it("offers the profile's page types and creates a page of one", async () => {
    const h = home()
    profileFile(h, 'web', RUNBOOK)
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-mcp-types-')), 'kb')
    const client = await connect(root, profileTypes(h, 'web'))
    const create = (await client.listTools()).tools.find((t) => t.name === 'knowledge_create')!
    expect(create.description).toContain('runbook (Step-by-step operations for one service)')
    const made = text(
      await client.callTool({ name: 'knowledge_create', arguments: { type: 'runbook', slug: 'restart-api', title: 'Restart the API', content: '## Steps\n\n1. kubectl rollout restart deploy/api' } }),
    )
    expect(made).toMatch(/^Created runbook\/restart-api \(v:1, runbooks\/restart-api\.md\)/)
    expect(existsSync(join(root, 'runbooks/restart-api.md'))).toBe(true)
    // without the profile the type is unknown, as in a dsh profile that does not declare it
    const plain = await connect(root, [])
    const refused = (await plain.callTool({ name: 'knowledge_create', arguments: { type: 'runbook', slug: 'x', title: 'X', content: 'y' } })) as { isError?: boolean }
    expect(refused.isError).toBe(true)
  })

  it('builds the wiki spec table once, not per call', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-mcp-table-')), 'kb')
    const specs = vi.mocked(wikiTools.wikiToolSpecs)
    specs.mockClear()
    const client = await connect(root, [])
    await client.listTools()
    const afterStart = specs.mock.calls.length
    for (let k = 0; k < 50; k++) {
      await client.callTool({ name: 'knowledge_index', arguments: {} })
      await client.listTools()
    }
    expect(afterStart).toBeLessThanOrEqual(1)
    expect(specs.mock.calls.length).toBe(afterStart)
  })
})
