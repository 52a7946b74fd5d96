/**
 * Row `knowledge-recall`: the `knowledge_search` and `knowledge_read` tools and the two-sentence pointer. Reads
 * through the store; never writes documents. Disposal removes all three.
 * @module dsh-knowledge-sync/recall
 */
import type { Context } from '@deepseek-ai/cordis'
import type z from '@deepseek-ai/schemastery'
import { sectionSchema } from '../knowledge/settings/settings.js'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '../knowledge/index.js'
import { sessionOf } from '../tool-output.js'
import { PointerMemo, pointerText, promptSafe } from './pointer.js'
import { parseSearchArgs } from '../knowledge/query.js'
import { READ_PARAMETERS, READ_TOOL, readForSession } from './read-tool.js'
import { renderHits, SEARCH_TOOL } from './search-tool.js'
import { READ_DESCRIPTION, SEARCH_DESCRIPTION, SEARCH_PARAMETERS } from './tool-specs.js'
import { ReadState } from './read-state.js'
import { presentReadCall, presentReadResult, presentSearchCall, presentSearchResult, READ_OUTPUT, readsInLog, SEARCH_OUTPUT } from './presentation.js'
import { installCompactionStubs } from './compaction.js'
import { MAX_PREFERENCES, preferencesText, quoteOf } from './preferences.js'

export const name = 'knowledge-recall'
export const inject = ['knowledge', 'tools', 'systemPrompt']

/** Tool guidance sections use orders 100–199; the pointer sits at their end, the person's preferences right after. */
export const POINTER_ORDER = 190
/** Order of the "changed since you read it" runtime-context block. */
export const CHANGES_ORDER = 190
export const PREFERENCES_ORDER = 191

export interface Config {
  /** Add the two-sentence pointer to the system prompt when documents are visible. */
  announce: boolean
  /** Only the session's workspace (and its enclosing project) is visible; off: everything under the root. */
  sameWorkspaceOnly: boolean
  /** Default number of hits of `knowledge_search`. */
  searchLimit: number
}

export const Config: z<Config> = sectionSchema('recall', true)

export function apply(ctx: Context, config: Config): void {
  const store = ctx.knowledge
  const logger = ctx.logger('knowledge-recall')
  // The row's config with the page's live overrides.
  let current = store.settings.effective('recall', config)
  ctx.effect(() => store.settings.publish('recall', () => config), 'knowledge-recall settings')
  ctx.effect(
    () =>
      store.settings.onChange(() => {
        current = store.settings.effective('recall', config)
      }),
    'knowledge-recall settings watcher',
  )
  const scopeOf = (agent: unknown) => store.visibleScope(sessionOf(agent)?.header?.cwd, current.sameWorkspaceOnly)
  // Which revision of which document each session read: for "changed since you read it".
  const reads = new ReadState()
  /** The session's id, its read state seeded from its log the first time this process sees it (a resumed session). */
  const readerOf = (agent: unknown): string | undefined => {
    const session = sessionOf(agent)
    if (session) reads.ensure(session.id, () => readsInLog(session.events ?? []))
    return session?.id
  }
  const version = (id: string) => store.versionOf(id)

  ctx.tools.register({
    name: SEARCH_TOOL,
    description: SEARCH_DESCRIPTION,
    parameters: SEARCH_PARAMETERS,
    output: SEARCH_OUTPUT,
    async execute(args, exec) {
      const parsed = parseSearchArgs(args, current.searchLimit)
      const scope = scopeOf(exec.agent)
      const hits = store.search(parsed.query, { kind: parsed.kind, tag: parsed.tag, tool: parsed.tool, limit: parsed.limit, scope, status: parsed.status })
      const session = readerOf(exec.agent)
      const text = renderHits(parsed.query, hits, scope, (hit) => reads.changed(session, hit.id, hit.version))
      return { text, query: parsed.query, ids: hits.map((h) => h.id), versions: hits.map((h) => h.version ?? null), titles: hits.map((h) => h.title) }
    },
    presentCall: presentSearchCall,
    presentResult: presentSearchResult,
  })

  ctx.tools.register({
    name: READ_TOOL,
    description: READ_DESCRIPTION,
    parameters: READ_PARAMETERS as unknown as Record<string, unknown>,
    output: READ_OUTPUT,
    async execute(args, exec) {
      return readForSession(store, args, scopeOf(exec.agent), readerOf(exec.agent), reads)
    },
    presentCall: presentReadCall,
    presentResult: presentReadResult,
  })

  // Told once per change, through the runtime context (never the system prompt): the documents this session read
  // that have a newer revision now. The text is stable until another revision appears.
  ctx.systemPrompt.context({
    name: 'knowledge-sync:changed-since-read',
    order: CHANGES_ORDER,
    text: (assembly) => promptSafeContext(reads.contextText(readerOf((assembly as { agent?: unknown }).agent), version)),
  })
  installCompactionStubs(ctx, reads)

  const memo = new PointerMemo()
  ctx.systemPrompt.section({
    name: 'knowledge-sync:pointer',
    order: POINTER_ORDER,
    text: (assembly) => {
      const session = sessionOf(assembly.agent)
      if (!session || !current.announce) return ''
      // Fixed at the session's first request: later captures must not change the prompt prefix.
      return memo.get(session.id, () => {
        const scope = scopeOf(assembly.agent)
        return pointerText(store.count({ scope }), scope)
      })
    },
  })
  const preferences = new PointerMemo()
  ctx.systemPrompt.section({
    name: 'knowledge-sync:preferences',
    order: PREFERENCES_ORDER,
    text: (assembly) => {
      const session = sessionOf(assembly.agent)
      if (!session || !current.announce) return ''
      // Fixed at the session's first request, like the pointer: a preference noted now reaches the next session.
      return preferences.get(session.id, () => {
        const { total, items } = store.list({ kind: 'preference', status: 'active', scope: scopeOf(assembly.agent), limit: MAX_PREFERENCES })
        return preferencesText(
          items.map((m) => ({ id: m.id, title: m.title, quote: quoteOf(store.text(m.id)) })),
          total,
        )
      })
    },
  })
  logger.debug('recall ready (announce %s, sameWorkspaceOnly %s)', config.announce, config.sameWorkspaceOnly)
}

/** Context text goes through the prompt renderer too: no `{{` may reach it (titles are escaped line by line). */
function promptSafeContext(text: string): string {
  return text
    .split('\n')
    .map((line) => promptSafe(line))
    .join('\n')
}
