/**
 * The Sources tab: every knowledge-sync source (declared in sources.yml, curated `in-use`, or an invalid entry) with
 * its last status and reason, when it ran, and its cache state; "Preview changes" shows the dry run's diff per
 * source and "Sync now" runs it (both POST, with the page token). Says so plainly when the sync row is off.
 * @module dsh-knowledge-sync/client/SourcesTab
 */
import { useCallback, useEffect, useState } from 'react'
import type { KnowledgeApi, SourceRow, SourcesView, SyncReport } from './api.js'
import { formatDate } from './format.js'
import type { Lang, MessageKey, Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { font, palette, s } from './styles.js'

export interface SourcesTabProps {
  api: KnowledgeApi
  t: Translate
  lang: Lang
  active: boolean
}

const GOOD = new Set(['unchanged', 'changed', 'would-change'])

/** A sync status in the page's language (the code itself in English: it is what the CLI and the files say). */
export const statusLabel = (status: string, t: Translate): string => {
  const label = t(`syncStatus_${status}` as MessageKey)
  return label.startsWith('syncStatus_') ? status : label
}

function summary(report: SyncReport, t: Translate): string {
  const counts: Record<string, number> = {}
  for (const r of report.results) counts[r.status] = (counts[r.status] ?? 0) + 1
  return (
    Object.entries(counts)
      .map(([k, n]) => `${n} ${statusLabel(k, t)}`)
      .join(', ') || '0'
  )
}

/** The Sources tab. */
export function SourcesTab({ api, t, lang, active }: SourcesTabProps) {
  const when = (iso: string | undefined) => formatDate(iso, lang)
  const [view, setView] = useState<SourcesView | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<string | undefined>()
  const [preview, setPreview] = useState<SyncReport | undefined>()
  const [tick, setTick] = useState(0)

  useEffect(() => {
    if (!active) return
    const abort = new AbortController()
    api.sources(abort.signal).then(
      (next) => {
        setView(next)
        setError(undefined)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, active, tick])

  const run = useCallback(
    async (dryRun: boolean) => {
      setBusy(true)
      setOutcome(undefined)
      try {
        const report = await api.sync(dryRun)
        if (dryRun) setPreview(report)
        else setPreview(undefined)
        setOutcome(t('syncDone', { summary: summary(report, t) }))
      } catch (e) {
        setOutcome(t('syncFailed', { message: (e as Error).message }))
      } finally {
        setBusy(false)
        setTick((n) => n + 1)
      }
    },
    [api, t],
  )

  if (error)
    return (
      <p role="alert" style={s.error}>
        {t('sourcesUnreachable', { message: error })}
      </p>
    )
  if (!view) return <p style={s.muted}>{t('loading')}</p>
  if (!view.available)
    return (
      <p data-testid="knowledge-sources-off" style={{ ...s.hint, color: palette.warn }}>
        {t('sourcesOff')}
      </p>
    )

  return (
    <div data-testid="knowledge-sources" style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <p style={s.hint}>{t('sourcesIntro', { file: view.file })}</p>
      {view.error && (
        <p role="alert" style={s.error}>
          {t('sourcesError', { message: view.error })}
        </p>
      )}
      <div style={s.row}>
        <button type="button" style={s.button} disabled={busy} onClick={() => void run(true)} data-testid="knowledge-sources-dry-run">
          {t('dryRun')}
        </button>
        <button type="button" style={{ ...s.button, borderColor: palette.accent, color: palette.accent }} disabled={busy} onClick={() => void run(false)} data-testid="knowledge-sources-sync">
          {t('syncNow')}
        </button>
        <span role="status" style={s.muted}>
          {busy ? t('syncing') : (outcome ?? (view.lastRun ? t('sourcesLastRun', { time: when(view.lastRun) }) : ''))}
        </span>
      </div>
      {!view.sources.length && <p style={s.muted}>{t('sourcesNone', { file: view.file })}</p>}
      <ul style={s.list}>
        {view.sources.map((row) => (
          <SourceItem key={`${row.origin}:${row.name}`} row={row} t={t} when={when} diff={preview?.results.find((r) => r.name === row.name)} />
        ))}
      </ul>
    </div>
  )
}

function SourceItem({ row, t, when, diff }: { row: SourceRow; t: Translate; when: (iso: string | undefined) => string; diff: SyncReport['results'][number] | undefined }) {
  const status = row.last?.status
  const tone = status === undefined ? palette.tertiary : GOOD.has(status) ? palette.success : palette.error
  const cache =
    row.type === 'local' ? t('cacheLocal') : row.cache ? t(row.cache.fresh ? 'cacheFresh' : 'cacheStale', { time: when(row.cache.fetchedAt) }) : row.origin === 'invalid' ? '' : t('cacheNone')
  return (
    <li data-testid="knowledge-source" data-status={status ?? 'never'} style={s.item}>
      <div style={{ ...s.row, justifyContent: 'space-between' }}>
        <strong style={{ fontWeight: 600 }}>{row.name}</strong>
        <span style={{ ...s.badge('tag'), color: tone, borderColor: tone }}>{status ? statusLabel(status, t) : t('sourcesNever')}</span>
      </div>
      <div style={{ ...s.row, ...s.muted }}>
        {row.origin === 'decision' && <span style={s.badge('kind')}>{t('originDecision')}</span>}
        {row.origin === 'invalid' && <span style={s.badge('off')}>{t('originInvalid')}</span>}
        {row.source && (
          <span style={s.mono} title={t('colSource')}>
            {row.source}
          </span>
        )}
        {row.target && (
          <span title={t('colTarget')}>
            →{' '}
            <span style={s.mono}>
              {row.target.file}#{row.target.section}
            </span>
          </span>
        )}
      </div>
      {row.last && (
        <p style={s.muted}>
          {row.last.reason}
          {row.last.at ? ` · ${when(row.last.at)}` : ''}
          {row.last.from_cache ? ` · ${t('fromCache')}` : ''}
        </p>
      )}
      {cache && (
        <p style={s.muted}>
          {t('colCache')}: {cache}
        </p>
      )}
      {diff &&
        (diff.diff ? (
          <pre
            data-testid="knowledge-source-diff"
            style={{ margin: 0, padding: 8, borderRadius: 8, background: palette.codeBg, fontFamily: font.mono, fontSize: 11.5, overflowX: 'auto', maxHeight: 320 }}
          >
            {diff.diff.split('\n').map((line, k) => (
              <span
                key={k}
                style={{ display: 'block', color: line.startsWith('+') && !line.startsWith('+++') ? palette.success : line.startsWith('-') && !line.startsWith('---') ? palette.error : undefined }}
              >
                {line || ' '}
              </span>
            ))}
          </pre>
        ) : (
          <p style={s.muted}>{diff.status === 'unchanged' ? t('noDiff') : `${statusLabel(diff.status, t)}: ${diff.reason}`}</p>
        ))}
    </li>
  )
}
