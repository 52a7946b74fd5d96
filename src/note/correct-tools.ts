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
import { CHECK_DESCRIPTION, CHECK_PARAMETERS, RETIRE_DESCRIPTION, RETIRE_PARAMETERS, SUPERSEDE_DESCRIPTION, SUPERSEDE_PARAMETERS } from './tool-specs.js'

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
    description: SUPERSEDE_DESCRIPTION,
    parameters: SUPERSEDE_PARAMETERS,
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
    description: CHECK_DESCRIPTION,
    parameters: CHECK_PARAMETERS,
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
      description: RETIRE_DESCRIPTION,
      parameters: RETIRE_PARAMETERS,
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
