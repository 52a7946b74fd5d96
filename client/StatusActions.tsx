/**
 * Retire (with a reason) and restore, under a document's header. Both are POSTs through {@link KnowledgeApi.post}
 * (per-page token). Escape in the reason field first clears it, then closes the form (focus back on Retire…); the
 * form takes the focus when it opens, so focus is never lost to the page body.
 * @module dsh-knowledge-sync/client/StatusActions
 */
import { useEffect, useRef, useState } from 'react'
import type { DocumentFile, KnowledgeApi } from './api.js'
import type { StatusResult } from '../src/wire.js'
import { useEscapeLayer } from './escape.js'
import { formatDate } from './format.js'
import type { Lang, Translate } from './i18n.js'
import { s } from './styles.js'

/** Retire (with a reason) or restore; both POST through the guarded routes. */
export function StatusActions({ api, doc, t, lang, onChanged }: { api: KnowledgeApi; doc: DocumentFile; t: Translate; lang: Lang; onChanged: () => void }) {
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | undefined>()
  const retired = doc.meta?.status === 'retired'
  const retireButton = useRef<HTMLButtonElement>(null)
  const reasonField = useRef<HTMLInputElement>(null)
  /** Where focus goes after the form closes (it must not fall to the page body). */
  const refocus = useRef(false)
  useEffect(() => {
    if (asking) reasonField.current?.focus()
    else if (refocus.current) {
      refocus.current = false
      retireButton.current?.focus()
    }
  }, [asking])
  const closeForm = () => {
    refocus.current = true
    setAsking(false)
    setReason('')
  }
  // Escape: first the text goes (data-escape), then the form (focus back on Retire…); the document stays open.
  useEscapeLayer(asking && !retired, closeForm)
  const info = (doc.meta?.retired ?? {}) as { at?: string; reason?: string }
  const change = (action: 'retire' | 'restore', body: unknown) => {
    setBusy(true)
    setFailure(undefined)
    api.post<StatusResult>(`/documents/${encodeURIComponent(doc.id)}/${action}`, body).then(
      () => {
        setBusy(false)
        setAsking(false)
        setReason('')
        onChanged()
      },
      (e: Error) => {
        setBusy(false)
        setFailure(e.message)
      },
    )
  }
  return (
    <div data-testid="knowledge-status-actions" style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      {retired && (
        <p role="status" style={s.muted}>
          {t('retiredNotice', { at: info.at ? formatDate(info.at, lang) : '?', reason: info.reason ?? '' })}
        </p>
      )}
      <div style={s.row}>
        {retired ? (
          <button type="button" style={s.button} disabled={busy} onClick={() => change('restore', {})}>
            {t('restoreButton')}
          </button>
        ) : (
          !asking && (
            <button ref={retireButton} type="button" style={s.button} disabled={busy} onClick={() => setAsking(true)}>
              {t('retireButton')}
            </button>
          )
        )}
        {asking && !retired && (
          <form
            style={{ ...s.row, flex: 1 }}
            onSubmit={(e) => {
              e.preventDefault()
              if (reason.trim()) change('retire', { reason: reason.trim() })
            }}
          >
            <input
              ref={reasonField}
              aria-label={t('retireReason')}
              placeholder={t('retireReason')}
              value={reason}
              maxLength={500}
              onChange={(e) => setReason(e.target.value)}
              data-escape="clear"
              style={{ ...s.input, flex: 1 }}
            />
            <button type="submit" style={s.button} disabled={busy || !reason.trim()}>
              {t('retireConfirm')}
            </button>
            <button type="button" style={s.button} onClick={closeForm}>
              {t('retireCancel')}
            </button>
          </form>
        )}
      </div>
      {failure && (
        <p role="alert" style={s.error}>
          {t('statusFailed', { message: failure })}
        </p>
      )}
    </div>
  )
}
