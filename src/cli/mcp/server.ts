/**
 * The MCP server of `dsh-knowledge mcp`, on the official TypeScript SDK: the knowledge base's tools
 * ({@link mcpTools}) and its documents as read-only resources (`knowledge://<id>`), for any MCP client (Claude Code,
 * Cursor, Codex, dsh's own MCP client).
 *
 * Why the store is opened per burst of calls: the root's persisted index has one owner at a time (index-cache.ts), and
 * a dsh process that starts while another process holds it indexes in memory. The server opens the store when a call
 * comes and closes it {@link STORE_IDLE_MS} after the last call of a burst, so the lock is held only while an agent is
 * using the base, and a read while dsh owns the index reads dsh's file as it is (the CLI's read-only path). Within a
 * burst a read sees what the store saw when it opened. What this costs is measured in bench/mcp.bench.mjs.
 *
 * The workspace (the scoping rule's cwd): `--cwd`, else the first `file://` root the client sends (asked again when
 * the client says its roots changed), else the server process's working directory.
 * @module dsh-knowledge-sync/cli/mcp/server
 */
import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { KnowledgeStore, StoreLogger } from '../../knowledge/store.js'
import { markStaleSummaries } from '../../originals/summaries.js'
import { createRedactor, DEFAULT_MASK } from '../../redact/redactor.js'
import { boundRead, renderDocument } from '../../recall/read-tool.js'
import { ReadState } from '../../recall/read-state.js'
import type { DeclaredType } from '../../knowledge/wiki/page-types.js'
import { type CallContext, McpToolTable } from './tools.js'

export const SERVER_NAME = 'dsh-knowledge'
export const RESOURCE_SCHEME = 'knowledge://'
/** How long the store stays open after the last call: a burst of calls pays one start, and the lock is soon free. */
export const STORE_IDLE_MS = 2000
/** Documents per `resources/list` page. */
export const RESOURCE_PAGE = 100

export interface KnowledgeServerOptions {
  /** The knowledge root (absolute). */
  root: string
  /** The workspace, when given on the command line. */
  cwd?: string
  /** The server process's own working directory: the workspace when neither `cwd` nor a client root says one. */
  processCwd?: string
  version: string
  /** How long the store stays open after a call (ms); 0 closes it after every call. Default {@link STORE_IDLE_MS}. */
  idleMs?: number
  /** Wiki page types besides the built-ins, as a dsh profile declares them (`--profile`, see profile-types.ts). */
  types?: readonly DeclaredType[]
  /** The store's logger (the command's: warnings, and debug lines with DSH_KNOWLEDGE_DEBUG=1, on stderr); default silent. */
  logger?: StoreLogger
  /** The originals folder whose stale summaries the catalogue marks (`--folder`, else the profile's; default `originals`). */
  originalsFolder?: string
}

/**
 * Opens a store the way the CLI does: indexed, not watching; `write: false` may read a running dsh's index file; while
 * a live owner watches the root (a dsh process, `dsh-knowledge watch`), its freshness stamp stands for the check of
 * every file, as for a CLI command (a burst of calls at 100k documents: ~0.4 s less; at a million, ~2.5 s).
 */
async function openStore(root: string, write: boolean, options: KnowledgeServerOptions): Promise<KnowledgeStore> {
  const { KnowledgeStore } = await import('../../knowledge/store.js')
  const redactor = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
  const store = new KnowledgeStore({ root, redactor, watch: false, readOnly: !write, trustWatcher: true, logger: options.logger })
  await store.start()
  markStaleSummaries(store, options.originalsFolder)
  return store
}

