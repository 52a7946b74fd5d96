/**
 * The last probe's findings, each one actionable: the documents their own words do not find (open one, see the
 * query that missed it) and near-duplicate pairs by title (open either, or supersede one with the other after a
 * confirmation, through the guarded POST route and the store's supersede path). Totals are the probe's counts, the
 * lists its first entries ("showing the first 20").
 * @module dsh-knowledge-sync/client/HealthFindings
 */
import { useState } from 'react'
import type { HealthReport, KnowledgeApi } from './api.js'
import type { Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { palette, s } from './styles.js'

/** How many of each list the page shows. */
const SHOWN = 20

type Pair = HealthReport['nearDuplicates'][number]

export function HealthFindings({ api, report, t, onOpen }: { api: KnowledgeApi; report: HealthReport; t: Translate; onOpen: (id: string) => void }) {
  const [asking, setAsking] = useState<{ old: string; keep: string } | undefined>()
  const [done, setDone] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | undefined>()
  const unfindableTotal = report.unfindableTotal ?? report.unfindable.length
  const duplicatesTotal = report.nearDuplicatesTotal ?? report.nearDuplicates.length
  const title = (pair: Pair, id: string) => (id === pair.a ? pair.aTitle : pair.bTitle) || id

  const confirm = async (pair: Pair) => {
    if (!asking) return
    setError(undefined)
    try {
      await api.supersede(asking.old, asking.keep)
      setDone((d) => ({ ...d, [`${pair.a} ${pair.b}`]: t('healthSuperseded', { old: title(pair, asking.old), keep: title(pair, asking.keep) }) }))
      setAsking(undefined)
    } catch (e) {
      setError(errorText(e, t))
    }
  }

  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      <strong data-testid="knowledge-health-unfindable-total" style={{ fontSize: 13 }}>
        {t('healthUnfindableTotal', { total: unfindableTotal })}
        {unfindableTotal > SHOWN ? ` ${t('healthShowing', { shown: SHOWN })}` : ''}
      </strong>
      <ul data-testid="knowledge-health-unfindable" style={s.list}>
        {report.unfindable.slice(0, SHOWN).map((u) => (
          <li key={u.id} style={{ display: 'flex', gap: 8, flexWrap: 'wrap', alignItems: 'baseline' }}>
            <button type="button" data-id={u.id} style={{ ...s.linkButton, color: palette.link }} onClick={() => onOpen(u.id)}>
              {u.title || u.id}
            </button>
            <span style={s.muted}>{t('healthQuery', { query: u.query || '—' })}</span>
          </li>
        ))}
      </ul>
      <strong data-testid="knowledge-health-duplicates-total" style={{ fontSize: 13 }}>
        {t('healthDuplicatesTotal', { total: duplicatesTotal })}
        {duplicatesTotal > SHOWN ? ` ${t('healthShowing', { shown: SHOWN })}` : ''}
      </strong>
      {error && (
        <p role="alert" style={s.error}>
          {error}
        </p>
      )}
      <ul data-testid="knowledge-health-duplicates" style={{ ...s.list, gap: 8 }}>
        {report.nearDuplicates.slice(0, SHOWN).map((pair) => {
          const key = `${pair.a} ${pair.b}`
          const open = asking && (asking.old === pair.a || asking.old === pair.b) && (asking.keep === pair.a || asking.keep === pair.b)
          return (
            <li key={key} data-testid="knowledge-health-pair" data-a={pair.a} data-b={pair.b} style={{ ...s.item, gap: 4 }}>
              <span style={{ display: 'flex', gap: 8, flexWrap: 'wrap', alignItems: 'baseline' }}>
                <button type="button" data-testid="knowledge-health-open-a" style={{ ...s.linkButton, color: palette.link }} onClick={() => onOpen(pair.a)}>
                  {title(pair, pair.a)}
                </button>
                <span aria-hidden="true">≈</span>
                <button type="button" data-testid="knowledge-health-open-b" style={{ ...s.linkButton, color: palette.link }} onClick={() => onOpen(pair.b)}>
                  {title(pair, pair.b)}
                </button>
                <span style={s.muted}>{t('healthShared', { percent: Math.round(pair.similarity * 100) })}</span>
              </span>
              {done[key] ? (
                <span role="status" data-testid="knowledge-health-pair-done" style={{ fontSize: 12.5 }}>
                  {done[key]}
                </span>
              ) : open ? (
                <span style={{ ...s.row, gap: 6 }}>
                  <span style={{ fontSize: 12.5 }}>{t('healthConfirmSupersede', { old: title(pair, asking.old), keep: title(pair, asking.keep) })}</span>
                  <button type="button" data-testid="knowledge-health-confirm" style={s.button} onClick={() => void confirm(pair)}>
                    {t('healthConfirm')}
                  </button>
                  <button type="button" style={s.button} onClick={() => setAsking(undefined)}>
                    {t('healthCancel')}
                  </button>
                </span>
              ) : (
                <span style={{ ...s.row, gap: 6 }}>
                  {[
                    [pair.a, pair.b],
                    [pair.b, pair.a],
                  ].map(([old, keep]) => (
                    <button key={old} type="button" data-testid="knowledge-health-supersede" data-old={old} style={s.button} onClick={() => setAsking({ old, keep })}>
                      {t('healthSupersedeWith', { old: title(pair, old), keep: title(pair, keep) })}
                    </button>
                  ))}
                </span>
              )}
            </li>
          )
        })}
      </ul>
    </div>
  )
}
