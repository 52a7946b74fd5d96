/**
 * The Health tab: is the base findable, or just growing? Two small charts drawn as plain SVG with axes, totals and
 * hover values (rounds kept and dropped per day over the last 30 days; the probe's recall@5 over time), the last
 * probe's figures and its actionable findings (./HealthFindings.tsx), a running probe's progress (n of N). Loading reads what is recorded (no probe); "Probe now" runs a sampled
 * probe through the guarded POST route.
 * @module dsh-knowledge-sync/client/HealthTab
 */
import { useCallback, useEffect, useState } from 'react'
import type { GrowthDay, HealthHistoryPoint, HealthReport, HealthView, KnowledgeApi } from './api.js'
import { DocumentView } from './DocumentView.js'
import { HealthFindings } from './HealthFindings.js'
import type { Lang, Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { palette, s } from './styles.js'

const DAYS = 30
const W = 600
const H = 110

export function HealthTab({ api, t, lang = 'en', active }: { api: KnowledgeApi; t: Translate; lang?: Lang; active: boolean }) {
  const [view, setView] = useState<HealthView>()
  const [report, setReport] = useState<HealthReport>()
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<{ done: number; total: number }>()
  const [opened, setOpened] = useState<string>()
  const load = useCallback(() => {
    api.health().then(setView, (e: Error) => setError(errorText(e, t)))
    // The last probe the page ran (kept by the process): its findings survive switching tabs and reloading.
    api.healthLast().then(
      (state) => {
        if (state.last) setReport((r) => r ?? state.last)
        if (state.running) setProgress(state.running)
      },
      () => {},
    )
  }, [api])
  useEffect(() => {
    if (active) load()
  }, [active, load])
  // While a probe runs, its progress is read twice a second ("n of N").
  useEffect(() => {
    if (!busy) return
    const timer = setInterval(() => {
      api.healthLast().then(
        (state) => state.running && setProgress(state.running),
        () => {},
      )
    }, 500)
    return () => clearInterval(timer)
  }, [api, busy])

  const probe = async () => {
    setBusy(true)
    setProgress(undefined)
    setError(undefined)
    try {
      const r = await api.runHealth()
      setReport(r)
      setView({ documents: r.documents, history: r.history, growth: r.growth })
    } catch (e) {
      setError(errorText(e, t))
    } finally {
      setBusy(false)
    }
  }
  const last = report ?? view?.history.at(-1)

  if (opened) return <DocumentView api={api} id={opened} t={t} lang={lang} onBack={() => setOpened(undefined)} onOpen={setOpened} />
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
        {busy && progress && progress.total > 0 && (
          <span role="status" data-testid="knowledge-health-progress" style={s.muted}>
            {t('healthProgress', { done: progress.done, total: progress.total })}
          </span>
        )}
        {last && (
          <span data-testid="knowledge-health-figures" style={s.muted}>
            {t('healthFigures', { recall: last.recallAt5.toFixed(3), mrr: last.mrr.toFixed(3), probed: last.probed, documents: last.documents })}
          </span>
        )}
      </div>
      {view && <GrowthChart growth={view.growth} t={t} />}
      {view && view.history.length > 0 && <RecallChart history={view.history} t={t} />}
      {report && <HealthFindings api={api} report={report} t={t} onOpen={setOpened} />}
    </div>
  )
}

/** Left margin (the y axis's numbers) and bottom margin (the x axis's dates) of both charts. */
const AXIS_X = 30
const AXIS_Y = 14
const axisText = { fontSize: 10, fill: palette.secondary } as const

