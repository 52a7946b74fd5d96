/**
 * The tools `dsh-knowledge mcp` offers: the same names, descriptions, argument schemas, output budgets, scoping rule
 * and write path as the dsh rows (the specs are the rows' own: recall/tool-specs.ts, note/tool-specs.ts and the wiki
 * row's wikiToolSpecs; the work is the same functions the rows and the CLI call). What differs is who can be asked: inside dsh, the quote rule
 * ties a preference to the person's own message and retiring goes through dsh's approval; over MCP the server sees
 * no conversation, so both need the person's answer through MCP elicitation, and are refused (preference) or not
 * offered (retire) where the client cannot ask.
 * @module dsh-knowledge-sync/cli/mcp/tools
 */
import type { KnowledgeStore } from '../../knowledge/store.js'
import { parseSearchArgs } from '../../knowledge/query.js'
import { retire, supersede } from '../../knowledge/corrections/correct.js'
import { checkKnowledge, renderProblems } from '../../knowledge/corrections/check.js'
import { renderHits, SEARCH_TOOL } from '../../recall/search-tool.js'
import { READ_PARAMETERS, READ_TOOL, readForSession } from '../../recall/read-tool.js'
import type { ReadState } from '../../recall/read-state.js'
import { READ_DESCRIPTION, SEARCH_DESCRIPTION, SEARCH_PARAMETERS } from '../../recall/tool-specs.js'
import { NOTE_TOOL, type NoteArgs, parseNoteArgs } from '../../note/note-args.js'
import { writeNote } from '../../note/write.js'
import { CHECK_TOOL, RETIRE_TOOL, SUPERSEDE_TOOL } from '../../note/correct-tools.js'
import { CHECK_DESCRIPTION, CHECK_PARAMETERS, NOTE_DESCRIPTION, NOTE_PARAMETERS, RETIRE_DESCRIPTION, RETIRE_PARAMETERS, SUPERSEDE_DESCRIPTION, SUPERSEDE_PARAMETERS } from '../../note/tool-specs.js'
import { OUTPUT_BUDGET, withinBudget } from '../../tool-output.js'
import { AsyncLocalStorage } from 'node:async_hooks'
import { type DeclaredType, resolveTypes } from '../../knowledge/wiki/page-types.js'
import { Wiki, type WikiCaller } from '../../knowledge/wiki/wiki.js'
import { type WithWiki, wikiToolSpecs } from '../../wiki/tools.js'

/** Default number of hits, as the recall row's default `searchLimit`. */
export const MCP_SEARCH_LIMIT = 8

/** What a tool call may use: a store opened for it, the caller's workspace scope, and the person when reachable. */
export interface CallContext {
  /** Opens the store (for reading or writing) for the duration of `fn`. */
  withStore<T>(write: boolean, fn: (store: KnowledgeStore) => Promise<T>): Promise<T>
  /** The workspace the client works in (an absolute path), or undefined: everything under the root. */
  cwd(): Promise<string | undefined>
  /** The session name notes are filed under (`mcp-<client>`). */
  session: string
  reads: ReadState
  /** Asks the person a yes/no question through the client (MCP elicitation); undefined where the client cannot. */
  ask?: (message: string) => Promise<boolean>
}

export interface McpTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  /** True when the tool changes the base (annotations for the client: not read-only). */
  writes: boolean
  run(args: unknown, call: CallContext): Promise<string>
}

const object = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object')
  return args as Record<string, unknown>
}

const scopeFor = async (store: KnowledgeStore, call: CallContext) => store.visibleScope(await call.cwd(), true)

/**
 * The tools for a client; `retire` only where the person can be asked. `declared`: the wiki page types the profile
 * declares besides the built-ins (see profile-types.ts).
 */
