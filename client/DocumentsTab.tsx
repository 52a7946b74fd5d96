/**
 * The Documents tab: a stats line, a search box, kind/tag/tool/workspace filters, the list (newest first, or search
 * hits with their snippets) with kind and tag badges, dates and workspaces; opening one shows it read-only.
 *
 * A daily tool: the count is honest (a lower bound shows as "50 of 100+"), paging goes to the end, the place is kept
 * across opening a document (pages, scroll, focus), the keyboard works (`/` search, `j`/`k` move, Enter opens, Escape
 * goes back one level), and new documents appear within a second (a cheap revision poll) without moving the reader.
 * The row, stats line and filter parts are in ./DocumentList.tsx.
 * @module dsh-knowledge-sync/client/DocumentsTab
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { DocumentItem, DocumentPage, DocumentQuery, KnowledgeApi, Stats } from './api.js'
import { DocumentRow, scrollParent, StatsLine } from './DocumentList.js'
import { FilterRow, type Filters, NO_FILTERS } from './FilterRow.js'
import { DocumentView } from './DocumentView.js'
import { useEscapeFields } from './escape.js'
import { readPlace, writePlace } from './place.js'
import type { Lang, Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { s } from './styles.js'

const PAGE_SIZE = 50
/** The most rows re-read at once on the way back (the route's page limit). */
const MAX_RELOAD = 200
const SEARCH_DEBOUNCE_MS = 250
/** How often the page asks whether documents changed (one tiny JSON request). */
const LIVE_POLL_MS = 1000
/** Below this window height the filter row starts folded. */
const SHORT_WINDOW_PX = 760

export interface DocumentsTabProps {
  api: KnowledgeApi
  t: Translate
  lang: Lang
  /** True while the tab is shown: showing it again re-reads the list and the stats. */
  active: boolean
}

