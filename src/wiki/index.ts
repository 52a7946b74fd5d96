/**
 * Row `knowledge-wiki`: typed pages the agent curates over the captured rounds. Registers `knowledge_index`,
 * `knowledge_create`, `knowledge_edit`, `knowledge_rewrite` and `knowledge_log`, and the wiki's system-prompt section
 * (fixed when the row starts: byte-stable for every session). All writes go through the store (the wiki room of
 * `src/knowledge/wiki/`); `index.md` is regenerated after every page change, also one made by another process or by
 * hand. In plan mode the write tools are refused (the catalogue and reads stay available). Where dsh has a skill
 * registry, it ships the skills knowledge-ingest, knowledge-query and knowledge-lint (./skills.ts). Imports no other row.
 * @module dsh-knowledge-sync/wiki
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type { PreToolDecision } from '@deepseek-ai/dsh-tools'
import type {} from '../knowledge/index.js'
import type { DeclaredType } from '../knowledge/wiki/page-types.js'
import { Wiki } from '../knowledge/wiki/wiki.js'
import { sessionOf } from '../tool-output.js'
import { WIKI_PROMPT_ORDER, wikiPromptText } from './prompt.js'
import { registerWikiTools, WIKI_WRITE_TOOLS } from './tools.js'
import { wikiSkillProvider } from './skills.js'

declare module '@deepseek-ai/cordis' {
  interface Context {
    knowledgeWiki: Wiki
  }
}

export const name = 'knowledge-wiki'
export const inject = ['knowledge', 'tools', 'systemPrompt']

export interface Config {
  /** Offer the wiki's tools and prompt section. */
  enabled: boolean
  /** Page types of this profile, added to the built-ins (a built-in's name replaces it). */
  types: DeclaredType[]
}

const TypeSchema = z.object({
  type: z.string().required().description('Lowercase name: the first part of its ids (type/slug).'),
  folder: z.string().default('').description('Folder under the root; "" for the root itself.'),
  section: z.string().required().description('Heading of its section in the index.'),
  description: z.string().required().description('One sentence: what such a page is (the model reads it).'),
  template: z.string().default('').description('Markdown a new page starts from.'),
  fields: z.array(z.string()).default([]).description('Front-matter fields; "name[]" for a list.'),
  indexFields: z.array(z.string()).default([]).description('Fields shown on its index line.'),
})

export const Config: z<Config> = z.object({
  enabled: z.boolean().default(true).description("Offer the wiki's tools and prompt section."),
  types: z.array(TypeSchema).default([]).description('Page types of this profile, besides summary, concept, entity, synthesis and preference.'),
}) as z<Config>

/** Whether the session is in dsh's plan mode (the last `plan/mode` event of its log; dsh-plan-mode logs it). */
export function inPlanMode(events: ReadonlyArray<{ type: string; data?: unknown }> | undefined): boolean {
  for (let k = (events?.length ?? 0) - 1; k >= 0; k--) if (events![k].type === 'plan/mode') return (events![k].data as { active?: unknown } | undefined)?.active === true
  return false
}

export function apply(ctx: Context, config: Config): void {
  if (!config.enabled) return
  const store = ctx.knowledge
  const logger = ctx.logger('knowledge-wiki')
  let wiki: Wiki
  try {
    wiki = new Wiki(store, config.types)
  } catch (error) {
    throw new Error(`knowledge-wiki: ${(error as Error).message}`)
  }
  ctx.effect(() => () => wiki.close(), 'knowledge-wiki')
  // The page's Wiki view reads the catalogue with this profile's types (a service: rows never import each other).
  ctx.provide('knowledgeWiki', wiki)
  // Pages link rounds of the session's own workspace only (the recall rule with sameWorkspaceOnly).
  registerWikiTools(ctx, wiki, (agent) => ({ actor: 'tool', scope: store.visibleScope(sessionOf(agent)?.header?.cwd, true) }))

  const text = wikiPromptText(wiki.types)
  ctx.systemPrompt.section({ name: 'knowledge-sync:wiki', order: WIKI_PROMPT_ORDER, text: (assembly) => (sessionOf(assembly.agent) ? text : '') })

  // Plan mode is for exploring: reading the wiki is fine, changing it waits for the plan's approval.
  ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
    if ((WIKI_WRITE_TOOLS as readonly string[]).includes(exec.name) && inPlanMode(sessionOf(exec.agent)?.events))
      return { kind: 'deny', reason: `${exec.name} changes the wiki; in plan mode only reading is allowed (knowledge_index, knowledge_search, knowledge_read). Include the change in the plan.` }
    return next()
  })

  // The skills, where dsh has a skill registry (optional: the row runs without it).
  ctx.inject(['skills'], (scoped) => {
    const skills = (scoped as unknown as { skills: { registerProvider(create: () => unknown): () => void } }).skills
    scoped.effect(() => skills.registerProvider(() => wikiSkillProvider()), 'knowledge-wiki skills')
  })

  // A page changed by another process or by hand: the catalogue follows (writes of this process regenerate it already).
  let regenerating: Promise<unknown> = Promise.resolve()
  let queued = false
  ctx.effect(
    () =>
      store.onChange((change) => {
        if (change.kind !== 'page' && change.kind !== 'preference' && change.type !== 'removed') return // index.md lists pages only
        if (queued) return
        queued = true
        regenerating = regenerating.then(async () => {
          queued = false
          await wiki.regenerateIndex().catch((error: Error) => logger.warn('index.md not regenerated: %s', error.message))
        })
        store.hold(regenerating)
      }),
    'knowledge-wiki index',
  )
  logger.debug('wiki ready: %d page type(s)', wiki.types.length)
}
