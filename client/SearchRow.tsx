/**
 * The chat row of a `knowledge_search` call, whose hits open in the Knowledge page. dsh web rc.8 sends a tool with no
 * keyed `tool.call.toolview` entry to ui-tool's GenericToolCard (ToolCallTree.tsx), whose search card has no links;
 * this entry takes that key (as ui-skill takes `skill`) and draws a row of the same shape: one line,
 * `knowledge_search · Searched "<q>": <n> hits`, collapsed; expanded, each hit `id (v:N) — title` is a button that
 * opens the full-size Knowledge view on that document. The hits come only from the result's persisted `meta` (the
 * tool's own first hits, redacted as its text is; src/recall/presentation.ts), so a replayed session draws the same
 * row. Meta is log data: anything malformed leaves the summary line alone.
 * @module dsh-knowledge-sync/client/SearchRow
 */
import { useMemo, useState, useSyncExternalStore, type CSSProperties, type KeyboardEvent } from 'react'
import type { KnowledgeHost } from './host.js'
import { translator } from './i18n.js'
import { writePlace } from './place.js'
import { palette } from './styles.js'
import { isValidId, SEARCH_CARD_HITS, SEARCH_CARD_TEXT, searchSummary } from '../src/wire.js'

/** The tool whose calls this row draws (the keyed dispatch value). */
export const SEARCH_TOOL = 'knowledge_search'

/** The owner props dsh web passes a `tool.call.toolview` entry (ui-tool contract/slots.ts ToolCallOwnerProps), as far as used. */
export interface ToolViewProps {
  host: KnowledgeHost
  callId?: string
  block?: unknown
}

/** One hit as the row shows it. */
export interface Hit {
  id: string
  version: number | null
  title: string
}

/** What the row draws: the line, and the hits when the meta is sound. */
export interface SearchRowModel {
  state: 'running' | 'ok' | 'error'
  summary: string
  query: string
  hits: Hit[]
  more: number
}

const clip = (text: string) => text.replace(/\s+/g, ' ').slice(0, SEARCH_CARD_TEXT)
const count = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0

/** The hits of a persisted search meta, or undefined for anything else or anything malformed (all or nothing). */
export function hitsOf(meta: unknown): { query: string; hits: number; total?: number; more?: boolean; items: Hit[] } | undefined {
  const m = meta as { knowledge?: unknown; query?: unknown; hits?: unknown; total?: unknown; more?: unknown; items?: unknown } | null
  if (!m || typeof m !== 'object' || m.knowledge !== 'search' || typeof m.query !== 'string' || !count(m.hits) || !Array.isArray(m.items)) return undefined
  if (m.items.length > SEARCH_CARD_HITS || m.items.length > m.hits) return undefined
  const items: Hit[] = []
  for (const raw of m.items as unknown[]) {
    const h = raw as { id?: unknown; version?: unknown; title?: unknown } | null
    if (!h || typeof h !== 'object' || !isValidId(h.id) || typeof h.title !== 'string') return undefined
    if (h.version !== null && !(count(h.version) && h.version > 0)) return undefined
    items.push({ id: h.id, version: h.version as number | null, title: clip(h.title) })
  }
  // The count of matches is optional (older logs have none) and never below what was returned.
  const total = count(m.total) && m.total >= m.hits ? m.total : undefined
  return { query: clip(m.query), hits: m.hits, ...(total !== undefined ? { total, more: m.more === true } : {}), items }
}

/** The row's model from the call block (running or settled; ToolCallBlock of dsh-client-runtime). */
export function searchRowModel(block: unknown): SearchRowModel {
  const b = (block ?? {}) as { kind?: unknown; call?: { argsRaw?: unknown } | null; argsRaw?: unknown; isError?: unknown; meta?: unknown; content?: unknown; resultView?: { title?: unknown } | null }
  const settled = b.kind === 'tool-result'
  const argsRaw = settled ? b.call?.argsRaw : b.argsRaw
  let asked = '?'
  try {
    const q = (JSON.parse(typeof argsRaw === 'string' ? argsRaw : '') as { query?: unknown } | null)?.query
    if (typeof q === 'string') asked = clip(q).slice(0, 80)
  } catch {
    /* a streaming prefix: the placeholder stays */
  }
  const pending = { state: 'running' as const, summary: `Search "${asked}"`, query: asked, hits: [], more: 0 }
  if (!settled) return pending
  if (b.isError === true) {
    const first = Array.isArray(b.content) ? (b.content as Array<{ text?: unknown }>).find((c) => typeof c?.text === 'string')?.text : undefined
    return { ...pending, state: 'error', summary: clip(String(first ?? 'failed').split('\n')[0]) }
  }
  const meta = hitsOf(b.meta)
  if (!meta) {
    // An old log or a foreign meta: dsh's own card title if there is one, else the question.
    const title = b.resultView?.title
    return { ...pending, state: 'ok', summary: typeof title === 'string' && title ? clip(title) : pending.summary }
  }
  const summary = searchSummary(meta.query, meta.hits, meta.total, meta.more)
  return { state: 'ok', summary, query: meta.query, hits: meta.items, more: meta.hits - meta.items.length }
}

