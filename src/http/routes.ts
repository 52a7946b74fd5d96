/**
 * JSON routes over the store for the Knowledge page: the document list (search and filters through the same code
 * as the tools), one document, stats, config, and the page token. GET routes are read-only; state changes are POST
 * routes from {@link RouteOptions.mutations}, each behind {@link mutationRefusal}.
 * @module dsh-knowledge-sync/http/routes
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import type { KnowledgeStore } from '../knowledge/store.js'
import { parseSearchArgs } from '../knowledge/query.js'
import { recentRounds, sessionRounds } from '../knowledge/reports/stats.js'
import { mutationRefusal, PageTokens, refusal, sameOriginRefusal, TOKEN_HEADER } from './guard.js'
import { collectStats } from '../knowledge/reports/stats.js'
import { healthSummary } from '../knowledge/reports/health.js'
import { bodyWithIds, relationsView } from '../knowledge/corrections/correct.js'
import { stripNotice } from '../knowledge/relations/relations.js'
import { CURRENT, documentHistory, historyDiff } from '../knowledge/history/history.js'
import { Download, sendDownload } from './download.js'
import { errorAnswer, statusOf } from './words.js'
import { memoScope, workspaceGroups } from './workspaces.js'

export interface RouteOptions {
  /** The prefix, e.g. `/knowledge`. */
  path: string
  trustedHosts: readonly string[]
  pageSize: number
  /** State-changing routes (POST), matched against the sub-path after the prefix. */
  mutations?: Mutation[]
  /** Further read-only routes by exact sub-path (e.g. `/sources` when the sync row runs); they get the query and scope. */
  reads?: Record<string, ReadRoute>
}

/** A read-only route: answers JSON, or a {@link Download} streamed as an attachment. */
export type ReadRoute = (query: URLSearchParams, scope: string | undefined) => Promise<unknown>

/** One state-changing route: `pattern` matches the sub-path; `run` gets the match and the parsed JSON body. */
export interface Mutation {
  pattern: RegExp
  run(match: RegExpExecArray, body: unknown, scope: string | undefined): Promise<unknown>
}

/** How deep into a ranking the page can page (the index's own window). */
const MAX_SEARCH_WINDOW = 1000

/** The largest JSON body a state-changing route reads. */
const MAX_BODY_BYTES = 64 * 1024

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = []
  let size = 0
  for await (const part of req) {
    size += (part as Buffer).length
    if (size > MAX_BODY_BYTES) throw new Error(`the body is larger than ${MAX_BODY_BYTES} bytes`)
    parts.push(part as Buffer)
  }
  const text = Buffer.concat(parts).toString('utf8')
  return text.trim() ? JSON.parse(text) : {}
}

function send(res: ServerResponse, status: number, body: unknown): void {
  // Every refusal the page shows is in people's words, whatever the store said to the model (./words.ts).
  if (status >= 400 && body && typeof (body as { error?: unknown }).error === 'string') body = errorAnswer(status, body as { error: string })
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** The routes' handler; `close` stops it following the store (the row's disposer: a reloaded row must not pile up listeners). */
export type PageHandler = RouteHandler & { close(): void }

