/**
 * The wiki's tools: `knowledge_index`, `knowledge_create`, `knowledge_edit`, `knowledge_rewrite`, `knowledge_log`.
 * Each is a thin call into the wiki room (the same code as the CLI); the texts they return are bounded and
 * stated in their descriptions. Read tools and write tools are listed apart, for modes that allow only reading.
 * @module dsh-knowledge-sync/wiki/tools
 */
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-tools'
import type { WikiCaller } from '../knowledge/wiki/wiki.js'
import type { Wiki } from '../knowledge/wiki/wiki.js'
import { parseFieldChanges } from '../knowledge/wiki/page-fields.js'
import type { WrittenPage } from '../knowledge/wiki/pages.js'
import type { PageType } from '../knowledge/wiki/page-types.js'
import { OUTPUT_BUDGET, TEXT_OUTPUT, withinBudget } from '../tool-output.js'
import { createParameters, EDIT_PARAMETERS, INDEX_PARAMETERS, LOG_PARAMETERS, object, parseCreate, REWRITE_PARAMETERS } from './args.js'

export const INDEX_TOOL = 'knowledge_index'
export const CREATE_TOOL = 'knowledge_create'
export const EDIT_TOOL = 'knowledge_edit'
export const REWRITE_TOOL = 'knowledge_rewrite'
export const LOG_TOOL = 'knowledge_log'
/** Tools that only read: allowed where a mode forbids changes (plan mode). */
export const WIKI_READ_TOOLS = [INDEX_TOOL] as const
/** Tools that change the wiki. */
export const WIKI_WRITE_TOOLS = [CREATE_TOOL, EDIT_TOOL, REWRITE_TOOL, LOG_TOOL] as const

const WRITE_BUDGET = 800
const masked = (pages: WrittenPage[]) => {
  const n = pages.reduce((sum, p) => sum + p.redacted, 0)
  return n ? ` (${n} secret-like value(s) were masked)` : ''
}
const written = (verb: string, pages: WrittenPage[]) =>
  withinBudget(`${verb} ${pages.map((p) => `${p.id} (v:${p.version}, ${p.path})`).join(', ')}${masked(pages)}. Record the operation with knowledge_log when it is done.`, WRITE_BUDGET, () => '…')

/** The description of `knowledge_create`, with every page type's description (what the model chooses from). */
export function createDescription(types: readonly PageType[]): string {
  return (
    'Create a wiki page (id type/slug) from its type\'s template; without "content" returns the template. ' +
    '"also" creates more pages in the same call, which may link to each other: all are written or none. ' +
    'A link to a page that does not exist is refused. Types: ' +
    types.map((t) => `${t.type} (${t.description.replace(/\.$/, '')})`).join('; ') +
    `. Output: at most ${WRITE_BUDGET} characters.`
  )
}

/** One wiki tool as every surface offers it (the dsh row here, the MCP server of `dsh-knowledge mcp`). */
export interface WikiToolSpec {
  name: string
  description: string
  parameters: Record<string, unknown>
  /** True for the tools that change the wiki (denied in plan mode). */
  writes: boolean
  run(args: unknown, caller: WikiCaller): Promise<{ text: string; [key: string]: unknown }>
}

/** How a surface lends the tools a wiki for one call (the row has one for its life; the MCP server opens one per call). */
export type WithWiki = <T>(writes: boolean, fn: (wiki: Wiki) => Promise<T>) => Promise<T>

/** The five tools over the page `types`: names, descriptions, argument schemas and the work, declared once. */
export function wikiToolSpecs(types: readonly PageType[], withWiki: WithWiki): WikiToolSpec[] {
  return [
    {
      name: INDEX_TOOL,
      description:
        'The wiki catalogue: every active page, one line each (title, id, what it is, index fields), grouped by section; ' +
        'rounds and notes are only counted (knowledge_search finds them). A section too large to list is summarised: list it with "section" and page it with "offset".' +
        ` Output: at most ${OUTPUT_BUDGET.knowledge_index} characters.`,
      parameters: INDEX_PARAMETERS as unknown as Record<string, unknown>,
      writes: false,
      run: (args, caller) =>
        withWiki(false, async (wiki) => {
          const a = object(args ?? {})
          if (a.section !== undefined && (typeof a.section !== 'string' || a.section.length > 100)) throw new Error('"section" must be a section name like "Concepts"')
          if (a.offset !== undefined && (!Number.isInteger(a.offset) || (a.offset as number) < 0)) throw new Error('"offset" must be an integer >= 0')
          const text = await wiki.indexText(caller.scope, OUTPUT_BUDGET.knowledge_index, { section: a.section as string | undefined, offset: a.offset as number | undefined })
          return { text }
        }),
    },
    {
      name: CREATE_TOOL,
      description: createDescription(types),
      parameters: createParameters(types),
      writes: true,
      run: (args, caller) =>
        withWiki(true, async (wiki) => {
          const parsed = parseCreate(args)
          if ('template' in parsed) return { text: wiki.template(parsed.template) }
          const pages = await wiki.create(parsed.pages, caller)
          return { ids: pages.map((p) => p.id), text: written('Created', pages) }
        }),
    },
    {
      name: EDIT_TOOL,
      description:
        "Change a wiki page by a fragment: oldText (copied exactly from knowledge_read, unique in the page's content) becomes newText; " +
        '"fields" changes front-matter fields. Links by id; a link to nothing is refused.' +
        ` Output: at most ${WRITE_BUDGET} characters.`,
      parameters: EDIT_PARAMETERS as unknown as Record<string, unknown>,
      writes: true,
      run: (args, caller) =>
        withWiki(true, async (wiki) => {
          const a = object(args)
          const page = await wiki.edit(a.page, a.oldText, a.newText, parseFieldChanges(a.fields), caller)
          return { id: page.id, text: written('Edited', [page]) }
        }),
    },
    {
      name: REWRITE_TOOL,
      description:
        'Replace a wiki page\'s whole content (its id, file and the links to it stay), or write the overview (page "overview"). ' +
        'Prefer knowledge_edit for a change of a few lines.' +
        ` Output: at most ${WRITE_BUDGET} characters.`,
      parameters: REWRITE_PARAMETERS as unknown as Record<string, unknown>,
      writes: true,
      run: (args, caller) =>
        withWiki(true, async (wiki) => {
          const a = object(args)
          const page = await wiki.rewrite(a.page, a.content, parseFieldChanges(a.fields), caller)
          return { id: page.id, text: written('Rewrote', [page]) }
        }),
    },
    {
      name: LOG_TOOL,
      description:
        'Record one finished wiki operation as a dated line in the operation log (log.md): operation (ingest, query, lint, update, …), what was done, the pages touched. ' +
        'knowledge_read({"id": "log"}) shows the last ten.',
      parameters: LOG_PARAMETERS as unknown as Record<string, unknown>,
      writes: true,
      run: (args, caller) =>
        withWiki(true, async (wiki) => {
          const a = object(args)
          const entry = await wiki.log(a.operation, a.what, a.pages, caller)
          return { text: `Logged ${entry.at} ${entry.operation}: ${entry.what}` }
        }),
    },
  ]
}

/** Registers the five tools; `callerOf` gives the actor and workspace of a calling agent. */
export function registerWikiTools(ctx: Context, wiki: Wiki, callerOf: (agent: unknown) => WikiCaller): void {
  for (const spec of wikiToolSpecs(wiki.types, (_writes, fn) => fn(wiki)))
    ctx.tools.register({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      output: TEXT_OUTPUT,
      execute: (args, exec) => spec.run(args, callerOf(exec.agent)),
    })
}
