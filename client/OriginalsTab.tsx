/**
 * The Originals tab: every file the knowledge base is built from, as its manifest records it — name, type, size,
 * status, where and when it was obtained, when its content last changed, what it replaces — with the summary pages
 * built from it (stale ones flagged, each opens inside the page) and whether its text can be opened. "Open text"
 * shows the extracted, redacted text (paged, as safe Markdown: never the file's own HTML); "Download" saves the
 * file as an attachment; "Retire" asks why first (POST with the page token). Says so plainly when the row is off.
 * @module dsh-knowledge-sync/client/OriginalsTab
 */
import { useEffect, useRef, useState } from 'react'
import type { KnowledgeApi } from './api.js'
import { DocumentView, withoutTitleHeading } from './DocumentView.js'
import { useEscapeLayer } from './escape.js'
import { formatDate } from './format.js'
import type { Lang, MessageKey, Translate } from './i18n.js'
import { Markdown } from './markdown.js'
import { palette, s } from './styles.js'
import { errorText, type OriginalRow, type OriginalsView, type OriginalText, originalFileUrl, originalText, originals, retireOriginal } from './views-api.js'

export interface OriginalsTabProps {
  api: KnowledgeApi
  t: Translate
  lang: Lang
  active: boolean
}

/** A size in bytes as a person reads it (KB and MB in the page's language). */
export function formatSize(bytes: number, lang: Lang): string {
  const n = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en', { maximumFractionDigits: 1 })
  if (bytes < 1024) return `${n.format(bytes)} B`
  if (bytes < 1024 * 1024) return `${n.format(bytes / 1024)} KB`
  return `${n.format(bytes / (1024 * 1024))} MB`
}