/** The Documents tab. */
export function DocumentsTab({ api, t, lang, active }: DocumentsTabProps) {
  // dsh web rc.8 has no URL for a settings section, so a reload starts over: the search and the open document are
  // kept in this tab's sessionStorage and come back when the section is opened again.
  const [saved] = useState(readPlace)
  const [text, setText] = useState(saved.q)
  const [query, setQuery] = useState(saved.q)
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [page, setPage] = useState<DocumentPage | undefined>()
  const [items, setItems] = useState<DocumentItem[]>([])
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const [stats, setStats] = useState<Stats | undefined>()
  const [openId, setOpenId] = useState<string | undefined>(saved.open)
  const [tick, setTick] = useState(0)
  const [sort, setSort] = useState<'relevance' | 'created' | 'updated'>('relevance')
  const [fresh, setFresh] = useState(0)
  const wasActive = useRef(active)
  const searchBox = useRef<HTMLInputElement>(null)
  const listRef = useRef<HTMLUListElement>(null)
  const place = useRef<{ scrollTop: number; id: string } | undefined>(undefined)
  /** A document was retired or restored while open: back re-reads the pages already loaded. */
  const stale = useRef(false)
  const revision = useRef<number | undefined>(undefined)
  const itemsRef = useRef(items)
  itemsRef.current = items
  /** Bumped when a change to the loaded list (a new search, a page more, a re-read) goes out and when it lands: a
   * response that started before either is dropped, so a live poll cannot undo a "Load more". */
  const listGeneration = useRef(0)
  const loadingMore = useRef(false)
  useEscapeFields()

  // Typing settles before a search goes out.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [text])

  useEffect(() => {
    writePlace({ q: text.trim(), open: openId })
  }, [text, openId])

  useEffect(() => {
    if (active && !wasActive.current) setTick((n) => n + 1)
    wasActive.current = active
  }, [active])

  const request = useCallback((offset: number): DocumentQuery => ({ q: query, ...filters, sort: sort === 'relevance' ? undefined : sort, offset, limit: PAGE_SIZE }), [query, filters, sort])

  useEffect(() => {
    const abort = new AbortController()
    listGeneration.current++
    setLoading(true)
    setError(undefined)
    api.documents(request(0), abort.signal).then(
      (next) => {
        listGeneration.current++
        setPage(next)
        setItems(next.items)
        setLoading(false)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') {
          setError(errorText(e, t))
          setLoading(false)
        }
      },
    )
    return () => abort.abort()
  }, [api, request, tick])

  useEffect(() => {
    const abort = new AbortController()
    api.stats(abort.signal).then(setStats, () => setStats(undefined))
    return () => abort.abort()
  }, [api, tick])

  // Live: a new revision refreshes the stats, and the first page merges in without moving a reader who scrolled.
  useEffect(() => {
    if (!active || openId) return
    let stopped = false
    const poll = async () => {
      try {
        const { revision: next } = await api.revision()
        if (stopped) return
        if (revision.current !== undefined && next !== revision.current) {
          api.stats().then(setStats, () => {})
          const generation = listGeneration.current
          // The loaded window again (up to 200 rows): new documents appear, retired or removed ones go, changed ones
          // update; rows that stay keep their place, so a reader who scrolled is not moved.
          const window = await api.documents({ ...request(0), limit: Math.min(Math.max(itemsRef.current.length, PAGE_SIZE), 200) })
          if (stopped) return
          // The list changed while this was out: the next poll sees the revision again and reads the new window.
          if (generation !== listGeneration.current) return
          const known = new Set(itemsRef.current.map((i) => i.id))
          const added = window.items.filter((i) => !known.has(i.id)).length
          setItems(window.items)
          if (added) setFresh((n) => n + added)
          setPage(window)
        }
        revision.current = next
      } catch {
        /* the next poll tries again */
      }
    }
    void poll()
    const timer = setInterval(poll, LIVE_POLL_MS)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [api, active, openId, request])

  // Keyboard: `/` focuses the search box; j/k move between documents; Enter opens the focused one (it is a button).
  useEffect(() => {
    if (!active || openId) return
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null
      if (e.ctrlKey || e.metaKey || e.altKey || (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return
      if (!listRef.current?.isConnected) return
      if (e.key === '/') {
        e.preventDefault()
        searchBox.current?.focus()
        return
      }
      if (e.key !== 'j' && e.key !== 'k') return
      const rows = [...listRef.current.querySelectorAll<HTMLButtonElement>('[data-testid=knowledge-doc-open]')]
      if (!rows.length) return
      const at = rows.indexOf(document.activeElement as HTMLButtonElement)
      const next = at < 0 ? 0 : Math.min(Math.max(at + (e.key === 'j' ? 1 : -1), 0), rows.length - 1)
      e.preventDefault()
      rows[next].focus()
      rows[next].scrollIntoView({ block: 'nearest' })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [active, openId])

  // Back from a document: the list is as it was (pages, scroll); focus returns to the document's row.
  useEffect(() => {
    if (openId || !place.current) return
    const { scrollTop, id } = place.current
    place.current = undefined
    const restore = () => {
      const scroller = scrollParent(listRef.current)
      if (scroller) scroller.scrollTop = scrollTop
      listRef.current?.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(id)}"] [data-testid=knowledge-doc-open]`)?.focus({ preventScroll: true })
    }
    restore()
    if (!stale.current) return
    stale.current = false
    // The same pages, read again (a retired document leaves them), then the same place.
    const generation = ++listGeneration.current
    api.documents({ ...request(0), limit: Math.min(Math.max(itemsRef.current.length, PAGE_SIZE), MAX_RELOAD) }).then(
      (next) => {
        if (generation !== listGeneration.current) return
        listGeneration.current++
        setPage(next)
        setItems(next.items)
        requestAnimationFrame(restore)
      },
      (e: Error) => setError(errorText(e, t)),
    )
  }, [openId]) // runs on the way back only

  const open = (id: string) => {
    place.current = { scrollTop: scrollParent(listRef.current)?.scrollTop ?? 0, id }
    setOpenId(id)
  }
  const filterTag = (tag: string) => {
    setOpenId(undefined)
    setFilters((prev) => ({ ...prev, tag }))
  }

  const loadMore = () => {
    // One page at a time: a second click while one is out would ask for the same offset twice.
    if (loadingMore.current) return
    loadingMore.current = true
    const generation = ++listGeneration.current
    api.documents(request(items.length)).then(
      (next) => {
        loadingMore.current = false
        if (generation !== listGeneration.current) return
        listGeneration.current++ // a poll that went out meanwhile asked for the shorter window
        setPage(next)
        setItems((prev) => [...prev, ...next.items])
      },
      (e: Error) => {
        loadingMore.current = false
        setError(errorText(e, t))
      },
    )
  }

  // Clear removes itself from the page: focus goes to the search box, not to the page body.
  const clearAll = () => {
    setText('')
    setQuery('')
    setFilters(NO_FILTERS)
    searchBox.current?.focus()
  }
  const filtered = query !== '' || Object.values(filters).some(Boolean)
  const activeFilters = Object.values(filters).filter(Boolean).length
  // On a short window the filter row folds behind a button (open while a filter is set), so rows get the room.
  const [showFilters, setShowFilters] = useState(() => typeof window === 'undefined' || window.innerHeight >= SHORT_WINDOW_PX)
  const filtersShown = showFilters || activeFilters > 0

  if (openId) {
    return (
      <DocumentView
        api={api}
        id={openId}
        t={t}
        lang={lang}
        onOpen={setOpenId}
        onBack={() => setOpenId(undefined)}
        onTag={filterTag}
        onChanged={() => {
          stale.current = true
        }}
      />
    )
  }

  return (
    <div data-testid="knowledge-documents" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <StatsLine stats={stats} t={t} />
      <div style={s.row}>
        <input
          ref={searchBox}
          type="search"
          data-escape="clear"
          aria-label={t('search')}
          title={t('searchKeys')}
          placeholder={t('searchPlaceholder')}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') setQuery(text.trim())
          }}
          style={{ ...s.input, flex: '1 1 240px' }}
        />
        {/* Without a query the list is by date: newest created (the default) or most recently changed. */}
        <select aria-label={t('sortBy')} value={query || sort !== 'relevance' ? sort : 'created'} onChange={(e) => setSort(e.target.value as 'relevance' | 'created' | 'updated')} style={s.select}>
          {query && <option value="relevance">{t('sortRelevance')}</option>}
          <option value="created">{t('sortDate')}</option>
          <option value="updated">{t('sortUpdated')}</option>
        </select>
        <button type="button" data-testid="knowledge-filters-toggle" aria-expanded={filtersShown} style={s.button} disabled={activeFilters > 0} onClick={() => setShowFilters((v) => !v)}>
          {activeFilters ? t('filtersCount', { count: activeFilters }) : t('filtersToggle')}
        </button>
        <button type="button" style={s.button} onClick={() => setTick((n) => n + 1)}>
          {t('refresh')}
        </button>
        {!filtersShown && filtered && (
          <button type="button" style={s.button} onClick={clearAll}>
            {t('clear')}
          </button>
        )}
      </div>
      {filtersShown && (
        <FilterRow
          t={t}
          facets={page?.facets}
          workspaces={page?.workspaces}
          filters={filters}
          onFilter={(key, value) => setFilters((prev) => ({ ...prev, [key]: value }))}
          onClear={filtered ? clearAll : undefined}
        />
      )}
      <details style={s.hint}>
        <summary style={{ cursor: 'pointer' }}>{t('aboutList')}</summary>
        {t('readOnlyHint', { root: stats?.root ?? 'the knowledge root' })}
      </details>
      {error && (
        <p role="alert" style={s.error}>
          {t('unreachable', { message: error })}
        </p>
      )}
      {!error && page && (
        <p data-testid="knowledge-count" style={s.muted} aria-live="polite">
          {loading ? t('loading') : t('shown', { shown: items.length, total: page.more ? `${page.total}+` : page.total })}
          {fresh > 0 && !loading && <span data-testid="knowledge-fresh">{` · ${t('freshCount', { count: fresh })}`}</span>}
        </p>
      )}
      {!error && page && !items.length && !loading && (
        <p data-testid="knowledge-empty" style={s.muted}>
          {t(filtered ? 'noMatches' : 'empty', { root: stats?.root ?? './knowledge' })}
        </p>
      )}
      <ul ref={listRef} style={s.list} aria-busy={loading}>
        {items.map((item) => (
          <DocumentRow key={item.id} item={item} t={t} lang={lang} onOpen={() => open(item.id)} onTag={filterTag} />
        ))}
      </ul>
      {page && (items.length < page.total || page.more) && (
        <div>
          <button type="button" style={s.button} onClick={loadMore}>
            {t('loadMore')}
          </button>
        </div>
      )}
    </div>
  )
}
