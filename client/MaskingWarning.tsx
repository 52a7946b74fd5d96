/**
 * The persistent warning shown above both tabs while credential masking is off (issue 16.2), whoever turned it off:
 * this page, another tab, a settings.yaml edit or the row's own config. The state is the field's effective value,
 * read the way the Config tab reads it (the settings scope's user layer over the row's inherited value), so it
 * changes as soon as a save lands. One click turns masking back on; turning it off is the Config tab's, with a
 * confirmation.
 * @module dsh-knowledge-sync/client/MaskingWarning
 */
import { useEffect, useState, useSyncExternalStore } from 'react'
import type { ConfigView } from './api.js'
import { SECTIONS, viewField } from './config.js'
import type { KnowledgeHost } from './host.js'
import type { Translate } from './i18n.js'
import { palette, s } from './styles.js'

const ENABLED = SECTIONS[0].fields[0]

/** The warning banner; renders nothing while masking is on or its state is not known yet. */
export function MaskingWarning({ host, t }: { host: KnowledgeHost; t: Translate }) {
  const settings = useSyncExternalStore(host.subscribeSettings, host.getSettings)
  const [config, setConfig] = useState<ConfigView | undefined>()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>()

  useEffect(() => {
    const abort = new AbortController()
    host.api.config(abort.signal).then(setConfig, () => {})
    return () => abort.abort()
  }, [host, settings])

  const ready = settings.phase === 'ready'
  const view = viewField(ENABLED, config?.sections.redact, ready ? (settings.user ?? {}) : undefined)
  if (!config?.sections.redact || view.effective !== false) return null
  const turnOn = async () => {
    setBusy(true)
    // Back to the row's own value when that masks (the field reads Inherited again); an override only where the row
    // itself turns masking off.
    const result = await host.write(['redact', 'enabled'], view.inherited === true ? undefined : true)
    setBusy(false)
    setError(result.ok ? undefined : result.key ? t(result.key) : result.message)
  }
  return (
    <div role="alert" data-testid="knowledge-masking-off" style={{ ...s.card, borderColor: palette.error, color: palette.error, display: 'flex', flexDirection: 'column', gap: 6, fontSize: 12.5 }}>
      <strong>{t('maskingOff')}</strong>
      {ready && (
        <div>
          <button type="button" style={{ ...s.button, borderColor: palette.error, color: palette.error }} disabled={busy} onClick={() => void turnOn()}>
            {t('maskingOn')}
          </button>
        </div>
      )}
      {error && <p style={s.error}>{t('refused', { message: error })}</p>}
    </div>
  )
}
