/**
 * "What the bar does" (Config tab, capture section): recent rounds' salience scores from the ledger (kept and
 * dropped, redacted titles only), the `minScore` in force drawn across them, a local "try a bar" input that says how
 * many of those rounds a new threshold would keep before anything is saved, and the recently dropped rounds by title
 * and reason. Plain SVG: a dependency for one chart would outweigh it.
 * @module dsh-knowledge-sync/client/RoundsChart
 */
import { useEffect, useState } from 'react'
import type { RecentRounds } from '../src/wire.js'
import type { KnowledgeApi } from './api.js'
import { reasonLabel } from './DocumentView.js'
import type { Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { palette, s } from './styles.js'

const W = 560
const H = 120
const PAD = { left: 28, right: 8, top: 8, bottom: 16 }
/** Dropped rounds listed under the chart. */
const DROPPED_SHOWN = 8

/** Whether a round with this score passes `bar` (capture's rule: a bar of 0 or below keeps every answered round). */
export function passes(score: number, bar: number): boolean {
  return bar <= 0 || score >= bar
}

/** The chart, the trial input and the dropped list; re-read when `refresh` changes (a save moved the bar). */
export function RoundsChart({ api, t, active, refresh }: { api: KnowledgeApi; t: Translate; active: boolean; refresh: unknown }) {
  const [data, setData] = useState<RecentRounds | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [trial, setTrial] = useState('')

  useEffect(() => {
    if (!active) return
    const abort = new AbortController()
    api.rounds(abort.signal).then(
      (next) => {
        setData(next)
        setError(undefined)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, active, refresh])

  if (error)
    return (
      <p role="alert" style={s.error}>
        {t('unreachable', { message: error })}
      </p>
    )
  if (!data) return null
  const rounds = data.rounds.filter((r) => Number.isFinite(r.score))
  if (!rounds.length)
    return (
      <p data-testid="knowledge-rounds" style={s.hint}>
        {t('roundsNone')}
      </p>
    )

  const bar = data.minScore
  const tried = trial.trim() === '' ? undefined : Number(trial)
  const trying = tried !== undefined && Number.isFinite(tried) ? tried : undefined
  const top = Math.max(1, ...rounds.map((r) => r.score), bar ?? 0, trying ?? 0) * 1.1
  // Penalties push scores below zero (a terse "tests passed" is about -5): the axis goes down to the lowest.
  const bottom = Math.min(0, ...rounds.map((r) => r.score), trying ?? 0)
  const x = (k: number) => PAD.left + (rounds.length === 1 ? (W - PAD.left - PAD.right) / 2 : (k * (W - PAD.left - PAD.right)) / (rounds.length - 1))
  const y = (score: number) => PAD.top + (1 - (score - bottom) / (top - bottom)) * (H - PAD.top - PAD.bottom)
  const keptNow = rounds.filter((r) => r.kept).length
  const wouldKeep = trying === undefined ? undefined : rounds.filter((r) => passes(r.score, trying)).length
  const dropped = rounds
    .filter((r) => !r.kept)
    .slice(-DROPPED_SHOWN)
    .reverse()

  return (
    <div data-testid="knowledge-rounds" style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      <div style={{ fontWeight: 600 }}>{t('roundsTitle')}</div>
      <p style={{ ...s.hint, margin: 0 }}>{t('roundsHint', { count: rounds.length, kept: keptNow, dropped: rounds.length - keptNow })}</p>
      <svg
        data-testid="knowledge-rounds-chart"
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        style={{ maxWidth: W, display: 'block' }}
        aria-label={t('roundsAria', { count: rounds.length, kept: keptNow, bar: bar ?? '?' })}
      >
        <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={H - PAD.bottom} stroke={palette.border} />
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} stroke={palette.border} />
        <text x={PAD.left - 4} y={H - PAD.bottom} textAnchor="end" fontSize={9} fill={palette.tertiary}>
          {Math.round(bottom)}
        </text>
        {bottom < 0 && <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} stroke={palette.border} strokeDasharray="1 3" />}
        <text x={PAD.left - 4} y={PAD.top + 8} textAnchor="end" fontSize={9} fill={palette.tertiary}>
          {Math.round(top)}
        </text>
        {rounds.map((r, k) => (
          <circle
            key={k}
            data-testid="knowledge-round-dot"
            data-kept={String(r.kept)}
            cx={x(k)}
            cy={y(r.score)}
            r={3.5}
            fill={r.kept ? palette.success : 'transparent'}
            stroke={r.kept ? palette.success : palette.warn}
            strokeWidth={1.5}
          >
            <title>{`${r.title || '—'} · ${t('salienceScore', { score: r.score })}${r.reason ? ` · ${reasonLabel(r.reason, t)}` : ''}`}</title>
          </circle>
        ))}
        {bar !== null && (
          <g data-testid="knowledge-rounds-bar" data-value={bar}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(bar)} y2={y(bar)} stroke={palette.accent} strokeWidth={1.5} />
            <text x={W - PAD.right} y={y(bar) - 3} textAnchor="end" fontSize={10} fill={palette.accent}>{`minScore ${bar}`}</text>
          </g>
        )}
        {trying !== undefined && (
          <g data-testid="knowledge-rounds-trial" data-value={trying}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(trying)} y2={y(trying)} stroke={palette.text} strokeDasharray="4 3" />
            <text x={PAD.left + 4} y={y(trying) - 3} fontSize={10} fill={palette.text}>
              {t('roundsTrialLine', { bar: trying })}
            </text>
          </g>
        )}
      </svg>
      <div style={{ ...s.row, gap: 8 }}>
        <label style={{ display: 'inline-flex', gap: 6, alignItems: 'center' }}>
          {t('roundsTry')}
          <input
            type="number"
            data-testid="knowledge-rounds-try"
            value={trial}
            onChange={(e) => setTrial(e.target.value)}
            placeholder={bar === null ? '' : String(bar)}
            style={{ ...s.input, width: 80 }}
          />
        </label>
        <span data-testid="knowledge-rounds-would" aria-live="polite" style={s.muted}>
          {wouldKeep === undefined ? t('roundsNow', { kept: keptNow, count: rounds.length }) : t('roundsWouldKeep', { kept: wouldKeep, count: rounds.length, bar: trying, now: keptNow })}
        </span>
      </div>
      {dropped.length > 0 && (
        <details data-testid="knowledge-rounds-dropped">
          <summary style={{ cursor: 'pointer' }}>{t('roundsDropped', { count: dropped.length })}</summary>
          <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
            {dropped.map((r, k) => (
              <li key={k} data-testid="knowledge-dropped-round">
                <span>{r.title || '—'}</span>
                <span style={{ ...s.muted, marginLeft: 8 }}>{t('salienceScore', { score: r.score })}</span>
                {r.reason && (
                  <span title={r.reason} style={{ marginLeft: 8, color: palette.warn }}>
                    {reasonLabel(r.reason, t)}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  )
}
