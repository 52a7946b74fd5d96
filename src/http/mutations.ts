/**
 * The page's state-changing routes: retire a document (with a reason), restore it, supersede it with another. Each is a {@link Mutation},
 * so it runs only behind the guard (POST, loopback peer, strict Host, same Origin, JSON, per-page token), and each
 * goes through the same correction code as the tools and the CLI; the ledger records `actor: page`.
 * @module dsh-knowledge-sync/http/mutations
 */
import type { KnowledgeStore } from '../knowledge/store.js'
import { restore, retire, supersede } from '../knowledge/corrections/correct.js'
import type { StatusResult } from '../wire.js'
import type { Mutation } from './routes.js'

const body = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {})

/** `POST <prefix>/documents/<id>/retire` `{reason}` and `POST <prefix>/documents/<id>/restore`. */
export function statusMutations(store: KnowledgeStore): Mutation[] {
  return [
    {
      pattern: /^\/documents\/([^/]+)\/retire$/,
      run: async (match, value, scope): Promise<StatusResult> => retire(store, { id: decodeURIComponent(match[1]), reason: body(value).reason }, scope, 'page'),
    },
    {
      // A near-duplicate found by the Health probe, superseded from the page: the same code as knowledge_supersede.
      pattern: /^\/documents\/([^/]+)\/supersede$/,
      run: async (match, value, scope) => supersede(store, { id: decodeURIComponent(match[1]), by: body(value).by, reason: body(value).reason }, scope, 'page'),
    },
    {
      pattern: /^\/documents\/([^/]+)\/restore$/,
      run: async (match, _value, scope): Promise<StatusResult> => restore(store, { id: decodeURIComponent(match[1]) }, scope, 'page'),
    },
  ]
}
