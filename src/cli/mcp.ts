/**
 * `dsh-knowledge mcp`: the knowledge base as a stdio MCP server (see mcp/server.ts). Stdout carries the protocol
 * only; anything said to a person goes to stderr. Ends when the client closes standard input.
 * @module dsh-knowledge-sync/cli/mcp
 */
import { readFileSync } from 'node:fs'
import { resolveRoot } from '../knowledge/documents/paths.js'
import { OriginalsFolder } from '../knowledge/originals/index.js'
import { CLI_LOGGER, type Command } from './common.js'
import { dshHome } from './dsh-sessions.js'
import { profileTypes } from './mcp/profile-types.js'
import { originalsFolderOf } from './wiki.js'

export const mcp: Command = async (invocation) => {
  const [{ StdioServerTransport }, { createKnowledgeServer, storeClosed }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('./mcp/server.js')])
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  const profile = invocation.values.profile
  const types = profile ? profileTypes(dshHome(invocation.values['dsh-home']), profile) : []
  const root = resolveRoot(invocation.values.root)
  const originalsFolder = originalsFolderOf(invocation)
  // A folder outside the root is refused at start, not at every call.
  if (originalsFolder !== undefined) new OriginalsFolder({ root, folder: originalsFolder })
  const server = createKnowledgeServer({ root, cwd: invocation.values.cwd, processCwd: process.cwd(), version, types, originalsFolder, logger: CLI_LOGGER })
  const transport = new StdioServerTransport()
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve())
    process.stdin.once('close', () => resolve())
  })
  await server.connect(transport)
  await ended
  await server.close()
  await storeClosed(server)
  return 0
}
