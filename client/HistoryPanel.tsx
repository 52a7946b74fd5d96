/**
 * The History section of a document: its revisions (from git, or from the bounded local history, said which and
 * with its bounds), two radio columns to choose any two, and the redacted line diff between them. Loaded when the
 * person opens the section (git runs per document, so not for every document opened). Keyboard: the disclosure
 * button, then each radio group is one tab stop with arrow keys (native radios).
 * @module dsh-knowledge-sync/client/HistoryPanel
 */
import { type CSSProperties, useEffect, useId, useState } from 'react'
import type { DocumentHistory, HistoryDiff, HistoryRevision, KnowledgeApi } from './api.js'
import { formatDate } from './format.js'
import type { Lang, Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { font, palette, s } from './styles.js'

export interface HistoryPanelProps {
  api: KnowledgeApi
  id: string
  t: Translate
  lang: Lang
}

/** A revision's label: `current`, `v:3` or a commit's first seven digits. */
export function revisionLabel(r: HistoryRevision, t: Translate, source: DocumentHistory['source']): string {
  if (r.ref === 'current') return source === 'git' ? t('historyCurrentUncommitted') : t('historyCurrent')
  if (/^v\d+$/.test(r.ref)) return `v:${r.ref.slice(1)}`
  return r.ref.slice(0, 7)
}

export function HistoryPanel({ api, id, t, lang }: HistoryPanelProps) {
  const [open, setOpen] = useState(false)
  const [history, setHistory] = useState<DocumentHistory | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [from, setFrom] = useState<string | undefined>()
  const [to, setTo] = useState<string | undefined>()
  const [diff, setDiff] = useState<HistoryDiff | { error: string } | undefined>()
  const region = useId()

  useEffect(() => {
    if (!open) return
    const abort = new AbortController()
    setError(undefined)
    api.history(id, abort.signal).then(
      (found) => {
        setHistory(found)
        setTo(found.revisions[0]?.ref)
        setFrom(found.revisions[1]?.ref)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, id, open])

  useEffect(() => {
    setDiff(undefined)
    if (!open || !from || !to || from === to) return
    const abort = new AbortController()
    api.historyDiff(id, from, to, abort.signal).then(setDiff, (e: Error) => {
      if (e.name !== 'AbortError') setDiff({ error: e.message })
    })
    return () => abort.abort()
  }, [api, id, open, from, to])

  const label = (ref: string | undefined) => {
    const r = history?.revisions.find((x) => x.ref === ref)
    return r && history ? revisionLabel(r, t, history.source) : (ref ?? '')
  }

  return (
    <section data-testid="knowledge-history" aria-label={t('historyHeading')} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <div style={s.row}>
        <h4 style={{ margin: 0, fontSize: 14, fontWeight: 600 }}>{t('historyHeading')}</h4>
        <button type="button" data-testid="knowledge-history-toggle" style={s.button} aria-expanded={open} aria-controls={region} onClick={() => setOpen((v) => !v)}>
          {open ? t('historyHide') : t('historyShow')}
        </button>
      </div>
      {open && (
        <div id={region} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
          {error && (
            <p role="alert" style={s.error}>
              {t('historyError', { message: error })}
            </p>
          )}
          {!history && !error && <p style={s.muted}>{t('historyLoading')}</p>}
          {history && (
            <>
              <p data-testid="knowledge-history-source" data-source={history.source} style={s.muted}>
                {history.source === 'git'
                  ? t('historyFromGit', { commits: history.limits.commits ?? '' })
                  : t('historyFromLocal', { perDocument: history.limits.perDocument ?? '', mib: Math.round((history.limits.bytes ?? 0) / 1048576) })}
                {history.more ? ` ${history.source === 'git' ? t('historyMoreGit') : t('historyMoreLocal')}` : ''}
              </p>
              {history.revisions.length < 2 ? (
                <p style={s.muted}>{t('historyOnlyCurrent')}</p>
              ) : (
                <RevisionTable history={history} t={t} lang={lang} from={from} to={to} onFrom={setFrom} onTo={setTo} />
              )}
              {history.revisions.length >= 2 && from === to && <p style={s.muted}>{t('historyPickTwo')}</p>}
              {diff && 'error' in diff && (
                <p role="alert" style={s.error}>
                  {t('historyError', { message: diff.error })}
                </p>
              )}
              {diff && !('error' in diff) && <DiffView diff={diff} fromLabel={label(diff.from)} toLabel={label(diff.to)} t={t} />}
            </>
          )}
        </div>
      )}
    </section>
  )
}

function RevisionTable({
  history,
  t,
  lang,
  from,
  to,
  onFrom,
  onTo,
}: {
  history: DocumentHistory
  t: Translate
  lang: Lang
  from?: string
  to?: string
  onFrom: (ref: string) => void
  onTo: (ref: string) => void
}) {
  const group = useId()
  const cell: CSSProperties = { padding: '3px 8px', textAlign: 'left', verticalAlign: 'top' }
  return (
    <table data-testid="knowledge-history-list" style={{ borderCollapse: 'collapse', fontSize: 12.5 }}>
      <thead>
        <tr style={{ color: palette.tertiary }}>
          <th scope="col" style={cell}>
            {t('historyFrom')}
          </th>
          <th scope="col" style={cell}>
            {t('historyTo')}
          </th>
          <th scope="col" style={cell}>
            {t('historyRevision')}
          </th>
          <th scope="col" style={cell}>
            {t('historyWhen')}
          </th>
          <th scope="col" style={cell}>
            {t('historyWhat')}
          </th>
        </tr>
      </thead>
      <tbody>
        {history.revisions.map((r) => {
          const name = revisionLabel(r, t, history.source)
          return (
            <tr key={r.ref} data-testid="knowledge-history-row" data-ref={r.ref} style={{ borderTop: `1px solid ${palette.border}` }}>
              <td style={cell}>
                <input
                  type="radio"
                  name={`${group}-from`}
                  data-testid="knowledge-history-from"
                  aria-label={`${t('historyFrom')} ${name}`}
                  disabled={!r.hasText}
                  checked={from === r.ref}
                  onChange={() => onFrom(r.ref)}
                />
              </td>
              <td style={cell}>
                <input
                  type="radio"
                  name={`${group}-to`}
                  data-testid="knowledge-history-to"
                  aria-label={`${t('historyTo')} ${name}`}
                  disabled={!r.hasText}
                  checked={to === r.ref}
                  onChange={() => onTo(r.ref)}
                />
              </td>
              <td style={{ ...cell, fontFamily: font.mono, whiteSpace: 'nowrap' }} title={r.ref}>
                {name}
              </td>
              <td style={{ ...cell, whiteSpace: 'nowrap' }} title={r.at}>
                {formatDate(r.at, lang)}
              </td>
              <td style={{ ...cell, overflowWrap: 'anywhere' }}>
                {[r.author, r.subject].filter(Boolean).join(': ')}
                {r.hasText ? '' : <span style={{ color: palette.tertiary }}>{t('historyNoText')}</span>}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

/** The hunks as lines: `+` and `−` are written out (not colour alone), with a tinted background; long lines wrap (no inner scroll). */
function DiffView({ diff, fromLabel, toLabel, t }: { diff: HistoryDiff; fromLabel: string; toLabel: string; t: Translate }) {
  if (diff.tooLarge)
    return (
      <p data-testid="knowledge-history-diff" style={s.muted}>
        {t('historyTooLarge', { from: fromLabel, to: toLabel })}
      </p>
    )
  if (!diff.hunks.length)
    return (
      <p data-testid="knowledge-history-diff" style={s.muted}>
        {t('historySame', { from: fromLabel, to: toLabel })}
      </p>
    )
  const line = (text: string): CSSProperties => ({
    display: 'block',
    whiteSpace: 'pre-wrap',
    overflowWrap: 'anywhere',
    padding: '0 6px',
    background: text.startsWith('+')
      ? `color-mix(in srgb, ${palette.fill.success} 14%, transparent)`
      : text.startsWith('-')
        ? `color-mix(in srgb, ${palette.fill.error} 14%, transparent)`
        : 'transparent',
  })
  return (
    <figure data-testid="knowledge-history-diff" style={{ margin: 0, display: 'flex', flexDirection: 'column', gap: 4 }}>
      <figcaption data-testid="knowledge-history-summary" style={{ fontSize: 12.5 }}>
        {t('historyDiffOf', { from: fromLabel, to: toLabel, added: diff.added, removed: diff.removed })}
      </figcaption>
      <pre style={{ ...s.card, margin: 0, padding: '6px 0', fontFamily: font.mono, fontSize: 12 }}>
        {diff.hunks.map((h) => (
          <code key={`${h.oldStart}-${h.newStart}`} style={{ display: 'block' }}>
            <span style={{ ...line(' '), color: palette.tertiary }}>{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`}</span>
            {h.lines.map((text, k) => (
              <span key={k} data-kind={text[0] === '+' ? 'added' : text[0] === '-' ? 'removed' : 'same'} style={line(text)}>
                {text[0] === '-' ? `−${text.slice(1)}` : text}
              </span>
            ))}
          </code>
        ))}
      </pre>
    </figure>
  )
}
