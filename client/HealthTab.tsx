/**
 * The Health tab: is the base findable, or just growing? Two small charts drawn as plain SVG (rounds kept and dropped
 * per day over the last 30 days; the probe's recall@5 over time), the last probe's figures, the documents their own
 * words do not find and near-duplicate pairs. Loading reads what is recorded (no probe); "Probe now" runs a sampled
 * probe through the guarded POST route.
 * @module dsh-knowledge-sync/client/HealthTab
 */
import { useCallback, useEffect, useState } from 'react'
import type { GrowthDay, HealthHistoryPoint, HealthReport, HealthView, KnowledgeApi } from './api.js'
import type { Translate } from './i18n.js'
import { palette, s } from './styles.js'

const DAYS = 30
const W = 600
const H = 110

export function HealthTab({ api, t, active }: { api: KnowledgeApi; t: Translate; active: boolean }) {
  const [view, setView] = useState<HealthView>()
  const [report, setReport] = useState<HealthReport>()
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const load = useCallback(() => {
    api.health().then(setView, (e: Error) => setError(e.message))
  }, [api])
  useEffect(() => {
    if (active) load()
  }, [active, load])

  const probe = async () => {
    setBusy(true)
    setError(undefined)
    try {
      const r = await api.runHealth()
      setReport(r)
      setView({ documents: r.documents, history: r.history, growth: r.growth })
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  const last = report ?? view?.history.at(-1)

  return (
    <div data-testid="knowledge-health" style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <p style={s.hint}>{t('healthIntro')}</p>
      {error && (
        <p role="alert" style={s.error}>
          {error}
        </p>
      )}
      <div style={s.row}>
        <button type="button" data-testid="knowledge-health-run" style={s.button} disabled={busy} onClick={probe}>
          {busy ? t('healthRunning') : t('healthRun')}
        </button>
        {last && (
          <span data-testid="knowledge-health-figures" style={s.muted}>
            {t('healthFigures', { recall: last.recallAt5.toFixed(3), mrr: last.mrr.toFixed(3), probed: last.probed, documents: last.documents })}
          </span>
        )}
      </div>
      {view && <GrowthChart growth={view.growth} t={t} />}
      {view && view.history.length > 0 && <RecallChart history={view.history} t={t} />}
      {report && (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
          <strong style={{ fontSize: 13 }}>{t('healthUnfindable', { count: report.unfindable.length })}</strong>
          <ul data-testid="knowledge-health-unfindable" style={s.list}>
            {report.unfindable.slice(0, 20).map((u) => (
              <li key={u.id} style={s.mono}>
                {u.id} — {u.title}
              </li>
            ))}
          </ul>
          <strong style={{ fontSize: 13 }}>{t('healthDuplicates', { count: report.nearDuplicates.length })}</strong>
          <ul data-testid="knowledge-health-duplicates" style={s.list}>
            {report.nearDuplicates.slice(0, 20).map((d) => (
              <li key={`${d.a} ${d.b}`} style={s.mono}>
                {d.a} ≈ {d.b} ({Math.round(d.similarity * 100)}%)
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

/** Kept (up) and dropped (down) rounds per day, the last {@link DAYS} days. */
function GrowthChart({ growth, t }: { growth: GrowthDay[]; t: Translate }) {
  const days = lastDays(DAYS)
  const byDay = new Map(growth.map((g) => [g.day, g]))
  const max = Math.max(1, ...days.map((d) => Math.max(byDay.get(d)?.kept ?? 0, byDay.get(d)?.dropped ?? 0)))
  const bar = W / days.length
  const mid = H / 2
  return (
    <figure style={{ margin: 0 }}>
      <figcaption style={s.hint}>{t('healthGrowth', { days: DAYS })}</figcaption>
      <svg data-testid="knowledge-health-growth" viewBox={`0 0 ${W} ${H}`} width="100%" height={H} role="img" aria-label={t('healthGrowth', { days: DAYS })}>
        <line x1={0} x2={W} y1={mid} y2={mid} stroke={palette.border} />
        {days.map((day, k) => {
          const g = byDay.get(day)
          const up = ((g?.kept ?? 0) / max) * (mid - 4)
          const down = ((g?.dropped ?? 0) / max) * (mid - 4)
          return (
            <g key={day}>
              <title>{`${day}: +${g?.kept ?? 0} / -${g?.dropped ?? 0}`}</title>
              {up > 0 && <rect data-day={day} data-kept={g?.kept} x={k * bar + 1} y={mid - up} width={bar - 2} height={up} fill={palette.success} />}
              {down > 0 && <rect data-day={day} data-dropped={g?.dropped} x={k * bar + 1} y={mid} width={bar - 2} height={down} fill={palette.tertiary} />}
            </g>
          )
        })}
      </svg>
    </figure>
  )
}

/** The probe's recall@5 over the recorded runs (0 to 1). */
function RecallChart({ history, t }: { history: HealthHistoryPoint[]; t: Translate }) {
  const points = history.slice(-60)
  const x = (k: number) => (points.length === 1 ? W / 2 : (k / (points.length - 1)) * (W - 8) + 4)
  const y = (v: number) => H - 4 - v * (H - 8)
  return (
    <figure style={{ margin: 0 }}>
      <figcaption style={s.hint}>{t('healthRecallOverTime')}</figcaption>
      <svg data-testid="knowledge-health-recall" viewBox={`0 0 ${W} ${H}`} width="100%" height={H} role="img" aria-label={t('healthRecallOverTime')}>
        <polyline fill="none" stroke={palette.accent} strokeWidth={2} points={points.map((p, k) => `${x(k)},${y(p.recallAt5)}`).join(' ')} />
        {points.map((p, k) => (
          <circle key={p.at} cx={x(k)} cy={y(p.recallAt5)} r={3} fill={palette.accent}>
            <title>{`${p.at.slice(0, 16)}: ${p.recallAt5.toFixed(3)}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  )
}

function lastDays(n: number): string[] {
  const out: string[] = []
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate())
  for (let k = n - 1; k >= 0; k--) out.push(new Date(today - k * 86_400_000).toISOString().slice(0, 10))
  return out
}