/** The handler for every request under the prefix. */
export function createHandler(store: KnowledgeStore, options: RouteOptions): PageHandler {
  const tokens = new PageTokens()
  // Bumped on every document written or removed (here or on disk): the page polls it to stay live cheaply.
  let revision = 0
  const unfollow = store.onChange(() => {
    revision++
  })
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = refusal(req, options.trustedHosts)
    if (refused) return send(res, 403, { error: `forbidden: ${refused}` })
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const sub = url.pathname.slice(options.path.length).replace(/\/+$/, '') || '/'
    const q = url.searchParams
    const cwd = q.get('cwd') || undefined
    if (req.method === 'POST' && sub === '/token') {
      // The per-page token: only a same-origin page can read this answer (no CORS), and only it can mint one.
      const refusedMint = sameOriginRefusal(req, options.trustedHosts)
      if (refusedMint) return send(res, 403, { error: `forbidden: ${refusedMint}` })
      return send(res, 200, { token: tokens.issue(), header: TOKEN_HEADER })
    }
    if (req.method === 'POST') {
      const mutation = options.mutations?.map((m) => ({ m, match: m.pattern.exec(sub) })).find((x) => x.match)
      if (!mutation) return send(res, 405, { error: `no state-changing route at ${url.pathname}` })
      const refusedChange = mutationRefusal(req, options.trustedHosts, tokens)
      if (refusedChange) return send(res, 403, { error: `forbidden: ${refusedChange}` })
      try {
        const body = await readJson(req)
        return send(res, 200, await mutation.m.run(mutation.match!, body, store.visibleScope(cwd, true)))
      } catch (error) {
        return send(res, statusOf(error), { error: (error as Error).message })
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'only GET and POST are served' })
    try {
      const scope = store.visibleScope(cwd, true)
      if (sub === '/revision') return send(res, 200, { revision })
      if (sub === '/token') return send(res, 405, { error: `page tokens are minted by a same-origin POST to ${options.path}/token` })
      if (sub === '/documents') {
        const limit = Math.min(Math.max(Number(q.get('limit')) || options.pageSize, 1), 200)
        const offset = Math.max(Number(q.get('offset')) || 0, 0)
        const args = parseSearchArgs(
          { query: q.get('q') ?? '', kind: q.get('kind') || undefined, tag: q.get('tag') || undefined, tool: q.get('tool') || undefined, status: q.get('status') || undefined },
          limit,
        )
        const filter = { kind: args.kind, idPrefix: args.idPrefix, tag: args.tag, tool: args.tool, scope, status: args.status }
        if (args.query.trim()) {
          // Ranked hits cost a score each, so the page reads ahead one page: the total is exact when the ranking ends
          // within that window, else a lower bound (`more`), and paging goes on to the ranking's end (MAX_SEARCH_WINDOW).
          // Sorted by date, the whole ranking window is read (so pages follow one order), and the total is exact.
          const sort = q.get('sort')
          const byDate = sort === 'created' || sort === 'updated'
          const window = byDate ? MAX_SEARCH_WINDOW : Math.min(offset + 2 * limit, MAX_SEARCH_WINDOW)
          const hits = store.search(args.query, { ...filter, limit: window })
          if (sort === 'created') hits.sort((a, b) => Date.parse(b.created) - Date.parse(a.created))
          if (sort === 'updated') hits.sort((a, b) => (b.updated ?? '').localeCompare(a.updated ?? ''))
          const more = hits.length >= window && window < MAX_SEARCH_WINDOW
          const facets = store.facets(filter)
          const scopeOf = memoScope(store)
          const items = hits.slice(offset, offset + limit).map((hit) => ({ ...hit, workspace: scopeOf(hit.cwd) }))
          return send(res, 200, { total: hits.length, more, offset, items, facets, workspaces: workspaceGroups(facets.workspaces, store, scopeOf), scope: scope ?? null })
        }
        const page = store.list({ ...filter, offset, limit, sort: q.get('sort') === 'updated' ? 'updated' : 'created' })
        const facets = store.facets(filter)
        const scopeOf = memoScope(store)
        const items = page.items.map((m) => ({ ...m, updated: new Date(m.mtimeMs).toISOString(), workspace: scopeOf(m.cwd) }))
        return send(res, 200, { total: page.total, offset, items, facets, workspaces: workspaceGroups(facets.workspaces, store, scopeOf), scope: scope ?? null })
      }
      if (sub.startsWith('/documents/')) {
        const id = decodeURIComponent(sub.slice('/documents/'.length))
        try {
          const doc = await store.readVisible(id, scope)
          return send(res, 200, {
            id: doc.id,
            version: doc.version,
            path: doc.path,
            file: join(store.root, doc.path),
            updated: new Date(store.get(doc.id)?.mtimeMs ?? Date.now()).toISOString(),
            meta: doc.meta,
            // The header shows the status (badge, successor link, retirement's date and reason): the notice line would repeat it.
            body: bodyWithIds(store, { path: doc.path, body: stripNotice(doc.body) }),
            ...relationsView(store, doc.id, scope),
          })
        } catch (error) {
          return send(res, 404, { error: (error as Error).message })
        }
      }
      if (sub === '/history' || sub === '/history/diff') {
        // A document's revisions (`?id=`), or the diff of two it listed (`/history/diff?id=&from=&to=`).
        const id = q.get('id') ?? ''
        try {
          if (sub === '/history') return send(res, 200, await documentHistory(store, id, scope))
          return send(res, 200, await historyDiff(store, id, q.get('from') ?? '', q.get('to') || CURRENT, scope))
        } catch (error) {
          return send(res, 404, { error: (error as Error).message })
        }
      }
      if (sub === '/stats') return send(res, 200, await collectStats(store, scope))
      if (sub === '/config') return send(res, 200, store.settings.describe())
      if (sub === '/rounds') {
        const session = q.get('session')
        if (session) return send(res, 200, await sessionRounds(store, session.slice(0, 200)))
        return send(res, 200, await recentRounds(store, Math.min(Math.max(Number(q.get('limit')) || 200, 1), 1000)))
      }
      if (sub === '/health') return send(res, 200, await healthSummary(store, scope))
      const read = options.reads && Object.hasOwn(options.reads, sub) ? options.reads[sub] : undefined
      if (read) {
        const answer = await read(q, scope)
        return answer instanceof Download ? sendDownload(res, answer, req.method === 'HEAD') : send(res, 200, answer)
      }
      return send(res, 404, {
        error: `no route ${url.pathname}`,
        routes: [
          `${options.path}/documents`,
          `${options.path}/documents/<id>`,
          `${options.path}/stats`,
          `${options.path}/config`,
          `${options.path}/token`,
          `${options.path}/revision`,
          `${options.path}/rounds`,
          `${options.path}/health`,
          `${options.path}/history?id=<id>`,
          `${options.path}/history/diff?id=<id>&from=<ref>&to=<ref>`,
        ],
      })
    } catch (error) {
      return send(res, statusOf(error), { error: (error as Error).message })
    }
  }
  return Object.assign(handler, { close: () => void unfollow() })
}