/** A hit's line, as the tool's card spells it: `id (v:N) — title`. */
export const hitLine = (h: Hit) => `${h.id}${h.version ? ` (v:${h.version})` : ''} — ${h.title}`

const line: CSSProperties = { display: 'flex', alignItems: 'center', minWidth: 0, fontSize: 14, lineHeight: '24px', color: palette.secondary }
const ellipsis: CSSProperties = { minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }
const dot: CSSProperties = { flex: 'none', width: 2, height: 2, borderRadius: 1, margin: '0 8px', background: palette.tertiary }
const hitButton: CSSProperties = {
  ...ellipsis,
  display: 'block',
  maxWidth: '100%',
  padding: '2px 6px',
  border: 0,
  borderRadius: 4,
  background: 'transparent',
  color: palette.link,
  font: 'inherit',
  fontSize: 13,
  lineHeight: '20px',
  textAlign: 'left',
  cursor: 'pointer',
}

/** The `tool.call.toolview` entry for `knowledge_search`. */
export function KnowledgeSearchRow({ host, block }: ToolViewProps) {
  const lang = useSyncExternalStore(
    (l) => host.locale.subscribe(l),
    () => host.locale.get(),
  )
  const t = useMemo(() => translator(lang), [lang])
  const model = useMemo(() => searchRowModel(block), [block])
  const [expanded, setExpanded] = useState(false)
  const expandable = model.hits.length > 0
  const open = expanded && expandable
  const toggle = () => setExpanded((v) => !v)
  const onKey = (e: KeyboardEvent) => {
    if (!expandable || (e.key !== 'Enter' && e.key !== ' ')) return
    e.preventDefault()
    toggle()
  }
  const openHit = (id: string, opener: HTMLElement) => {
    // The Documents tab reads its place when it mounts: the search goes back to this query, the document is open.
    writePlace({ q: model.query, open: id })
    host.full.show(opener)
  }
  return (
    <div data-tool={SEARCH_TOOL} data-state={model.state} data-testid="knowledge-search-row">
      <div style={{ ...line, cursor: expandable ? 'pointer' : 'default' }} {...(expandable ? { role: 'button', tabIndex: 0, 'aria-expanded': open, onClick: toggle, onKeyDown: onKey } : {})}>
        <svg
          width="14"
          height="14"
          viewBox="0 0 16 16"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.4"
          style={{ flex: 'none', marginRight: 6, color: palette.tertiary, transform: open ? 'rotate(90deg)' : undefined }}
        >
          {expandable ? <path d="M6 3.5 10.5 8 6 12.5" /> : <circle cx="7" cy="7" r="4.2" />}
        </svg>
        <span style={{ flex: 'none' }}>{SEARCH_TOOL}</span>
        <span style={dot} aria-hidden="true" />
        <span style={{ ...ellipsis, flex: '1 1 auto', color: model.state === 'error' ? palette.error : palette.tertiary }}>{model.summary}</span>
      </div>
      {open && (
        <ul style={{ listStyle: 'none', margin: '2px 0 4px 14px', padding: '4px 0', borderLeft: `1px solid ${palette.border}` }}>
          {model.hits.map((h) => (
            <li key={h.id} style={{ minWidth: 0 }}>
              <button type="button" data-testid="knowledge-search-hit" data-id={h.id} title={t('openHit')} style={hitButton} onClick={(e) => openHit(h.id, e.currentTarget)}>
                {hitLine(h)}
              </button>
            </li>
          ))}
          {model.more > 0 && <li style={{ padding: '2px 6px', fontSize: 12, color: palette.tertiary }}>{t('moreHits', { count: model.more })}</li>}
        </ul>
      )}
    </div>
  )
}
