/**
 * Row `knowledge-note`: the `knowledge_note` tool, for findings the agent records deliberately. A note is a
 * `kind: note` document in the session's folder, redacted like every write, searchable at once and ranked above
 * raw rounds.
 * @module dsh-knowledge-sync/note
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '../knowledge/index.js'
import { OUTPUT_BUDGET, TEXT_OUTPUT, withinBudget } from '../tool-output.js'
import { NOTE_TOOL, noteDraft, parseNoteArgs } from './note.js'

export const name = 'knowledge-note'
export const inject = ['knowledge', 'tools']

export interface Config {
  /** Offer the knowledge_note tool. */
  enabled: boolean
}

export const Config: z<Config> = z.object({
  enabled: z.boolean().default(true).description('Offer the knowledge_note tool.'),
}) as z<Config>

interface SessionLike { id: string; header?: { cwd?: string } }

export function apply(ctx: Context, config: Config): void {
  if (!config.enabled) return
  const store = ctx.knowledge
  const logger = ctx.logger('knowledge-note')
  ctx.tools.register({
    name: NOTE_TOOL,
    description: 'Record a finding worth keeping for later sessions of this workspace: a diagnosed cause, a decision '
      + 'and its reason, a working command or configuration, a workaround. Write it so it stands alone. '
      + 'Notes rank above captured rounds in knowledge_search. '
      + `Output: at most ${OUTPUT_BUDGET.knowledge_note} characters.`,
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'A short, specific title (max 200 characters).' },
        finding: { type: 'string', description: 'What is true and worth knowing, in a few sentences.' },
        evidence: { type: 'string', description: 'How you know: commands, outputs, files, links.' },
        scope: { type: 'string', description: 'Where it applies: versions, platforms, paths, conditions.' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Up to 8 short tags.' },
      },
      required: ['title', 'finding'],
      additionalProperties: false,
    },
    output: TEXT_OUTPUT,
    async execute(args, exec) {
      const note = parseNoteArgs(args)
      const session = (exec.agent as { session?: SessionLike } | undefined)?.session
      const sessionId = session?.id ?? 'notes'
      const written = await store.write(noteDraft(note, { session: sessionId, cwd: session?.header?.cwd ?? '', suffix: store.nextNoteSuffix(sessionId) }))
      await store.ledger.record({ type: 'note', session: sessionId, id: written.id, redacted: written.redaction.count })
      logger.debug('note %s written: %s', written.id, written.path)
      const masked = written.redaction.count ? ` (${written.redaction.count} secret-like value(s) were masked)` : ''
      const text = `Saved note ${written.id}: ${written.meta.title}${masked}.`
      return { id: written.id, path: written.path, text: withinBudget(text, OUTPUT_BUDGET.knowledge_note, () => '…') }
    },
  })
}
