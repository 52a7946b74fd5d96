/**
 * The originals tools that need the person: `request_file` asks for a file through dsh's question UI and copies the
 * path given with `person` provenance; `retire_source` is approved through dsh's approval flow (a
 * `tools/pre-execute` listener answers *ask*, like `knowledge_retire`). Neither is offered headless, where nobody
 * could answer.
 * @module dsh-knowledge-sync/originals/ask-tools
 */
import type { Context } from '@deepseek-ai/cordis'
import type { PreToolDecision } from '@deepseek-ai/dsh-tools'
import { sessionOf, TEXT_OUTPUT } from '../tool-output.js'
import type { OriginalsService } from './service.js'

export const REQUEST_TOOL = 'request_file'
export const RETIRE_TOOL = 'retire_source'

/** The part of dsh's `userQuestions` service this row uses (`@deepseek-ai/dsh-user-questions`). */
interface UserQuestions {
  ask(request: {
    questions: Array<{ id: string; question: string; detail?: string; header?: string; options?: Array<{ label: string; description?: string }> }>
    agent?: unknown
    signal?: AbortSignal
  }): Promise<{ answers: Array<{ id: string; selected: string[]; custom?: string }> }>
}

const object = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object')
  return args as Record<string, unknown>
}

export function registerAskTools(ctx: Context, service: OriginalsService): void {
  ctx.inject(['approval'], (scoped) => {
    if (scoped.get('headlessStartup')) return
    scoped.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
      const decision = await next()
      if (exec.name !== RETIRE_TOOL || decision.kind !== 'allow') return decision
      const a = (exec.arguments ?? {}) as Record<string, unknown>
      const replaced = typeof a.replacedBy === 'string' && a.replacedBy ? `, replaced by ${a.replacedBy.slice(0, 200)}` : ''
      return {
        kind: 'ask',
        reason: `Retire the original ${String(a.source).slice(0, 200)} as ${String(a.why).slice(0, 20)}${replaced} (it moves to the hidden retired folder; nothing is deleted): ${String(a.reason ?? '').slice(0, 300)}`,
      }
    })
    scoped.tools.register({
      name: RETIRE_TOOL,
      description:
        "Withdraw an original that is wrong or replaced, with the person's approval: it moves to the hidden retired " +
        'folder (nothing is deleted) and list_sources shows it retired with why, the reason and the replacement.',
      parameters: {
        type: 'object',
        properties: {
          source: { type: 'string', description: 'The original, as list_sources names it.' },
          why: { type: 'string', enum: ['wrong', 'replaced'] },
          reason: { type: 'string', description: 'Why, in one sentence (max 500 characters).' },
          replacedBy: { type: 'string', description: 'The original that replaces it (required when why is "replaced").' },
        },
        required: ['source', 'why', 'reason'],
        additionalProperties: false,
      },
      output: TEXT_OUTPUT,
      async execute(args) {
        const a = object(args)
        const { entry, summaries } = await service.retire(a.source, a.why, a.reason, a.replacedBy)
        const reminder = summaries.length
          ? ` The summary page(s) built on it — ${summaries.join(', ')} — still say what it said: retire them (knowledge_retire) or supersede them with a summary of ${entry.retired?.replacedBy ? `originals/${entry.retired.replacedBy}` : 'a correct original'}.`
          : ' If any summary or note was built on it, retire or supersede it.'
        return { path: entry.path, text: `originals/${entry.path} is retired (${entry.retired?.why}).${reminder}` }
      },
    })
  })

  ctx.inject(['userQuestions'], (scoped) => {
    if (scoped.get('headlessStartup')) return
    scoped.tools.register({
      name: REQUEST_TOOL,
      description:
        'Ask the person for a file you need (a syllabus, a price list, slides…): they answer with its path on this ' +
        'machine and it is copied into originals/ with provenance "person". Use it when the file is not in the run\'s folder.',
      parameters: {
        type: 'object',
        properties: {
          description: { type: 'string', description: 'What file you need and why, in one or two sentences.' },
          destination: { type: 'string', description: 'Its path inside originals/ (default: the file name).' },
        },
        required: ['description'],
        additionalProperties: false,
      },
      output: TEXT_OUTPUT,
      async execute(args, exec) {
        const a = object(args)
        const questions = scoped.get('userQuestions') as UserQuestions
        const answer = await questions.ask({
          questions: [
            {
              id: 'path',
              header: 'File for originals/',
              question: 'Which file should be copied into originals/? Type its path.',
              detail: String(a.description ?? '').slice(0, 1000),
              options: [{ label: 'Cancel', description: 'Do not add a file' }],
            },
          ],
          agent: exec.agent,
          signal: exec.signal,
        })
        const path = answer.answers.find((x) => x.id === 'path')?.custom?.trim()
        if (!path) return { added: false, text: 'The person did not give a file.' }
        const cwd = sessionOf(exec.agent)?.header?.cwd || process.cwd()
        const done = await service.save(path, a.destination ?? '', { kind: 'person' }, { cwd })
        return { ...done, text: done.existing ? `That file is already an original: originals/${done.path}.` : `Copied as originals/${done.path}.` }
      },
    })
  })
}
