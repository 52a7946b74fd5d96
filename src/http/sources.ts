/**
 * The Sources routes of the Knowledge page, served when the knowledge-sync row provides its service:
 * `GET /sources` (every source, last result, cache state; no network), `POST /sources/dry-run` (the diff) and
 * `POST /sources/sync` ("Sync now"). The POST routes pass the same guard as every state change.
 * @module dsh-knowledge-sync/http/sources
 */
import type { KnowledgeSync } from '../sync/index.js'
import type { SourcesView } from '../wire.js'
import type { Mutation } from './routes.js'

const absent: SourcesView = { available: false, file: '', exists: false, sources: [] }

function only(body: unknown): string | undefined {
  const source = (body as { source?: unknown } | null)?.source
  if (source === undefined || source === null || source === '') return undefined
  if (typeof source !== 'string' || source.length > 2000) throw new Error('"source" must be a source name')
  return source
}

/** Read routes and mutations over whatever sync service is current (none: the page says the row is off). */
export function sourceRoutes(current: () => KnowledgeSync | undefined): { reads: Record<string, () => Promise<unknown>>; mutations: Mutation[] } {
  const need = () => {
    const sync = current()
    if (!sync) throw new Error('the knowledge-sync row is not running')
    return sync
  }
  return {
    reads: { '/sources': async () => (current() ? current()!.sources() : absent) },
    mutations: [
      { pattern: /^\/sources\/dry-run$/, run: (_m, body) => need().run({ dryRun: true, only: only(body) }) },
      { pattern: /^\/sources\/sync$/, run: (_m, body) => need().run({ only: only(body) }) },
    ],
  }
}
