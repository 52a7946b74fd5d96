/**
 * Row `knowledge-http`: JSON routes for the Knowledge page, served only to loopback clients. Runs only where a web
 * server exists (dsh web); every other row works without it.
 * @module dsh-knowledge-sync/http
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '../knowledge/index.js'
import { probeHealth } from '../knowledge/reports/health.js'
import type { KnowledgeSync } from '../sync/index.js'
import { createHandler, type RouteHandler } from './routes.js'
import { statusMutations } from './mutations.js'
import { sourceRoutes } from './sources.js'
import { Wiki } from '../knowledge/wiki/wiki.js'
import type { OriginalsService } from '../originals/service.js'
import { originalRoutes } from './originals.js'
import { wikiRoutes } from './wiki.js'

/** Documents a health probe started from the page looks at (an even sample of the visible ones). */
export const PAGE_PROBE_SAMPLE = 500

/** The slice of `@deepseek-ai/dsh-host-webserver` this row uses (declared here: the row needs no runtime import). */
declare module '@deepseek-ai/cordis' {
  interface Context {
    webServer: { register(route: { kind: 'exact' | 'prefix'; path: string; handler: RouteHandler }): () => void }
  }
}

export const name = 'knowledge-http'
export const inject = ['knowledge']

export interface Config {
  /** URL prefix of the routes (not under `/api`, which dsh owns). */
  path: string
  /** Host names besides loopback that may address the routes (as with `dsh web --trusted-host`). */
  trustedHosts: string[]
  /** Default page size of the document list. */
  pageSize: number
}

export const Config: z<Config> = z.object({
  path: z
    .string()
    .pattern(/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/)
    .default('/knowledge')
    .description('URL prefix of the routes.'),
  trustedHosts: z.array(z.string()).default([]).description('Host names besides loopback allowed in the Host header.'),
  pageSize: z.natural().min(1).max(200).default(50).description('Default page size of the document list.'),
}) as z<Config>

/** The current instance of an optional service (undefined while its row is off), followed through reloads. */
function optionalService<T>(ctx: Context, name: string): () => T | undefined {
  let current: T | undefined
  ctx.inject([name], (scoped) => {
    current = (scoped as unknown as Record<string, T>)[name]
    scoped.effect(
      () => () => {
        current = undefined
      },
      `knowledge-http ${name}`,
    )
  })
  return () => current
}

export function apply(ctx: Context, config: Config): void {
  if (config.path === '/api' || config.path.startsWith('/api/')) throw new Error('knowledge-http: path must not be under /api, which dsh owns')
  const store = ctx.knowledge
  // The Sources routes answer when the knowledge-sync row runs (rows never import each other: it is a service).
  let sync: KnowledgeSync | undefined
  ctx.inject(['knowledgeSync'], (c) => {
    sync = c.knowledgeSync
    c.effect(
      () => () => {
        sync = undefined
      },
      'knowledge-http sources',
    )
  })
  const sources = sourceRoutes(() => sync)
  // The Originals and Wiki views answer when their rows run (services, like sync's); page edits of wiki pages still
  // work with the wiki row off, through a Wiki of the built-in types made on first use.
  const originalsService = optionalService<OriginalsService>(ctx, 'knowledgeOriginals')
  const wikiService = optionalService<Wiki>(ctx, 'knowledgeWiki')
  let fallbackWiki: Wiki | undefined
  ctx.effect(() => () => fallbackWiki?.close(), 'knowledge-http fallback wiki')
  const originals = originalRoutes(store, originalsService)
  const wiki = wikiRoutes(store, wikiService, () => (fallbackWiki ??= new Wiki(store)))
  const mutations = [
    ...statusMutations(store),
    ...sources.mutations,
    ...originals.mutations,
    ...wiki.mutations,
    // A probe from the page is sampled, so it answers in seconds at any size; the CLI probes everything.
    { pattern: /^\/health\/run$/, run: (_match: RegExpExecArray, _body: unknown, scope: string | undefined) => probeHealth(store, { scope, sample: PAGE_PROBE_SAMPLE }) },
  ]
  const handler = createHandler(store, { path: config.path, trustedHosts: config.trustedHosts, pageSize: config.pageSize, mutations, reads: { ...sources.reads, ...originals.reads, ...wiki.reads } })
  ctx.effect(() => () => handler.close(), 'knowledge-http revision counter')
  ctx.inject(['webServer'], (web) => {
    web.effect(() => web.webServer.register({ kind: 'prefix', path: config.path, handler }), 'knowledge-http route')
    web.logger('knowledge-http').debug('serving %s', config.path)
  })
}
