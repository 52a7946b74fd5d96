/**
 * The store's query vocabulary: validation of search arguments and document ids shared by the tools, the CLI and
 * the routes, so a bad argument gets the same clear message everywhere.
 * @module dsh-knowledge-sync/knowledge/query
 */
import type { DocKind, DocStatus } from '../types.js'
import { DOC_KINDS, DOC_STATUSES } from '../wire.js'
import { isValidId } from './documents/document.js'

export const MAX_QUERY_LENGTH = 10_000
export const MAX_LIMIT = 50

export interface SearchArgs {
  query: string
  kind?: DocKind
  tag?: string
  tool?: string
  limit?: number
  status?: DocStatus | 'all'
}

/** The values of a `status` filter: one standing, or `all`. */
export const STATUS_FILTERS = [...DOC_STATUSES, 'all'] as const

/** Validates model- or CLI-supplied arguments; throws an Error whose message tells the caller what to fix. */
export function parseSearchArgs(raw: unknown, defaultLimit: number): SearchArgs {
  if (!raw || typeof raw !== 'object') throw new Error('arguments must be an object like {"query": "..."}')
  const args = raw as Record<string, unknown>
  if (typeof args.query !== 'string') throw new Error('"query" must be a string of keywords')
  const out: SearchArgs = { query: args.query.slice(0, MAX_QUERY_LENGTH), limit: defaultLimit }
  if (args.kind !== undefined && args.kind !== null && args.kind !== '') {
    if (!DOC_KINDS.includes(args.kind as DocKind)) throw new Error(`"kind" must be one of ${DOC_KINDS.join(', ')}`)
    out.kind = args.kind as DocKind
  }
  if (args.status !== undefined && args.status !== null && args.status !== '') {
    if (!(STATUS_FILTERS as readonly unknown[]).includes(args.status)) throw new Error(`"status" must be one of ${STATUS_FILTERS.join(', ')}`)
    out.status = args.status as DocStatus | 'all'
  }
  for (const key of ['tag', 'tool'] as const) {
    const value = args[key]
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string' || value.length > 200) throw new Error(`"${key}" must be a short string`)
    out[key] = value
  }
  if (args.limit !== undefined && args.limit !== null) {
    const limit = Number(args.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`"limit" must be an integer from 1 to ${MAX_LIMIT}`)
    out.limit = limit
  }
  return out
}

/** Validates a model- or CLI-supplied document id (trimmed); throws an Error whose message tells the caller what to fix. */
export function parseDocumentId(rawId: unknown): string {
  if (typeof rawId !== 'string' || !rawId.trim()) throw new Error('"id" must be a document id from knowledge_search, like "abc12345-t3"')
  const id = rawId.trim()
  if (!isValidId(id)) throw new Error(`invalid id ${JSON.stringify(rawId.trim().slice(0, 80))}: ids are letters, digits, "-" and "_" (no paths)`)
  return id
}
