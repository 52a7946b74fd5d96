/**
 * How `knowledge_read` appears in dsh's UI: dsh's own `read` card, titled "Read <id> (v:N), <k> sections — <title>",
 * whose lines are a short preview of the document (its first non-blank lines after the front matter, numbered as in
 * the tool's text), instead of the whole text (the model still gets the text; this changes nothing it sees). The
 * card is rebuilt from the result's `meta`, which dsh persists with the `tool/result` event, so a replayed session
 * shows the same card. The same `meta` marks a read for compaction.
 * @module dsh-knowledge-sync/recall/presentation
 */
import type { ReadResult } from './read-output.js'
import { SEARCH_CARD_HITS, SEARCH_CARD_TEXT, searchSummary } from '../wire.js'

/** What a read's `tool/result` carries besides its text (JSON, persisted in the session log). */
export interface ReadMeta {
  knowledge: 'read'
  id: string
  version: number
  title: string
  sections: number
  section?: string
  /** The file, relative to the knowledge root (absent in logs written before the read card). */
  path?: string
  /** The card's preview: a few lines of the tool's own text (so redacted as it is), numbered as there. */
  lines?: PreviewLine[]
  /** How many lines the tool's text has. */
  totalLines?: number
}

/** One preview line: its 1-based number in the tool's text, and the line (cut to {@link PREVIEW_LINE_CHARS}). */
export type PreviewLine = {
  number: number
  text: string
}

/** Preview lines on the card: dsh web's chat row shows 8 before it folds the middle (ui-tool CHAT_READ_MAX_LINES). */
export const PREVIEW_LINES = 8
/** A preview line is cut to this many characters. */
export const PREVIEW_LINE_CHARS = 160

/**
 * The card's preview of a read's text: the first {@link PREVIEW_LINES} non-blank lines after the tag line, the
 * notices and the front matter (the card's title says those), each cut to {@link PREVIEW_LINE_CHARS}. Only lines of
 * `text` itself, so the card never shows more than the model was given, and never anything unredacted.
 */
export function readPreview(text: string): { lines: PreviewLine[]; totalLines: number } {
  const all = text.split('\n')
  if (all.length > 1 && all[all.length - 1] === '') all.pop()
  const open = all.indexOf('---')
  const close = open < 0 ? -1 : all.indexOf('---', open + 1)
  // After the front matter when there is one; else after the first line (the tag, or a paged read's marker).
  const start = close > 0 ? close + 1 : 1
  const lines: PreviewLine[] = []
  for (let k = start; k < all.length && lines.length < PREVIEW_LINES; k++) {
    const line = all[k].trimEnd()
    if (!line.trim()) continue
    lines.push({ number: k + 1, text: line.length > PREVIEW_LINE_CHARS ? `${line.slice(0, PREVIEW_LINE_CHARS - 1)}…` : line })
  }
  return { lines, totalLines: all.length }
}

/** A persisted preview, checked as dsh checks its own read windows: 1-based, increasing, within the total. */
function previewOf(meta: ReadMeta): { lines: PreviewLine[]; totalLines: number } {
  const total = meta.totalLines
  if (!Array.isArray(meta.lines) || typeof total !== 'number' || !Number.isInteger(total) || total < 0) return { lines: [], totalLines: 0 }
  let last = 0
  for (const l of meta.lines as unknown[]) {
    const line = l as Partial<PreviewLine> | null
    if (!line || typeof line.text !== 'string' || typeof line.number !== 'number' || !Number.isInteger(line.number) || line.number <= last || line.number > total) return { lines: [], totalLines: 0 }
    last = line.number
  }
  return { lines: meta.lines.slice(0, PREVIEW_LINES).map((l) => ({ number: l.number, text: l.text.slice(0, PREVIEW_LINE_CHARS) })), totalLines: total }
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
    return {
      knowledge: 'read',
      id: v.id,
      version: v.version,
      title: v.title,
      sections: v.sections.length,
      ...(v.section ? { section: v.section } : {}),
      ...(v.path ? { path: v.path } : {}),
      ...readPreview(v.text),
    }
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

/**
 * The completed card: dsh's `read` card (dsh web rc.8 draws it under the row `knowledge_read · <id>`, in place of the
 * raw text; a `generic` card is ignored there). Its banner is `Read <id> (v:N), <k> sections — <title>`, its lines
 * the preview; `content` (title line and document title) is what a UI without the read card shows. Errors keep dsh's
 * default row. A log written before the preview existed gets the banner with no lines.
 */
export function presentReadResult(_args: unknown, result: { isError: boolean; meta?: unknown; content?: ReadonlyArray<{ type: string; text?: string }> }) {
  if (result.isError) return undefined
  const meta = readMetaOf(result.meta)
  if (!meta) return undefined
  const heading = readCardTitle(meta, isCompactedRead(result.content ?? []))
  const title = meta.title.replace(/\s+/g, ' ').slice(0, 200)
  const { lines, totalLines } = previewOf(meta)
  return {
    card: 'read' as const,
    title: `${heading} — ${title}`,
    path: typeof meta.path === 'string' ? meta.path : meta.id,
    offset: 1,
    lines,
    totalLines,
    lang: 'md',
    content: [{ type: 'text' as const, text: `${heading}\n${title}` }],
  }
}

/** What a search's `tool/result` carries besides its text: the query and the first hits, for the card. */
export interface SearchMeta {
  knowledge: 'search'
  query: string
  hits: number
  /** Documents that matched, counted up to SEARCH_COUNT_WINDOW (`more`: the count stopped there). */
  total?: number
  more?: boolean
  items: Array<{ id: string; version: number | null; title: string }>
}

/** The output declaration of `knowledge_search`: the text for the model, the meta for the card. */
export const SEARCH_OUTPUT = {
  schema: { type: 'object' as const },
  render: READ_OUTPUT.render,
  presentationMeta: (_args: unknown, value: unknown) => {
    const v = value as { query?: string; ids?: string[]; versions?: Array<number | null>; titles?: string[]; total?: number; more?: boolean }
    const ids = v.ids ?? []
    const counted = typeof v.total === 'number' && v.total > ids.length
    return {
      knowledge: 'search',
      query: String(v.query ?? '').slice(0, SEARCH_CARD_TEXT),
      hits: ids.length,
      ...(counted ? { total: v.total, ...(v.more ? { more: true } : {}) } : {}),
      items: ids.slice(0, SEARCH_CARD_HITS).map((id, k) => ({ id, version: v.versions?.[k] ?? null, title: String(v.titles?.[k] ?? '').slice(0, SEARCH_CARD_TEXT) })),
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
  return searchSummary(meta.query, meta.hits, typeof meta.total === 'number' ? meta.total : undefined, meta.more === true)
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
  const total = typeof meta.total === 'number' && meta.total > meta.hits ? meta.total : meta.hits
  return { card: 'search' as const, shape: 'paths' as const, title: searchCardTitle(meta), paths, truncated: total > meta.items.length, total }
}
