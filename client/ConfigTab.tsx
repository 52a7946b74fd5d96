/**
 * The Config tab: redaction, capture and recall settings of the `knowledge` namespace. Each field shows its value,
 * whether it is overridden and the value it inherits from its row; booleans save on toggle, text and numbers on
 * Save (or Enter); Reset unsets the field. The host validates every write (schema ranges, regular expressions) and
 * its refusal message is shown under the field. Without live settings the tab shows the effective config read-only
 * from `/knowledge/config`, which is then the rows' own config.
 * @module dsh-knowledge-sync/client/ConfigTab
 */
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react'
import type { ConfigSection, ConfigView } from './api.js'
import { draftOf, formatValue, parseDraft, SECTIONS, viewField, type FieldSpec, type FieldView } from './config.js'
import { stringList } from './format.js'
import type { KnowledgeHost } from './host.js'
import type { MessageKey, Translate } from './i18n.js'
import { errorText } from './views-api.js'
import { palette, s } from './styles.js'
import { RoundsChart } from './RoundsChart.js'

export interface ConfigTabProps {
  host: KnowledgeHost
  t: Translate
  active: boolean
}

/** The Config tab. */
export function ConfigTab({ host, t, active }: ConfigTabProps) {
  const settings = useSyncExternalStore(host.subscribeSettings, host.getSettings)
  const [config, setConfig] = useState<ConfigView | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [tick, setTick] = useState(0)
  const reload = useCallback(() => setTick((n) => n + 1), [])

  // Re-read the effective config whenever the settings moved (a save here, another tab, a settings.yaml edit).
  useEffect(() => {
    if (!active) return
    const abort = new AbortController()
    host.api.config(abort.signal).then(
      (next) => {
        setConfig(next)
        setError(undefined)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [host, active, settings, tick])

  const editable = settings.phase === 'ready'
  const notice: MessageKey =
    settings.phase === 'ready' ? 'configIntro' : settings.phase === 'readonly' ? 'settingsReadOnly' : settings.phase === 'unavailable' ? 'settingsUnavailable' : 'settingsWaiting'
  const labels = { on: t('on'), off: t('off'), empty: t('empty_value'), none: t('none') }

  return (
    <div data-testid="knowledge-config" data-phase={settings.phase} style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <p
        data-testid="knowledge-settings-notice"
        role={settings.phase === 'unavailable' ? 'status' : undefined}
        style={{ ...s.hint, fontSize: 12.5, color: settings.phase === 'unavailable' || settings.phase === 'readonly' ? palette.warn : palette.tertiary }}
      >
        {t(notice)}
      </p>
      {error && (
        <p role="alert" style={s.error}>
          {t('configUnreachable', { message: error })}
        </p>
      )}
      {SECTIONS.map((section) => {
        const data = config?.sections[section.name]
        return (
          <fieldset key={section.name} data-testid={`knowledge-section-${section.name}`} style={{ ...s.card, margin: 0, display: 'flex', flexDirection: 'column', gap: 10 }}>
            <legend style={{ fontWeight: 600, fontSize: 13.5, padding: '0 4px' }}>{t(`section_${section.name}` as MessageKey)}</legend>
            {config && !data && <p style={{ ...s.hint, color: palette.warn }}>{t('rowNotRunning', { row: section.row })}</p>}
            {/* Until the values in force arrive, a field would show a default that is not in force (an unticked "Mask credentials"). */}
            {!config && !error && (
              <p data-testid="knowledge-config-loading" style={s.hint}>
                {t('loading')}
              </p>
            )}
            {(config || error) &&
              section.fields.map((spec) => (
                <FieldRow
                  key={spec.key}
                  spec={spec}
                  view={viewField(spec, data, editable ? (settings.user ?? {}) : undefined)}
                  section={data}
                  editable={editable}
                  host={host}
                  t={t}
                  labels={labels}
                  onSaved={reload}
                />
              ))}
            {section.name === 'capture' && <RoundsChart api={host.api} t={t} active={active} refresh={`${tick}:${String(data?.effective ? JSON.stringify(data.effective) : '')}`} />}
          </fieldset>
        )
      })}
    </div>
  )
}

type Status = { kind: 'idle' } | { kind: 'saving' } | { kind: 'saved' } | { kind: 'refused'; message: string }

interface FieldRowProps {
  spec: FieldSpec
  view: FieldView
  section: ConfigSection | undefined
  editable: boolean
  host: KnowledgeHost
  t: Translate
  labels: { on: string; off: string; empty: string; none: string }
  onSaved: () => void
}

function FieldRow({ spec, view, section, editable, host, t, labels, onSaved }: FieldRowProps) {
  const initial = draftOf(spec, view)
  const [draft, setDraft] = useState(initial)
  const [touched, setTouched] = useState(false)
  const [status, setStatus] = useState<Status>({ kind: 'idle' })
  // Switching masking off is never one click: the value waiting for the person's confirmation (issue 16.2).
  const [pending, setPending] = useState<{ value: unknown } | undefined>()

  // A value that moved underneath (a save, a file edit) replaces an untouched draft.
  useEffect(() => {
    if (!touched) setDraft(initial)
  }, [initial, touched])

  const label = t(`f_${spec.key}` as MessageKey)
  const help = t(`h_${spec.key}` as MessageKey)
  const id = `knowledge-field-${spec.key.replace(/\./g, '-')}`

  const write = async (value: unknown) => {
    // Turning masking off (by unticking, or by a Reset that inherits `false`) waits for a confirmation.
    const wouldBe = value === undefined ? view.inherited : value
    if (spec.key === 'redact.enabled' && wouldBe === false && view.effective !== false) {
      setStatus({ kind: 'idle' })
      setPending({ value })
      return
    }
    await writeConfirmed(value)
  }
  const writeConfirmed = async (value: unknown) => {
    setPending(undefined)
    setStatus({ kind: 'saving' })
    const result = await host.write([spec.section, ...spec.path], value)
    if (result.ok) {
      setTouched(false)
      setStatus({ kind: 'saved' })
      onSaved()
    } else {
      setStatus({ kind: 'refused', message: result.key ? t(result.key) : result.message })
    }
  }
  const save = () => {
    const parsed = parseDraft(spec, draft)
    if ('error' in parsed) return setStatus({ kind: 'refused', message: t(parsed.error) })
    void write(parsed.value)
  }
  const dirty = draft !== initial
  const busy = status.kind === 'saving'

  const checkbox = editable && spec.type === 'boolean'
  let control = null
  if (!editable) {
    control = (
      <span data-testid="knowledge-value" style={s.mono}>
        {formatValue(spec.type === 'lines' ? view.effective : getEffective(spec, section, view), labels)}
      </span>
    )
  } else if (spec.type === 'lines') {
    control = (
      <textarea
        id={id}
        rows={3}
        value={draft}
        disabled={busy}
        spellCheck={false}
        onChange={(e) => {
          setDraft(e.target.value)
          setTouched(true)
          setStatus({ kind: 'idle' })
        }}
        style={{ ...s.input, ...s.mono, width: '100%', boxSizing: 'border-box', resize: 'vertical', ...(dirty ? { borderColor: palette.warn } : {}) }}
      />
    )
  } else if (!checkbox) {
    control = (
      <input
        id={id}
        type={spec.type === 'number' || spec.type === 'integer' ? 'number' : 'text'}
        value={draft}
        disabled={busy}
        placeholder={formatValue(view.inherited, labels)}
        onChange={(e) => {
          setDraft(e.target.value)
          setTouched(true)
          setStatus({ kind: 'idle' })
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && dirty) save()
        }}
        style={{ ...s.input, width: spec.type === 'number' || spec.type === 'integer' ? 110 : 220, ...(dirty ? { borderColor: palette.warn } : {}) }}
      />
    )
  }
  const showSave = editable && !checkbox
  const showReset = editable && view.overridden

  return (
    <div data-testid={id} data-overridden={view.overridden ? 'true' : 'false'} style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
      <div style={{ ...s.row, justifyContent: 'space-between' }}>
        {checkbox ? (
          <label style={{ display: 'inline-flex', gap: 8, alignItems: 'center', fontWeight: 500 }}>
            <input
              id={id}
              type="checkbox"
              // Masking stays on until the person confirms: the box shows what is in force, the pending state is said beside it.
              checked={view.effective === true}
              aria-describedby={pending ? `${id}-confirm-title` : undefined}
              data-pending={pending ? 'true' : undefined}
              disabled={busy}
              onChange={(e) => {
                if (pending) setPending(undefined)
                else void write(e.target.checked)
              }}
            />
            {label}
          </label>
        ) : (
          <label htmlFor={editable ? id : undefined} style={{ fontWeight: 500 }}>
            {label}
          </label>
        )}
        <span style={{ ...s.row, gap: 6 }}>
          {showReset && (
            <button type="button" data-testid="knowledge-reset" style={s.button} disabled={busy} title={t('resetHint')} onClick={() => void write(undefined)}>
              {t('reset')}
            </button>
          )}
          {pending ? (
            <span data-testid="knowledge-pending" style={{ ...s.badge('off'), borderColor: palette.error, color: palette.error }}>
              {t('maskingPending')}
            </span>
          ) : dirty ? (
            <span data-testid="knowledge-unsaved" style={{ ...s.badge('off'), borderColor: palette.warn, color: palette.warn }} title={t('unsavedHint')}>
              {t('unsaved')}
            </span>
          ) : (
            <span style={s.badge(view.overridden ? 'on' : 'off')} title={t(view.overridden ? 'overriddenHint' : 'inheritedHint')}>
              {view.overridden ? t('overridden') : t('notOverridden')}
            </span>
          )}
        </span>
      </div>
      {(control || showSave) && (
        <div style={s.row}>
          {control}
          {showSave && (
            <button type="button" style={s.button} disabled={!dirty || busy} onClick={save}>
              {t('save')}
            </button>
          )}
        </div>
      )}
      <p style={s.hint}>
        {help}{' '}
        <span data-testid="knowledge-inherited">
          {spec.type === 'lines' ? t('rowPatterns', { patterns: formatValue(stringList(view.inherited), labels) }) : t('inherited', { value: formatValue(view.inherited, labels) })}
        </span>
      </p>
      {pending && (
        <div
          role="alertdialog"
          aria-modal="false"
          aria-labelledby={`${id}-confirm-title`}
          aria-describedby={`${id}-confirm-body`}
          data-testid="knowledge-confirm-masking-off"
          style={{ ...s.card, borderColor: palette.error, display: 'flex', flexDirection: 'column', gap: 8 }}
        >
          <strong id={`${id}-confirm-title`} style={{ color: palette.error }}>
            {t('confirmMaskingOffTitle')}
          </strong>
          <p id={`${id}-confirm-body`} style={{ margin: 0, fontSize: 12.5 }}>
            {t('confirmMaskingOffBody')}
          </p>
          <div style={s.row}>
            <button type="button" autoFocus style={{ ...s.button, fontWeight: 600 }} onClick={() => setPending(undefined)}>
              {t('keepMasking')}
            </button>
            <button
              type="button"
              style={{ ...s.button, borderColor: palette.error, color: palette.error }}
              onClick={() => {
                const { value } = pending
                void writeConfirmed(value)
              }}
            >
              {t('confirmMaskingOff')}
            </button>
          </div>
        </div>
      )}
      {status.kind === 'saving' && <p style={s.muted}>{t('saving')}</p>}
      {status.kind === 'saved' && (
        <p role="status" style={{ ...s.hint, color: palette.success }}>
          {t('saved')}
        </p>
      )}
      {status.kind === 'refused' && (
        <p role="alert" data-testid="knowledge-refused" style={s.error}>
          {t('refused', { message: status.message })}
        </p>
      )}
    </div>
  )
}

/** In read-only mode the routes' effective value is the truth (the user layer may not be readable at all). */
function getEffective(spec: FieldSpec, section: ConfigSection | undefined, view: FieldView): unknown {
  let current: unknown = section?.effective
  for (const part of spec.path) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined
  return current ?? view.effective
}