/** Kept (up) and dropped (down) rounds per day, the last {@link DAYS} days: counts on the y axis, dates under it, each day's numbers on hover. */
function GrowthChart({ growth, t }: { growth: GrowthDay[]; t: Translate }) {
  const days = lastDays(DAYS)
  const byDay = new Map(growth.map((g) => [g.day, g]))
  const max = Math.max(1, ...days.map((d) => Math.max(byDay.get(d)?.kept ?? 0, byDay.get(d)?.dropped ?? 0)))
  const bar = (W - AXIS_X) / days.length
  const mid = H / 2
  const kept = days.reduce((n, d) => n + (byDay.get(d)?.kept ?? 0), 0)
  const dropped = days.reduce((n, d) => n + (byDay.get(d)?.dropped ?? 0), 0)
  return (
    <figure style={{ margin: 0 }}>
      <figcaption style={s.hint}>
        {t('healthGrowth', { days: DAYS })} · <span data-testid="knowledge-health-growth-totals">{t('healthGrowthTotals', { kept, dropped, days: DAYS })}</span>
      </figcaption>
      <svg
        data-testid="knowledge-health-growth"
        viewBox={`0 0 ${W} ${H + AXIS_Y}`}
        width="100%"
        height={H + AXIS_Y}
        role="img"
        aria-label={`${t('healthGrowth', { days: DAYS })}: ${t('healthGrowthTotals', { kept, dropped, days: DAYS })}`}
      >
        <line x1={AXIS_X} x2={W} y1={mid} y2={mid} stroke={palette.border} />
        <line x1={AXIS_X} x2={AXIS_X} y1={0} y2={H} stroke={palette.border} />
        <text data-testid="knowledge-health-axis" x={AXIS_X - 4} y={10} textAnchor="end" style={axisText}>{`+${max}`}</text>
        <text x={AXIS_X - 4} y={mid + 3} textAnchor="end" style={axisText}>
          0
        </text>
        <text x={AXIS_X - 4} y={H - 2} textAnchor="end" style={axisText}>{`−${max}`}</text>
        <text x={AXIS_X} y={H + AXIS_Y - 2} style={axisText}>
          {days[0]}
        </text>
        <text x={W} y={H + AXIS_Y - 2} textAnchor="end" style={axisText}>
          {days.at(-1)}
        </text>
        {days.map((day, k) => {
          const g = byDay.get(day)
          const up = ((g?.kept ?? 0) / max) * (mid - 4)
          const down = ((g?.dropped ?? 0) / max) * (mid - 4)
          const x = AXIS_X + k * bar
          return (
            <g key={day} data-day={day}>
              <title>{`${day}: +${g?.kept ?? 0} / −${g?.dropped ?? 0}`}</title>
              {/* The whole day's column takes the hover, so an empty day says 0 too. */}
              <rect x={x} y={0} width={bar} height={H} fill="transparent" />
              {up > 0 && <rect data-day={day} data-kept={g?.kept} x={x + 1} y={mid - up} width={bar - 2} height={up} fill={palette.success} />}
              {down > 0 && <rect data-day={day} data-dropped={g?.dropped} x={x + 1} y={mid} width={bar - 2} height={down} fill={palette.tertiary} />}
            </g>
          )
        })}
      </svg>
    </figure>
  )
}

/** The probe's recall@5 over the recorded runs: 0 to 1 on the y axis, the first and last run's dates under it, each value on hover. */
function RecallChart({ history, t }: { history: HealthHistoryPoint[]; t: Translate }) {
  const points = history.slice(-60)
  const x = (k: number) => AXIS_X + (points.length === 1 ? (W - AXIS_X) / 2 : (k / (points.length - 1)) * (W - AXIS_X - 8) + 4)
  const y = (v: number) => H - 4 - v * (H - 8)
  const lastValue = points.at(-1)?.recallAt5.toFixed(3) ?? ''
  return (
    <figure style={{ margin: 0 }}>
      <figcaption style={s.hint}>
        {t('healthRecallOverTime')} · {t('healthRecallLast', { value: lastValue })}
      </figcaption>
      <svg
        data-testid="knowledge-health-recall"
        viewBox={`0 0 ${W} ${H + AXIS_Y}`}
        width="100%"
        height={H + AXIS_Y}
        role="img"
        aria-label={`${t('healthRecallOverTime')}: ${t('healthRecallLast', { value: lastValue })}`}
      >
        <line x1={AXIS_X} x2={AXIS_X} y1={0} y2={H} stroke={palette.border} />
        <line x1={AXIS_X} x2={W} y1={H} y2={H} stroke={palette.border} />
        {[0, 0.5, 1].map((v) => (
          <text key={v} x={AXIS_X - 4} y={y(v) + 3} textAnchor="end" style={axisText}>
            {v.toFixed(1)}
          </text>
        ))}
        <text x={AXIS_X} y={H + AXIS_Y - 2} style={axisText}>
          {points[0]?.at.slice(0, 10)}
        </text>
        <text x={W} y={H + AXIS_Y - 2} textAnchor="end" style={axisText}>
          {points.at(-1)?.at.slice(0, 10)}
        </text>
        <polyline fill="none" stroke={palette.accent} strokeWidth={2} points={points.map((p, k) => `${x(k)},${y(p.recallAt5)}`).join(' ')} />
        {points.map((p, k) => (
          <circle key={p.at} data-recall={p.recallAt5} cx={x(k)} cy={y(p.recallAt5)} r={4} fill={palette.accent}>
            <title>{`${p.at.slice(0, 16).replace('T', ' ')}: recall@5 ${p.recallAt5.toFixed(3)}, MRR ${p.mrr.toFixed(3)} (${p.probed} of ${p.documents})`}</title>
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
