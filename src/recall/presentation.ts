/**
 * How `knowledge_read` appears in dsh's UI: a one-line card, "Read <id> (v:N), <k> sections", instead of the whole
 * document (the model still gets the text). The card is rebuilt from the result's `meta`, which dsh persists with
 * the `tool/result` event, so a replayed session shows the same card. The same `meta` marks a read for compaction.
 * @module dsh-knowledge-sync/recall/presentation
 */
import type { ReadResult } from './read-output.js'

/** What a read's `tool/result` carries besides its text (JSON, persisted in the session log). */
export interface ReadMeta {
  knowledge: 'read'
  id: string
  version: number
  title: string
  sections: number
  section?: string
}

/** True when a read's result content is the compaction stub (see `compactedRead`), not the document. */
export function isCompactedRead(content: ReadonlyArray<{ type: string; text?: string }>): boolean {
  const only = content.length === 1 ? content[0] : undefined
  return only?.type === 'text' && typeof only.text === 'string' && only.text.startsWith('{') && only.text.includes('"note":"dropped by compaction')
}

/** Narrows a persisted `meta` to a read's (anything else, or a malformed one, is undefined). */
export function readMetaOf(meta: unknown): ReadMeta | undefined {
  const m = meta as Partial<ReadMeta> | null | undefined
  return m && m.knowledge === 'read' && typeof m.id === 'string' && typeof m.version === 'number' && typeof m.title === 'string' && typeof m.sections === 'number' ? (m as ReadMeta) : undefined
}

/**
 * The reads a session log holds (its `knowledge_read` results' meta), newest revision per document: how a session
 * resumed in a new process, or a reloaded recall row, knows what the conversation already contains.
 */
export function readsInLog(events: ReadonlyArray<{ type: string; data?: unknown }>): Array<{ id: string; version: number; title: string }> {
  const found = new Map<string, { id: string; version: number; title: string }>()
  for (const event of events) {
    if (event.type !== 'tool/result') continue
    const data = event.data as { meta?: unknown; message?: { content?: Array<{ isError?: boolean }> } } | undefined
    const meta = readMetaOf(data?.meta)
    if (!meta || data?.message?.content?.[0]?.isError) continue
    const known = found.get(meta.id)
    if (!known || known.version < meta.version) found.set(meta.id, { id: meta.id, version: meta.version, title: meta.title })
  }
  return [...found.values()]
}

/** The output declaration of `knowledge_read`: the text for the model, the meta for the card and for compaction. */
export const READ_OUTPUT = {
  schema: { type: 'object' as const },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: String((value as { text?: unknown } | null)?.text ?? '') }],
  presentationMeta: (_args: unknown, value: unknown) => {
    const v = value as ReadResult
    return { knowledge: 'read', id: v.id, version: v.version, title: v.title, sections: v.sections.length, ...(v.section ? { section: v.section } : {}) }
  },
}

/** The card's title: `Read <id> (v:N), <k> sections` (`, section "<name>"` for one section). */
export function readCardTitle(meta: ReadMeta, compacted = false): string {
  const k = meta.sections === 1 ? '1 section' : `${meta.sections} sections`
  return `Read ${meta.id} (v:${meta.version}), ${k}${meta.section ? `: "${meta.section}"` : ''}${compacted ? ' (compacted)' : ''}`
}

/** The pending card: `Read <id>`. */
export function presentReadCall(args: unknown): { card: 'generic'; title: string; kind: 'read' } {
  const a = args as { id?: unknown; section?: unknown } | null
  const id = typeof a?.id === 'string' ? a.id.slice(0, 80) : '?'
  return { card: 'generic', title: `Read ${id}${typeof a?.section === 'string' ? ` § ${a.section.slice(0, 40)}` : ''}`, kind: 'read' }
}

/** The completed card: one line with the document's title under it; errors keep dsh's default card. */
export function presentReadResult(_args: unknown, result: { isError: boolean; meta?: unknown; content?: ReadonlyArray<{ type: string; text?: string }> }) {
  if (result.isError) return undefined
  const meta = readMetaOf(result.meta)
  if (!meta) return undefined
  return { card: 'generic' as const, title: readCardTitle(meta, isCompactedRead(result.content ?? [])), content: [{ type: 'text' as const, text: meta.title }] }
}

/** What a search's `tool/result` carries besides its text: the query and the first hits, for the card. */
export interface SearchMeta {
  knowledge: 'search'
  query: string
  hits: number
  items: Array<{ id: string; version: number | null; title: string }>
}

/** Hits listed under the search card (the model's text has them all). */
const CARD_HITS = 8

/** The output declaration of `knowledge_search`: the text for the model, the meta for the card. */
export const SEARCH_OUTPUT = {
  schema: { type: 'object' as const },
  render: READ_OUTPUT.render,
  presentationMeta: (_args: unknown, value: unknown) => {
    const v = value as { query?: string; ids?: string[]; versions?: Array<number | null>; titles?: string[] }
    const ids = v.ids ?? []
    return {
      knowledge: 'search',
      query: String(v.query ?? '').slice(0, 200),
      hits: ids.length,
      items: ids.slice(0, CARD_HITS).map((id, k) => ({ id, version: v.versions?.[k] ?? null, title: String(v.titles?.[k] ?? '').slice(0, 200) })),
    }
  },
}

/** Narrows a persisted `meta` to a search's. */
export function searchMetaOf(meta: unknown): SearchMeta | undefined {
  const m = meta as Partial<SearchMeta> | null | undefined
  return m && m.knowledge === 'search' && typeof m.query === 'string' && typeof m.hits === 'number' && Array.isArray(m.items) ? (m as SearchMeta) : undefined
}

/** The card's title: `Searched "<q>": <n> hits`. */
export function searchCardTitle(meta: SearchMeta): string {
  return `Searched "${meta.query.slice(0, 80)}": ${meta.hits === 1 ? '1 hit' : `${meta.hits} hits`}`
}

/** The pending card: `Search "<q>"`. */
export function presentSearchCall(args: unknown): { card: 'generic'; title: string; kind: 'search' } {
  const q = (args as { query?: unknown } | null)?.query
  return { card: 'generic', title: `Search "${typeof q === 'string' ? q.slice(0, 80) : '?'}"`, kind: 'search' }
}

/**
 * The completed card: dsh's own search card (`card: 'search'`, `shape: 'paths'`), titled `Searched "<q>": <n> hits`,
 * one `id (v:N) — title` line per hit (no snippets, so no `**` marks). dsh web rc.8 draws only the typed cards
 * (terminal, diff, read, search, web) in place of a tool's raw output; a generic card is ignored there. Errors keep
 * dsh's default row.
 */
export function presentSearchResult(_args: unknown, result: { isError: boolean; meta?: unknown }) {
  if (result.isError) return undefined
  const meta = searchMetaOf(result.meta)
  if (!meta) return undefined
  const paths = meta.items.map((h) => `${h.id}${h.version ? ` (v:${h.version})` : ''} — ${h.title}`)
  return { card: 'search' as const, shape: 'paths' as const, title: searchCardTitle(meta), paths, truncated: meta.hits > meta.items.length, total: meta.hits }
}
