/**
 * The Documents tab: a stats line, a search box, kind/tag/tool/workspace filters, the list (newest first, or search
 * hits with their snippets) with kind and tag badges, dates and workspaces; opening one shows it read-only.
 * @module dsh-knowledge-sync/client/DocumentsTab
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { DocumentItem, DocumentPage, DocumentQuery, KnowledgeApi, Stats } from './api.js'
import { Badges, DocumentView, kindLabel, StatusBadge } from './DocumentView.js'
import { facetEntries, formatDate, shortPath } from './format.js'
import type { Lang, Translate } from './i18n.js'
import { InlineMarkdown } from './markdown.js'
import { palette, s } from './styles.js'

const PAGE_SIZE = 50
const SEARCH_DEBOUNCE_MS = 250

export interface DocumentsTabProps {
  api: KnowledgeApi
  t: Translate
  lang: Lang
  /** True while the tab is shown: showing it again re-reads the list and the stats. */
  active: boolean
}

interface Filters {
  kind: string
  tag: string
  tool: string
  cwd: string
  /** '' = active and superseded (retired documents are left out, as in search); or one status, or `all`. */
  status: string
}

const NO_FILTERS: Filters = { kind: '', tag: '', tool: '', cwd: '', status: '' }

/** The Documents tab. */
export function DocumentsTab({ api, t, lang, active }: DocumentsTabProps) {
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [page, setPage] = useState<DocumentPage | undefined>()
  const [items, setItems] = useState<DocumentItem[]>([])
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const [stats, setStats] = useState<Stats | undefined>()
  const [openId, setOpenId] = useState<string | undefined>()
  const [tick, setTick] = useState(0)
  const wasActive = useRef(active)

  // Typing settles before a search goes out.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [text])

  useEffect(() => {
    if (active && !wasActive.current) setTick((n) => n + 1)
    wasActive.current = active
  }, [active])

  const request = useCallback((offset: number): DocumentQuery => ({ q: query, ...filters, offset, limit: PAGE_SIZE }), [query, filters])

  useEffect(() => {
    const abort = new AbortController()
    setLoading(true)
    setError(undefined)
    api.documents(request(0), abort.signal).then(
      (next) => { setPage(next); setItems(next.items); setLoading(false) },
      (e: Error) => { if (e.name !== 'AbortError') { setError(e.message); setLoading(false) } },
    )
    return () => abort.abort()
  }, [api, request, tick])

  useEffect(() => {
    const abort = new AbortController()
    api.stats(abort.signal).then(setStats, () => setStats(undefined))
    return () => abort.abort()
  }, [api, tick])

  const loadMore = () => {
    api.documents(request(items.length)).then(
      (next) => { setPage(next); setItems((prev) => [...prev, ...next.items]) },
      (e: Error) => setError(e.message),
    )
  }

  const setFilter = (key: keyof Filters) => (value: string) => setFilters((prev) => ({ ...prev, [key]: value }))
  const filtered = query !== '' || Object.values(filters).some(Boolean)

  if (openId) {
    return <DocumentView api={api} id={openId} t={t} lang={lang} onOpen={setOpenId} onBack={() => { setOpenId(undefined); setTick((n) => n + 1) }} />
  }

  return (
    <div data-testid="knowledge-documents" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <StatsLine stats={stats} t={t} />
      <div style={s.row}>
        <input
          type="search" aria-label={t('search')} placeholder={t('searchPlaceholder')} value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => { if (e.key === 'Enter') setQuery(text.trim()) }}
          style={{ ...s.input, flex: '1 1 240px' }}
        />
        <button type="button" style={s.button} onClick={() => setTick((n) => n + 1)}>{t('refresh')}</button>
      </div>
      <div style={s.row}>
        <Filter label={t('filterKind')} all={t('allKinds')} value={filters.kind} onChange={setFilter('kind')}
          options={kindOptions(page?.facets.kinds).map(([k, n]) => [k, `${kindLabel(k, t)} (${n})`])} />
        <Filter label={t('filterTag')} all={t('allTags')} value={filters.tag} onChange={setFilter('tag')}
          options={facetEntries(page?.facets.tags, filters.tag).map(([k, n]) => [k, `${k} (${n})`])} />
        <Filter label={t('filterTool')} all={t('allTools')} value={filters.tool} onChange={setFilter('tool')}
          options={facetEntries(page?.facets.tools, filters.tool).map(([k, n]) => [k, `${k} (${n})`])} />
        <Filter label={t('filterWorkspace')} all={t('allWorkspaces')} value={filters.cwd} onChange={setFilter('cwd')}
          options={facetEntries(page?.facets.workspaces, filters.cwd).filter(([k]) => k !== '').map(([k, n]) => [k, `${shortPath(k)} (${n})`])} />
        <Filter label={t('filterStatus')} all={t('statusCurrent')} value={filters.status} onChange={setFilter('status')}
          options={(['active', 'superseded', 'retired', 'all'] as const).map((k) => [k, t(`status_${k}`)])} />
        {filtered && <button type="button" style={s.button} onClick={() => { setText(''); setQuery(''); setFilters(NO_FILTERS) }}>{t('clear')}</button>}
      </div>
      <p style={s.hint}>{t('readOnlyHint', { root: stats?.root ?? 'the knowledge root' })}</p>
      {error && <p role="alert" style={s.error}>{t('unreachable', { message: error })}</p>}
      {!error && page && (
        <p data-testid="knowledge-count" style={s.muted} aria-live="polite">
          {loading ? t('loading') : t('shown', { shown: items.length, total: page.total })}
        </p>
      )}
      {!error && page && !items.length && !loading && <p style={s.muted}>{t(filtered ? 'noMatches' : 'empty')}</p>}
      <ul style={s.list} aria-busy={loading}>
        {items.map((item) => <DocumentRow key={item.id} item={item} t={t} lang={lang} onOpen={() => setOpenId(item.id)} />)}
      </ul>
      {page && items.length < page.total && <div><button type="button" style={s.button} onClick={loadMore}>{t('loadMore')}</button></div>}
    </div>
  )
}

