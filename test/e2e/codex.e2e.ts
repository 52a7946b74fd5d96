/**
 * A real Codex CLI round through `dsh-knowledge mcp`: `codex exec` with a custom model provider on 127.0.0.1 (a
 * scripted Responses API server), the built MCP server on a seeded root, and nothing else reachable. Runs only where
 * KS_CODEX_BIN names a Codex binary (not a dependency of the project; see test/harness/codex.ts); the connection
 * audit needs `strace` as well. Build first (`node scripts/build.mjs`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { codexBinary, isLoopback, KNOWLEDGE_BIN, knowledgeRound, type KnowledgeRound, retireRound, straceWorks } from '../harness/codex.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { functionOutputs, itemText, namespaceOf } from '../harness/responses-server.ts'

const { bin, reason } = codexBinary()
if (!bin) console.warn(`[tests] test/e2e/codex.e2e.ts skipped: ${reason}`)
const traced = Boolean(bin) && straceWorks()
if (bin && !traced) console.warn('[tests] test/e2e/codex.e2e.ts: strace cannot trace here, so the connection audit is skipped')

describe.skipIf(!bin)('Codex (KS_CODEX_BIN) through dsh-knowledge mcp, with only 127.0.0.1 reachable', () => {
  let base = ''
  let round: KnowledgeRound

  beforeAll(async () => {
    if (!existsSync(KNOWLEDGE_BIN)) throw new Error('build first: node scripts/build.mjs')
    base = mkdtempSync(join(tmpdir(), 'dsh-ks-codex-'))
    round = await knowledgeRound({ bin: bin as string, base, trace: traced })
  })
  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true })
  })

  it('codex exec runs the round: knowledge_search and knowledge_read through the MCP server, then an answer from them', () => {
    const { run, marker } = round
    expect(run.code, run.stderr).toBe(0)
    const calls = run.events.filter((e) => e.type === 'item.completed' && (e.item as { type?: string }).type === 'mcp_tool_call')
    expect(calls.map((e) => e.item)).toMatchObject([
      { server: 'dsh-knowledge', tool: 'knowledge_search', status: 'completed', error: null },
      { server: 'dsh-knowledge', tool: 'knowledge_read', status: 'completed', error: null },
    ])
    expect(run.lastMessage).toContain(marker)
    expect(run.stdout).toContain(`its salt is ${marker}`)
  })

  it('the model server saw the tools in the mcp__dsh_knowledge namespace (the server name, its hyphen made an underscore), the search hit and the document read', () => {
    const { server, finding, workspace, marker } = round
    const turns = server.requests.filter((r) => r.path === '/v1/responses')
    expect(turns).toHaveLength(3)
    expect(namespaceOf(turns[0], 'knowledge_search')).toBe('mcp__dsh_knowledge')
    expect(namespaceOf(turns[0], 'knowledge_read')).toBe('mcp__dsh_knowledge')
    // The prompt does not hold the salt; only the tool output Codex sends back does.
    expect(JSON.stringify(turns[0].body)).not.toContain(marker)
    const [output] = functionOutputs(turns[1])
    expect(output.call_id).toBe('call_1')
    const text = itemText(output.output)
    // The snippet marks matched words in bold (**…**); without the marks it is the seeded finding.
    expect(text.replaceAll('**', '')).toContain(finding)
    // The workspace is the folder Codex runs in: the server was started there.
    expect(text).toMatch(new RegExp(`1 document\\(s\\) match "lockfile cache key" in ${workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`))
    // The read of the hit's id: the whole document, front matter and finding.
    const id = /^1\. (\S+) \(v:/m.exec(text)?.[1]
    const read = functionOutputs(turns[2]).find((o) => o.call_id === 'call_2')
    expect(itemText(read?.output)).toContain(`id: ${id}`)
    expect(itemText(read?.output)).toContain(finding)
  })

  it('every request came to the local server; nothing went through the proxy variables', () => {
    const { server } = round
    expect(server.escapes).toEqual([])
    expect(server.requests.length).toBeGreaterThan(0)
    for (const r of server.requests) expect(r.headers.host).toBe(`127.0.0.1:${server.port}`)
    expect(Object.keys(round.run.env).sort()).toEqual(
      ['ALL_PROXY', 'CODEX_HOME', 'HOME', 'HTTPS_PROXY', 'HTTP_PROXY', 'LANG', 'NO_COLOR', 'NO_PROXY', 'PATH', 'all_proxy', 'http_proxy', 'https_proxy', 'no_proxy'].sort(),
    )
  })

  it.skipIf(!traced)('Codex and every process it started connected to 127.0.0.1 only (strace)', () => {
    const connections = round.run.connections ?? []
    expect(connections.filter((c) => c.port === round.server.port).length).toBeGreaterThan(0)
    expect(connections.filter((c) => !isLoopback(c))).toEqual([])
  })
})

describe.skipIf(!bin)('Codex (KS_CODEX_BIN): knowledge_retire in a run nobody can answer', () => {
  it('is offered (Codex can ask the person), but codex exec declines the question, so the note stays active', async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-codex-retire-'))
    try {
      const { run, id, root } = await retireRound({ bin: bin as string, base })
      expect(run.code, run.stderr).toBe(0)
      const calls = run.events.filter((e) => e.type === 'item.completed' && (e.item as { type?: string }).type === 'mcp_tool_call').map((e) => e.item)
      expect(calls).toMatchObject([{ tool: 'knowledge_retire', status: 'failed' }])
      expect(run.lastMessage).toContain('refused: the person did not approve retiring this document')
      const retired = await spawnCollect(process.execPath, [KNOWLEDGE_BIN, 'list', '--root', root, '--status', 'retired', '--json'])
      expect(JSON.parse(retired.stdout)).toEqual([])
      const active = await spawnCollect(process.execPath, [KNOWLEDGE_BIN, 'list', '--root', root, '--json'])
      expect(JSON.parse(active.stdout).map((d: { id: string }) => d.id)).toEqual([id])
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