export function mcpTools({ canAsk, declared = [] }: { canAsk: boolean; declared?: readonly DeclaredType[] }): McpTool[] {
  const tools: McpTool[] = [
    {
      name: SEARCH_TOOL,
      description: SEARCH_DESCRIPTION,
      inputSchema: SEARCH_PARAMETERS,
      writes: false,
      run: (args, call) =>
        call.withStore(false, async (store) => {
          const parsed = parseSearchArgs(args, MCP_SEARCH_LIMIT)
          const scope = await scopeFor(store, call)
          const hits = store.search(parsed.query, { kind: parsed.kind, idPrefix: parsed.idPrefix, tag: parsed.tag, tool: parsed.tool, limit: parsed.limit, scope, status: parsed.status })
          return renderHits(parsed.query, hits, scope, (hit) => call.reads.changed(call.session, hit.id, hit.version))
        }),
    },
    {
      name: READ_TOOL,
      description: READ_DESCRIPTION,
      inputSchema: READ_PARAMETERS as unknown as Record<string, unknown>,
      writes: false,
      run: (args, call) => call.withStore(false, async (store) => (await readForSession(store, args, await scopeFor(store, call), call.session, call.reads)).text),
    },
    {
      name: NOTE_TOOL,
      description: NOTE_DESCRIPTION,
      inputSchema: NOTE_PARAMETERS,
      writes: true,
      run: async (args, call) => {
        const note = parseNoteArgs(args)
        if (note.kind === 'preference') await confirmPreference(note, call)
        return call.withStore(true, async (store) => {
          const cwd = (await call.cwd()) ?? ''
          const { written, supersedes } = await writeNote(store, note, { session: call.session, cwd, scope: store.visibleScope(cwd || undefined, true), actor: 'tool' })
          const masked = written.redaction.count ? ` (${written.redaction.count} secret-like value(s) were masked)` : ''
          const replaced = supersedes.length ? ` It supersedes ${supersedes.join(', ')}.` : ''
          return withinBudget(`Saved ${note.kind} ${written.id}: ${written.meta.title}${masked}.${replaced}`, OUTPUT_BUDGET.knowledge_note, () => '…')
        })
      },
    },
    {
      name: SUPERSEDE_TOOL,
      description: SUPERSEDE_DESCRIPTION,
      inputSchema: SUPERSEDE_PARAMETERS,
      writes: true,
      run: (args, call) =>
        call.withStore(true, async (store) => {
          const a = object(args)
          const done = await supersede(store, { id: a.id, by: a.by, reason: a.reason }, await scopeFor(store, call), 'tool')
          return `${done.id} is now superseded by ${done.by}.`
        }),
    },
    {
      name: CHECK_TOOL,
      description: CHECK_DESCRIPTION,
      inputSchema: CHECK_PARAMETERS,
      writes: false,
      run: (_args, call) =>
        call.withStore(false, async (store) => {
          const scope = await scopeFor(store, call)
          return renderProblems(checkKnowledge(store, scope), scope)
        }),
    },
  ]
  tools.push(...wikiTools(declared))
  if (canAsk)
    tools.push({
      name: RETIRE_TOOL,
      description: RETIRE_DESCRIPTION,
      inputSchema: RETIRE_PARAMETERS,
      writes: true,
      run: async (args, call) => {
        const a = object(args)
        const question = `Retire knowledge document ${String(a.id).slice(0, 80)} (it leaves search; it stays on disk and can be restored): ${String(a.reason ?? '').slice(0, 300)}`
        if (!call.ask || !(await call.ask(question))) throw new Error('refused: the person did not approve retiring this document')
        return call.withStore(true, async (store) => {
          const done = await retire(store, { id: a.id, reason: a.reason }, await scopeFor(store, call), 'tool')
          return `${done.id} is retired: it no longer appears in knowledge_search.`
        })
      },
    })
  return tools
}

/** The tools of one server, built once: its page types are fixed at start (as the wiki row's are). */
export class McpToolTable {
  private readonly built = new Map<boolean, McpTool[]>()
  constructor(private readonly declared: readonly DeclaredType[] = []) {
    resolveTypes(declared) // a bad declared type stops the server at start, with the reason
  }

  tools(canAsk: boolean): McpTool[] {
    let tools = this.built.get(canAsk)
    if (!tools) this.built.set(canAsk, (tools = mcpTools({ canAsk, declared: this.declared })))
    return tools
  }
}

/** The call a wiki tool runs for: its specs are built once, and each call lends them its store through this. */
const wikiCall = new AsyncLocalStorage<{ call: CallContext; cwd: string | undefined; caller: WikiCaller }>()

/**
 * The wiki's tools over `types`, the specs built once. The caller's scope needs the store, so it is filled in once
 * the call's store is open, before the tool's work reads it.
 */
function wikiTools(declared: readonly DeclaredType[]): McpTool[] {
  const types = resolveTypes(declared)
  const withWiki: WithWiki = (writes, fn) => {
    const current = wikiCall.getStore()
    if (!current) return Promise.reject(new Error('a wiki tool runs only inside a call'))
    return current.call.withStore(writes, async (store) => {
      current.caller.scope = store.visibleScope(current.cwd, true)
      const wiki = new Wiki(store, declared)
      try {
        return await fn(wiki)
      } finally {
        wiki.close()
      }
    })
  }
  return wikiToolSpecs(types, withWiki).map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: spec.parameters,
    writes: spec.writes,
    run: async (args, call) => {
      const caller: WikiCaller = { actor: 'tool', scope: undefined }
      const cwd = await call.cwd()
      return (await wikiCall.run({ call, cwd, caller }, () => spec.run(args, caller))).text
    },
  }))
}

/**
 * A preference reaches every later session's system prompt, so it must be the person's word. Over MCP the server
 * cannot see the person's messages (the quote rule's evidence), so it asks the person instead; a client that cannot
 * ask gets a refusal that says why.
 */
async function confirmPreference(note: NoteArgs, call: CallContext): Promise<void> {
  if (!call.ask)
    throw new Error(
      'refused: over MCP a preference needs the person\'s confirmation, and this client cannot ask (no elicitation). Record it as kind "note", or ask the person to run `dsh-knowledge note --kind preference`.',
    )
  // Every field the preference stores is shown whole (each is bounded by NOTE_LIMITS): a prefix would let the agent
  // hide an instruction past what the person read and have it approved into every later system prompt.
  const parts = [`"${note.title}": ${note.finding}`]
  if (note.evidence) parts.push(`Evidence: ${note.evidence}`)
  if (note.scope) parts.push(`Scope: ${note.scope}`)
  if (note.tags.length) parts.push(`Tags: ${note.tags.join(', ')}`)
  if (note.quote) parts.push(`Quoted: "${note.quote}"`)
  const question = `Record this as your standing instruction for later sessions?\n${parts.join('\n')}`
  if (!(await call.ask(question))) throw new Error('refused: the person did not confirm this preference')
}
