/**
 * The tools that correct knowledge: `knowledge_supersede`, `knowledge_retire` and `knowledge_check`. Each calls the
 * store's correction API (the same code as the CLI and the page's routes). Retiring says a document was wrong, so
 * it needs the person's approval through dsh's own flow: a `tools/pre-execute` listener answers *ask*, and the tool
 * is offered only where an approval service exists and the run is not headless (where nobody could answer).
 * @module dsh-knowledge-sync/note/correct-tools
 */
import type { Context } from '@deepseek-ai/cordis'
import type { PreToolDecision } from '@deepseek-ai/dsh-tools'
import type { KnowledgeStore } from '../knowledge/store.js'
import { retire, supersede } from '../knowledge/corrections/correct.js'
import { checkKnowledge, renderProblems } from '../knowledge/corrections/check.js'
import { TEXT_OUTPUT } from '../tool-output.js'

export const SUPERSEDE_TOOL = 'knowledge_supersede'
export const RETIRE_TOOL = 'knowledge_retire'
export const CHECK_TOOL = 'knowledge_check'

interface Logger {
  debug(format: string, ...args: unknown[]): void
}

const object = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object')
  return args as Record<string, unknown>
}

/** Registers the three tools; `scopeOf` gives the workspace a calling agent sees. */
export function registerCorrectionTools(ctx: Context, store: KnowledgeStore, scopeOf: (agent: unknown) => string | undefined, logger: Logger): void {
  ctx.tools.register({
    name: SUPERSEDE_TOOL,
    description:
      'Mark an older document as superseded by a newer one (both ids from knowledge_search). The old one stays ' +
      'on disk and in search, ranked below its successor, with a notice naming it. To correct a finding, prefer ' +
      'knowledge_note with "supersedes"; use this when the newer document already exists.',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The older document.' },
        by: { type: 'string', description: 'The document that replaces it.' },
        reason: { type: 'string', description: 'Why, in one sentence (optional, max 500 characters).' },
      },
      required: ['id', 'by'],
      additionalProperties: false,
    },
    output: TEXT_OUTPUT,
    async execute(args, exec) {
      const a = object(args)
      const done = await supersede(store, { id: a.id, by: a.by, reason: a.reason }, scopeOf(exec.agent), 'tool')
      logger.debug('%s superseded by %s', done.id, done.by)
      return { id: done.id, by: done.by, text: `${done.id} is now superseded by ${done.by}.` }
    },
  })

  ctx.tools.register({
    name: CHECK_TOOL,
    description:
      'Check the knowledge base of this workspace for mechanical problems: broken links, links to retired ' +
      'documents, supersede cycles or chains ending in a retired document, unreadable files, and near-duplicate ' +
      'findings (candidates to supersede). Returns each problem with the ids involved.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    output: TEXT_OUTPUT,
    async execute(_args, exec) {
      const scope = scopeOf(exec.agent)
      const problems = checkKnowledge(store, scope)
      return { problems, text: renderProblems(problems, scope) }
    },
  })

  // Retiring needs a person to say yes: only where dsh has an approval service, and never in a headless run.
  ctx.inject(['approval'], (scoped) => {
    if (scoped.get('headlessStartup')) return
    scoped.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
      const decision = await next()
      if (exec.name !== RETIRE_TOOL || decision.kind !== 'allow') return decision
      const a = (exec.arguments ?? {}) as { id?: unknown; reason?: unknown }
      return { kind: 'ask', reason: `Retire knowledge document ${String(a.id).slice(0, 80)} (it leaves search; it stays on disk and can be restored): ${String(a.reason ?? '').slice(0, 300)}` }
    })
    scoped.tools.register({
      name: RETIRE_TOOL,
      description:
        'Retire a document that turned out to be wrong: it leaves search, lists and counts, stays on disk ' +
        "with a notice, and can be restored. Needs the person's approval. If a newer document replaces it, use " +
        'knowledge_supersede instead.',
      parameters: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The document to retire.' },
          reason: { type: 'string', description: 'Why it is wrong, in one sentence (required, max 500 characters).' },
        },
        required: ['id', 'reason'],
        additionalProperties: false,
      },
      output: TEXT_OUTPUT,
      async execute(args, exec) {
        const a = object(args)
        const done = await retire(store, { id: a.id, reason: a.reason }, scopeOf(exec.agent), 'tool')
        logger.debug('%s retired', done.id)
        return { id: done.id, text: `${done.id} is retired: it no longer appears in knowledge_search.` }
      },
    })
  })
}
