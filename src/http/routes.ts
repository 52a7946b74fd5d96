/**
 * JSON routes over the store for the Knowledge page: the document list (search and filters through the same code
 * as the tools), one document, and stats. Read-only on purpose.
 * @module dsh-knowledge-sync/http/routes
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { KnowledgeStore } from '../knowledge/store.js'
import { parseSearchArgs } from '../knowledge/query.js'
import { refusal } from './loopback.js'
import { collectStats } from '../knowledge/stats.js'

export interface RouteOptions {
  /** The prefix, e.g. `/knowledge`. */
  path: string
  trustedHosts: readonly string[]
  pageSize: number
}

function send(res: ServerResponse, status: number, body: unknown): void {
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

/** The handler for every request under the prefix. */
export function createHandler(store: KnowledgeStore, options: RouteOptions): RouteHandler {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = refusal(req, options.trustedHosts)
    if (refused) return send(res, 403, { error: `forbidden: ${refused}` })
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'read-only: only GET is served' })
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const sub = url.pathname.slice(options.path.length).replace(/\/+$/, '') || '/'
    const q = url.searchParams
    try {
      const cwd = q.get('cwd') || undefined
      const scope = store.visibleScope(cwd, true)
      if (sub === '/documents') {
        const limit = Math.min(Math.max(Number(q.get('limit')) || options.pageSize, 1), 200)
        const offset = Math.max(Number(q.get('offset')) || 0, 0)
        const args = parseSearchArgs({ query: q.get('q') ?? '', kind: q.get('kind') || undefined, tag: q.get('tag') || undefined, tool: q.get('tool') || undefined }, limit)
        const filter = { kind: args.kind, tag: args.tag, tool: args.tool, scope }
        if (args.query.trim()) {
          const hits = store.search(args.query, { ...filter, limit: offset + limit })
          return send(res, 200, { total: hits.length, offset, items: hits.slice(offset), facets: store.facets(filter), scope: scope ?? null })
        }
        const page = store.list({ ...filter, offset, limit })
        return send(res, 200, { total: page.total, offset, items: page.items, facets: store.facets(filter), scope: scope ?? null })
      }
      if (sub.startsWith('/documents/')) {
        const id = decodeURIComponent(sub.slice('/documents/'.length))
        try {
          const doc = await store.readVisible(id, scope)
          return send(res, 200, { id: doc.id, version: doc.version, path: doc.path, meta: doc.meta, body: doc.body })
        } catch (error) {
          return send(res, 404, { error: (error as Error).message })
        }
      }
      if (sub === '/stats') return send(res, 200, await collectStats(store, scope))
      if (sub === '/config') return send(res, 200, store.settings.describe())
      return send(res, 404, { error: `no route ${url.pathname}`, routes: [`${options.path}/documents`, `${options.path}/documents/<id>`, `${options.path}/stats`, `${options.path}/config`] })
    } catch (error) {
      return send(res, 400, { error: (error as Error).message })
    }
  }
}