/** The Originals tab. */
export function OriginalsTab({ api, t, lang, active }: OriginalsTabProps) {
  const [view, setView] = useState<OriginalsView | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [tick, setTick] = useState(0)
  const [reading, setReading] = useState<string | undefined>()
  const [doc, setDoc] = useState<string | undefined>()
  // Where focus goes back to when a text or a summary view closes (the button that opened it).
  const returnTo = useRef<string | undefined>(undefined)
  const list = useRef<HTMLUListElement>(null)

  useEffect(() => {
    if (!active) return
    const abort = new AbortController()
    originals(api, abort.signal).then(
      (next) => {
        setView(next)
        setError(undefined)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, active, tick, t])

  useEffect(() => {
    if (reading || doc || !returnTo.current) return
    list.current?.querySelector<HTMLElement>(`[data-return="${CSS.escape(returnTo.current)}"]`)?.focus()
    returnTo.current = undefined
  }, [reading, doc])

  if (doc) return <DocumentView api={api} id={doc} t={t} lang={lang} onBack={() => setDoc(undefined)} onOpen={setDoc} onChanged={() => setTick((n) => n + 1)} />
  if (reading) return <OriginalTextView api={api} path={reading} t={t} onBack={() => setReading(undefined)} />
  if (error)
    return (
      <p role="alert" data-testid="knowledge-originals-error" style={s.error}>
        {error}
      </p>
    )
  if (!view) return <p style={s.muted}>{t('loading')}</p>
  if (!view.available)
    return (
      <p data-testid="knowledge-originals-off" style={s.muted}>
        {t('originalsOff')}
      </p>
    )
  return (
    <div data-testid="knowledge-originals" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <p style={s.hint}>{t('originalsIntro', { folder: view.folder, count: view.originals.length })}</p>
      {view.originals.length === 0 && <p style={s.muted}>{t('originalsNone', { folder: view.folder })}</p>}
      <ul ref={list} style={s.list} aria-label={t('tabOriginals')}>
        {view.originals.map((row) => (
          <OriginalItem
            key={row.path}
            api={api}
            row={row}
            others={view.originals.filter((o) => o.status === 'present' && o.path !== row.path).map((o) => o.path)}
            t={t}
            lang={lang}
            onRead={() => {
              returnTo.current = `text:${row.path}`
              setReading(row.path)
            }}
            onOpenDoc={(id) => {
              returnTo.current = `doc:${id}`
              setDoc(id)
            }}
            onChanged={() => setTick((n) => n + 1)}
          />
        ))}
      </ul>
    </div>
  )
}

function provenanceText(row: OriginalRow, t: Translate) {
  const p = row.provenance
  if (p.kind === 'url') {
    const safe = /^https?:\/\//i.test(p.url)
    return (
      <span>
        {t('provenanceUrl')}{' '}
        {safe ? (
          <a href={p.url} target="_blank" rel="noopener noreferrer" style={{ color: palette.link, overflowWrap: 'anywhere' }}>
            {p.url}
          </a>
        ) : (
          <span style={s.mono}>{p.url}</span>
        )}
      </span>
    )
  }
  if (p.kind === 'run') return <span>{t('provenanceRun')}</span>
  return <span>{t(p.kind === 'person' ? 'provenancePerson' : 'provenanceManual')}</span>
}

interface ItemProps {
  api: KnowledgeApi
  row: OriginalRow
  others: string[]
  t: Translate
  lang: Lang
  onRead: () => void
  onOpenDoc: (id: string) => void
  onChanged: () => void
}

function OriginalItem({ api, row, others, t, lang, onRead, onOpenDoc, onChanged }: ItemProps) {
  const [retiring, setRetiring] = useState(false)
  const statusTone = row.status === 'present' ? palette.success : row.status === 'retired' ? palette.error : palette.warn
  const counts = [row.pages !== undefined ? t('originalPages', { count: row.pages }) : '', row.slides !== undefined ? t('originalSlides', { count: row.slides }) : ''].filter(Boolean)
  return (
    <li data-testid="knowledge-original" data-path={row.path} data-status={row.status} style={{ ...s.item, padding: '8px 12px', gap: 4 }}>
      <div style={{ ...s.row, gap: 6 }}>
        <strong style={{ ...s.mono, fontSize: 12.5, overflowWrap: 'anywhere' }}>{row.path}</strong>
        <span style={s.badge('tool')}>{row.type}</span>
        <span data-testid="knowledge-original-status" style={{ ...s.badge('off'), color: statusTone, borderColor: statusTone }}>
          {t(`originalStatus_${row.status}` as MessageKey)}
        </span>
        <span style={s.muted}>{[formatSize(row.size, lang), ...counts].join(' · ')}</span>
      </div>
      <div data-testid="knowledge-original-obtained" style={{ ...s.hint, display: 'flex', gap: 6, flexWrap: 'wrap' }}>
        {provenanceText(row, t)}
        <span>· {t('originalAdded', { when: formatDate(row.addedAt, lang) })}</span>
        <span title={row.changedAt}>· {t('originalChanged', { when: formatDate(row.changedAt, lang) })}</span>
        {row.replaces && <span>· {t('originalReplaces', { path: row.replaces })}</span>}
      </div>
      {row.retired && (
        <p data-testid="knowledge-original-retired" style={{ ...s.hint, color: palette.error }}>
          {t(row.retired.why === 'wrong' ? 'originalRetiredWrong' : 'originalRetiredReplaced', { when: formatDate(row.retired.at, lang), reason: row.retired.reason })}
          {row.retired.replacedBy ? ` ${t('originalReplacedBy', { path: row.retired.replacedBy })}` : ''}
        </p>
      )}
      {row.problem && (
        <p role="note" style={{ ...s.hint, color: palette.warn }}>
          {t('originalProblem', { problem: row.problem })}
        </p>
      )}
      <div data-testid="knowledge-original-built" style={{ ...s.row, gap: 6, fontSize: 12.5 }}>
        <span style={{ color: palette.tertiary }}>{t('originalBuilt')}</span>
        {row.summaries.length === 0 && <span style={s.muted}>{t('originalNoSummary')}</span>}
        {row.summaries.map((summary) => (
          <span key={summary.id} style={{ display: 'inline-flex', gap: 4, alignItems: 'baseline' }}>
            <button type="button" data-return={`doc:${summary.id}`} data-id={summary.id} style={{ ...s.linkButton, fontSize: 12.5, color: palette.link }} onClick={() => onOpenDoc(summary.id)}>
              {summary.title}
            </button>
            {summary.stale && (
              <span data-testid="knowledge-summary-stale" title={t('staleHint')} style={{ ...s.badge('off'), color: palette.warn, borderColor: palette.warn }}>
                {t('stale')}
              </span>
            )}
          </span>
        ))}
      </div>
      <div style={{ ...s.row, gap: 6 }}>
        <span data-testid="knowledge-original-extraction" data-state={row.extraction} style={s.hint}>
          {t(`extraction_${row.extraction}` as MessageKey)}
        </span>
        <span style={{ marginLeft: 'auto', display: 'inline-flex', gap: 6 }}>
          {row.extraction === 'text' && (
            <button type="button" data-testid="knowledge-original-open" data-return={`text:${row.path}`} style={s.button} onClick={onRead}>
              {t('openText')}
            </button>
          )}
          {row.status === 'present' && !row.problem && (
            <a data-testid="knowledge-original-download" href={originalFileUrl(api, row.path)} download style={{ ...s.button, textDecoration: 'none', display: 'inline-block' }}>
              {t('download')}
            </a>
          )}
          {row.status === 'present' && !retiring && (
            <button type="button" data-testid="knowledge-original-retire" style={s.button} onClick={() => setRetiring(true)}>
              {t('retireOriginal')}
            </button>
          )}
        </span>
      </div>
      {retiring && (
        <RetireOriginalForm
          api={api}
          row={row}
          others={others}
          t={t}
          onDone={(changed) => {
            setRetiring(false)
            if (changed) onChanged()
          }}
        />
      )}
    </li>
  )
}

function RetireOriginalForm({ api, row, others, t, onDone }: { api: KnowledgeApi; row: OriginalRow; others: string[]; t: Translate; onDone: (changed: boolean) => void }) {
  const [why, setWhy] = useState<'wrong' | 'replaced'>('wrong')
  const [reason, setReason] = useState('')
  const [replacedBy, setReplacedBy] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const first = useRef<HTMLSelectElement>(null)
  useEffect(() => first.current?.focus(), [])
  useEscapeLayer(true, () => onDone(false))
  const id = `knowledge-retire-${row.path.replace(/[^A-Za-z0-9]/g, '-')}`
  const submit = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await retireOriginal(api, row.path, why, reason, why === 'replaced' ? replacedBy : undefined)
      onDone(true)
    } catch (e) {
      setError(errorText(e, t))
      setBusy(false)
    }
  }
  return (
    <form
      data-testid="knowledge-original-retire-form"
      aria-label={t('retireOriginalTitle', { path: row.path })}
      style={{ ...s.card, display: 'flex', flexDirection: 'column', gap: 8 }}
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <strong style={{ fontSize: 12.5 }}>{t('retireOriginalTitle', { path: row.path })}</strong>
      <p style={s.hint}>{t('retireOriginalHint')}</p>
      <div style={s.row}>
        <label htmlFor={`${id}-why`}>{t('retireWhy')}</label>
        <select id={`${id}-why`} ref={first} value={why} style={s.select} onChange={(e) => setWhy(e.target.value === 'replaced' ? 'replaced' : 'wrong')}>
          <option value="wrong">{t('retireWhyWrong')}</option>
          <option value="replaced">{t('retireWhyReplaced')}</option>
        </select>
        {why === 'replaced' && (
          <>
            <label htmlFor={`${id}-by`}>{t('retireReplacedBy')}</label>
            <select id={`${id}-by`} value={replacedBy} style={s.select} onChange={(e) => setReplacedBy(e.target.value)}>
              <option value="">{t('none')}</option>
              {others.map((path) => (
                <option key={path} value={path}>
                  {path}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      <label htmlFor={`${id}-reason`}>{t('retireReasonLabel')}</label>
      <input id={`${id}-reason`} data-testid="knowledge-original-retire-reason" value={reason} maxLength={500} style={s.input} onChange={(e) => setReason(e.target.value)} />
      <div style={s.row}>
        <button type="submit" data-testid="knowledge-original-retire-confirm" disabled={busy || !reason.trim()} style={{ ...s.button, borderColor: palette.error, color: palette.error }}>
          {t('retireOriginalConfirm')}
        </button>
        <button type="button" style={s.button} onClick={() => onDone(false)}>
          {t('cancel')}
        </button>
      </div>
      {error && (
        <p role="alert" style={s.error}>
          {error}
        </p>
      )}
    </form>
  )
}

/** One original's extracted text, a part at a time; Escape or Back returns to the list. */
function OriginalTextView({ api, path, t, onBack }: { api: KnowledgeApi; path: string; t: Translate; onBack: () => void }) {
  const [from, setFrom] = useState(1)
  const [got, setGot] = useState<OriginalText | undefined>()
  const [error, setError] = useState<string | undefined>()
  const back = useRef<HTMLButtonElement>(null)
  useEffect(() => back.current?.focus(), [])
  useEscapeLayer(true, onBack)
  useEffect(() => {
    const abort = new AbortController()
    setGot(undefined)
    setError(undefined)
    originalText(api, path, from, abort.signal).then(setGot, (e: Error) => {
      if (e.name !== 'AbortError') setError(errorText(e, t))
    })
    return () => abort.abort()
  }, [api, path, from, t])
  const previous = got && got.from > 1 ? Math.max(1, got.from - Math.max(1, got.to - got.from + 1)) : undefined
  return (
    <article data-testid="knowledge-original-text" data-path={path} style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div style={s.row}>
        <button ref={back} type="button" style={s.button} onClick={onBack} title={t('backKeys')}>
          {t('back')}
        </button>
        <strong style={{ ...s.mono, overflowWrap: 'anywhere' }}>{path}</strong>
        <span style={{ marginLeft: 'auto', display: 'inline-flex', gap: 6 }}>
          <a href={originalFileUrl(api, path)} download style={{ ...s.button, textDecoration: 'none' }}>
            {t('download')}
          </a>
        </span>
      </div>
      <p style={s.hint}>{t('extractedHint')}</p>
      {error && (
        <p role="alert" style={s.error}>
          {error}
        </p>
      )}
      {!got && !error && <p style={s.muted}>{t('loading')}</p>}
      {got && (
        <>
          {got.total > 0 && (
            <p data-testid="knowledge-original-range" style={s.muted}>
              {t('extractRange', { from: got.from, to: Math.max(got.to, got.from), total: got.total })}
            </p>
          )}
          <Markdown source={withoutTitleHeading(got.text)} />
          <div style={s.row}>
            {previous !== undefined && (
              <button type="button" style={s.button} onClick={() => setFrom(previous)}>
                {t('previousPart')}
              </button>
            )}
            {got.next !== undefined && (
              <button type="button" data-testid="knowledge-original-next" style={s.button} onClick={() => setFrom(got.next!)}>
                {t('nextPart')}
              </button>
            )}
          </div>
        </>
      )}
    </article>
  )
}