/** Every kind is offered (with its count, 0 included), so the filter reads the same whatever the other filters select. */
function kindOptions(counts: Record<string, number> | undefined): Array<[string, number]> {
  const known = ['raw', 'note', 'distilled', 'manual', 'preference']
  const extra = Object.keys(counts ?? {}).filter((k) => !known.includes(k))
  return [...known, ...extra].map((k) => [k, counts?.[k] ?? 0])
}

function StatsLine({ stats, t }: { stats: Stats | undefined; t: Translate }) {
  if (!stats) return <p data-testid="knowledge-stats" style={s.muted}>&nbsp;</p>
  const top = stats.rounds.dropReasons[0]
  const parts = [
    t('statsDocuments', { count: stats.documents }),
    t('statsKept', { count: stats.rounds.kept }),
    t('statsDropped', { count: stats.rounds.dropped }) + (top ? t('statsTopReason', { reason: top.reason.replace(/^[-+]/, '') }) : ''),
  ]
  if (stats.rounds.redacted) parts.push(t('statsRedacted', { count: stats.rounds.redacted }))
  return <p data-testid="knowledge-stats" style={{ margin: 0, fontSize: 12.5, color: palette.secondary }}>{parts.join(' · ')}</p>
}

function Filter({ label, all, value, options, onChange }: {
  label: string; all: string; value: string; options: Array<[string, string]>; onChange: (value: string) => void
}) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} style={s.select}>
      <option value="">{all}</option>
      {options.map(([key, text]) => <option key={key} value={key}>{text}</option>)}
    </select>
  )
}

function DocumentRow({ item, t, lang, onOpen }: { item: DocumentItem; t: Translate; lang: Lang; onOpen: () => void }) {
  return (
    <li data-testid="knowledge-doc" data-id={item.id} style={s.item}>
      <div style={{ display: 'flex', gap: 12, alignItems: 'baseline', justifyContent: 'space-between' }}>
        <button type="button" style={s.linkButton} onClick={onOpen}>{item.title || item.id}</button>
        <span style={{ ...s.muted, whiteSpace: 'nowrap' }} title={item.created}>{formatDate(item.created, lang)}</span>
      </div>
      <div style={{ ...s.row, gap: 6 }}>
        <span data-testid="knowledge-kind" style={s.badge('kind')}>{kindLabel(item.kind, t)}</span>
        {item.version ? <span data-testid="knowledge-version" style={{ ...s.muted, ...s.mono }}>{`v:${item.version}`}</span> : null}
        {item.status && <StatusBadge status={item.status} t={t} />}
        {item.tags.length > 0 && <Badges values={item.tags} tone="tag" />}
        {item.tools.length > 0 && <Badges values={item.tools} tone="tool" />}
        {item.cwd && <span data-testid="knowledge-workspace" style={{ ...s.muted, ...s.mono, marginLeft: 'auto' }} title={item.cwd}>{shortPath(item.cwd)}</span>}
      </div>
      {item.snippet && <p style={{ margin: 0, fontSize: 12.5, color: palette.secondary }}><InlineMarkdown source={item.snippet} /></p>}
    </li>
  )
}