/** A session name from the client's name: notes written through a client are filed under `mcp-<client>`. */
export function sessionName(client: string | undefined): string {
  const slug = (client ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
  return `mcp-${slug || 'client'}`
}

/** The first `file://` root of a client's `roots/list` answer, as a path; anything else is not a workspace. */
export function workspaceOfRoots(roots: ReadonlyArray<{ uri: string }>): string | undefined {
  for (const root of roots) {
    if (typeof root?.uri !== 'string' || !root.uri.startsWith('file://')) continue
    try {
      return resolve(fileURLToPath(root.uri))
    } catch {
      /* not a local path */
    }
  }
  return undefined
}

const closing = new WeakMap<Server, Promise<unknown>>()

/** Resolves once a closed server has closed its store (the command awaits it before the process ends). */
export function storeClosed(server: Server): Promise<unknown> {
  return closing.get(server) ?? Promise.resolve()
}

export function createKnowledgeServer(options: KnowledgeServerOptions): Server {
  const idleMs = options.idleMs ?? STORE_IDLE_MS
  // Built once: the tools and the wiki's spec table do not change while the server runs.
  const table = new McpToolTable(options.types)
  const server = new Server(
    { name: SERVER_NAME, version: options.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'The knowledge base of earlier coding sessions in this workspace: search it with knowledge_search before re-deriving something, read a hit with knowledge_read, and record findings worth keeping with knowledge_note.',
    },
  )
  const reads = new ReadState()
  let rootsCwd: Promise<string | undefined> | undefined
  const cwd = async (): Promise<string | undefined> => {
    if (options.cwd) return resolve(options.cwd)
    if (server.getClientCapabilities()?.roots) {
      rootsCwd ??= server
        .listRoots()
        .then((answer) => workspaceOfRoots(answer.roots))
        .catch(() => undefined)
      const fromRoots = await rootsCwd
      if (fromRoots) return fromRoots
    }
    return options.processCwd ? resolve(options.processCwd) : undefined
  }
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    rootsCwd = undefined
  })

  // One store at a time: calls are answered in order, so two writes never race inside this process. The store stays
  // open for a burst of calls (an agent's turn) and is closed `idleMs` after the last one, releasing the index lock.
  let queue: Promise<unknown> = Promise.resolve()
  let open: { store: KnowledgeStore; write: boolean } | undefined
  let idle: NodeJS.Timeout | undefined
  const release = async () => {
    const closing = open
    open = undefined
    await closing?.store.close()
  }
  const withStore = <T>(write: boolean, fn: (store: KnowledgeStore) => Promise<T>): Promise<T> => {
    const run = queue.then(async () => {
      clearTimeout(idle)
      if (open && write && !open.write) await release()
      open ??= { store: await openStore(options.root, write, options), write }
      try {
        return await fn(open.store)
      } finally {
        if (idleMs <= 0) await release()
        else idle = setTimeout(() => void (queue = queue.then(release)), idleMs).unref()
      }
    })
    queue = run.catch(() => undefined)
    return run
  }
  server.onclose = () => {
    clearTimeout(idle)
    closing.set(server, (queue = queue.then(release)))
  }

  const canAsk = (): boolean => Boolean(server.getClientCapabilities()?.elicitation)
  const ask = async (message: string): Promise<boolean> => {
    const answer = await server.elicitInput({
      message,
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve', description: 'Yes, do it.' } }, required: ['approve'] },
    })
    return answer.action === 'accept' && answer.content?.approve === true
  }
  // The workspace is asked of the client (roots/list) before the store is opened, never while it is open: a client
  // slow to answer (or never answering, until the SDK's request timeout) must not keep the index lock from dsh.
  const call = (): CallContext => {
    let workspace: Promise<string | undefined> | undefined
    const callCwd = () => (workspace ??= cwd())
    return {
      withStore: async (write, fn) => {
        await callCwd()
        return withStore(write, fn)
      },
      cwd: callCwd,
      session: sessionName(server.getClientVersion()?.name),
      reads,
      ask: canAsk() ? ask : undefined,
    }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: table.tools(canAsk()).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object'; [key: string]: unknown },
      annotations: { readOnlyHint: !t.writes, destructiveHint: false, openWorldHint: false },
    })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = table.tools(canAsk()).find((t) => t.name === request.params.name)
    if (!tool) return { content: [{ type: 'text', text: `Error: no tool named ${JSON.stringify(String(request.params.name).slice(0, 80))}` }], isError: true }
    try {
      return { content: [{ type: 'text', text: await tool.run(request.params.arguments ?? {}, call()) }] }
    } catch (error) {
      return { content: [{ type: 'text', text: `Error: ${(error as Error).message}` }], isError: true }
    }
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: `${RESOURCE_SCHEME}{id}`, name: 'knowledge document', description: 'A knowledge document by its id, read-only, as knowledge_read shows it.', mimeType: 'text/markdown' },
    ],
  }))

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const workspace = await cwd()
    return withStore(false, async (store) => {
      const offset = Math.max(0, Number.parseInt(String(request.params?.cursor ?? '0'), 10) || 0)
      const scope = store.visibleScope(workspace, true)
      const { total, items } = store.list({ scope, limit: RESOURCE_PAGE, offset })
      const next = offset + items.length
      return {
        resources: items.map((m) => ({ uri: `${RESOURCE_SCHEME}${m.id}`, name: m.id, title: m.title, mimeType: 'text/markdown', description: `${m.kind} · ${m.created.slice(0, 10)}` })),
        ...(next < total ? { nextCursor: String(next) } : {}),
      }
    })
  })

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri
    if (!uri.startsWith(RESOURCE_SCHEME)) throw new Error(`not a knowledge resource: ${uri.slice(0, 100)}`)
    const workspace = await cwd()
    return withStore(false, async (store) => {
      const scope = store.visibleScope(workspace, true)
      const doc = await store.readVisible(decodeURIComponent(uri.slice(RESOURCE_SCHEME.length)), scope)
      return { contents: [{ uri, mimeType: 'text/markdown', text: boundRead(renderDocument(doc), doc.id) }] }
    })
  })
  return server
}
