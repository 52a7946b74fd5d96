/**
 * Row `knowledge-sync`: keeps curated documents current with their declared upstream sources (`<root>/sources.yml`
 * and the `in-use` decisions). Provides `ctx.knowledgeSync` (the Sources routes use it when present) and, where
 * tools exist, `knowledge_curate`. Runs only on its own timers (`onStart`, `intervalMinutes`), never on the agent
 * loop's path. Imports only the store row.
 * @module dsh-knowledge-sync/sync
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-tools'
import type {} from '../knowledge/index.js'
import { TEXT_OUTPUT } from '../tool-output.js'
import { CURATE_PARAMETERS, CURATE_TOOL, curate } from './curate.js'
import { KnowledgeSync } from './service.js'
import { declaresRoots } from './sources.js'
import { DECISIONS_FILE } from './decisions.js'
import { existsSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { SyncReport } from '../wire.js'

export { KnowledgeSync } from './service.js'
export type { AuditReport } from './service.js'
export type { DiscoverResult } from './discover.js'

declare module '@deepseek-ai/cordis' {
  interface Context {
    knowledgeSync: KnowledgeSync
  }
}

export const name = 'knowledge-sync'
export const inject = ['knowledge']

export interface Config {
  /** Sync once shortly after start. */
  onStart: boolean
  /** Sync every this many minutes; 0 = never on a timer. */
  intervalMinutes: number
  /** Offer the knowledge_curate tool when sources.yml declares discovery roots or decisions.json exists (at start). */
  curate: boolean
  /** Folders (absolute) local sources may read besides the root's enclosing git work tree. */
  localRoots: string[]
}

export const Config: z<Config> = z.object({
  onStart: z.boolean().default(false).description('Sync once shortly after start.'),
  intervalMinutes: z
    .natural()
    .max(7 * 24 * 60)
    .default(0)
    .description('Sync every this many minutes; 0 = never on a timer.'),
  curate: z.boolean().default(true).description('Offer knowledge_curate when sources.yml declares discovery roots or decisions exist (checked at start).'),
  localRoots: z.array(z.string()).default([]).description("Folders (absolute paths) `type: local` sources may read besides the knowledge root's enclosing git work tree."),
}) as z<Config>

/** One-line summary of a run for the log. */
export function summarize(report: SyncReport): string {
  const counts: Record<string, number> = {}
  for (const r of report.results) counts[r.status] = (counts[r.status] ?? 0) + 1
  return (
    Object.entries(counts)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ') || 'no sources'
  )
}

export function apply(ctx: Context, config: Config): void {
  const logger = ctx.logger('knowledge-sync')
  const relative = config.localRoots.find((dir) => !isAbsolute(dir))
  if (relative !== undefined) throw new Error(`knowledge-sync: localRoots must hold absolute paths (got ${JSON.stringify(relative)})`)
  const service = new KnowledgeSync(ctx.knowledge, { logger, localRoots: config.localRoots })
  ctx.provide('knowledgeSync', service)

  const background = (why: string) => {
    const done = service.run().then(
      (report) => logger.info('sync (%s): %s', why, summarize(report)),
      (error: Error) => logger.warn('sync (%s) failed: %s', why, error.message),
    )
    ctx.knowledge.hold(done)
  }
  if (config.onStart) {
    const timer = setTimeout(() => background('start'), 1000)
    timer.unref()
    ctx.effect(() => () => clearTimeout(timer), 'knowledge-sync start run')
  }
  if (config.intervalMinutes > 0) {
    const timer = setInterval(() => {
      if (!service.busy) background('interval')
    }, config.intervalMinutes * 60_000)
    timer.unref()
    ctx.effect(() => () => clearInterval(timer), 'knowledge-sync interval')
  }

  if (config.curate) {
    // Decided once at start, so the tool list (and the prompt prefix) stays stable: ~280 tokens per request are
    // spent only where curation is set up.
    const wanted = declaresRoots(ctx.knowledge.root) || existsSync(join(ctx.knowledge.root, DECISIONS_FILE))
    ctx.inject(['tools'], (tools) => {
      if (!wanted) {
        logger.debug('knowledge_curate not offered: no discovery roots and no decisions under %s', ctx.knowledge.root)
        return
      }
      tools.effect(
        () =>
          tools.tools.register({
            name: CURATE_TOOL,
            description:
              'Curate web pages found by knowledge discovery: list pending URLs, or decide one ("in-use" keeps it ' +
              'synced into a document section; "rejected" ignores it). A person\'s locked decision cannot be changed.',
            parameters: CURATE_PARAMETERS as unknown as Record<string, unknown>,
            output: TEXT_OUTPUT,
            execute: (args: unknown) => curate(service.decisions, args),
          }),
        'knowledge_curate tool',
      )
    })
  }
}
