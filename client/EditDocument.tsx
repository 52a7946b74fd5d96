/**
 * Edit a note or a wiki page in place, under its header (never a captured round or a synced document: the routes
 * refuse those, and the button is not offered). The editor starts from the text below the title with links as ids,
 * remembers the revision it opened, and saves with a POST (page token); an edit made meanwhile elsewhere (the
 * agent, another tab, an editor) is refused by the routes and the editor says so, keeping the person's text so
 * nothing typed is lost. Escape closes the editor when nothing changed; with changes it asks first.
 * @module dsh-knowledge-sync/client/EditDocument
 */
import { useEffect, useRef, useState } from 'react'
import type { DocumentFile, KnowledgeApi } from './api.js'
import { ApiError } from './api.js'
import { useEscapeLayer } from './escape.js'
import type { Translate } from './i18n.js'
import { palette, s } from './styles.js'
import { type EditableView, editable, errorText, saveEdit } from './views-api.js'

/** The editor's state: what it opened, what the person typed, and (after a conflict) the text they had typed. */
type Draft = EditableView & { original: { title: string; content: string }; mine?: string }

const EDITABLE_KINDS = new Set(['note', 'page', 'preference'])

/** Whether the page offers to edit `doc` (the routes decide; this only hides a button that would be refused). */
export function offersEdit(doc: DocumentFile): boolean {
  const status = doc.meta?.status
  return EDITABLE_KINDS.has(String(doc.meta?.kind)) && status !== 'retired' && status !== 'superseded' && !doc.body.includes('<!-- upstream:start')
}

/**
 * The document whose edit was just saved: the document view reloads (and this component with it), so the new one
 * takes the focus back onto Edit and says it was saved, instead of dropping focus to the page body.
 */
let justSaved: string | undefined

export function EditDocument({ api, doc, t, onSaved }: { api: KnowledgeApi; doc: DocumentFile; t: Translate; onSaved: () => void }) {
  const [draft, setDraft] = useState<Draft | undefined>()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<{ text: string; conflict: boolean } | undefined>()
  const [discarding, setDiscarding] = useState(false)
  const [saved, setSaved] = useState(false)
  const editButton = useRef<HTMLButtonElement>(null)
  const titleField = useRef<HTMLInputElement>(null)
  const keepButton = useRef<HTMLButtonElement>(null)
  const refocus = useRef(false)
  const open = draft !== undefined
  const dirty = !!draft && (draft.title !== draft.original.title || draft.content !== draft.original.content)

  useEffect(() => {
    if (open) titleField.current?.focus()
    else if (refocus.current) {
      refocus.current = false
      editButton.current?.focus()
    }
  }, [open])
  useEffect(() => {
    if (discarding) keepButton.current?.focus()
  }, [discarding])
  useEffect(() => {
    if (justSaved !== doc.id) return
    justSaved = undefined
    setSaved(true)
    editButton.current?.focus()
  }, [doc.id])

  const close = () => {
    refocus.current = true
    setDraft(undefined)
    setDiscarding(false)
    setFailure(undefined)
  }
  useEscapeLayer(open, () => (dirty ? setDiscarding(true) : close()))

  /** Opens the editor on the newest text; `mine` (after a conflict) is the person's own text, shown beside it. */
  const start = async (mine?: string) => {
    setBusy(true)
    setFailure(undefined)
    setSaved(false)
    try {
      const got = await editable(api, doc.id)
      setDraft({ ...got, original: { title: got.title, content: got.content }, ...(mine !== undefined ? { mine } : {}) })
    } catch (e) {
      setFailure({ text: errorText(e, t), conflict: false })
    } finally {
      setBusy(false)
    }
  }
  const save = async () => {
    if (!draft) return
    setBusy(true)
    setFailure(undefined)
    try {
      await saveEdit(api, doc.id, { version: draft.version, title: draft.title, content: draft.content })
      refocus.current = true
      justSaved = doc.id
      setDraft(undefined)
      setSaved(true)
      onSaved()
    } catch (e) {
      setFailure({ text: errorText(e, t), conflict: e instanceof ApiError && e.status === 409 })
    } finally {
      setBusy(false)
    }
  }

  if (!open)
    return (
      <div style={s.row}>
        <button ref={editButton} type="button" data-testid="knowledge-edit" style={s.button} disabled={busy} onClick={() => void start()}>
          {t('editDocument')}
        </button>
        {saved && (
          <span role="status" style={{ ...s.hint, color: palette.success }}>
            {t('editSaved')}
          </span>
        )}
        {failure && (
          <span role="alert" style={s.error}>
            {failure.text}
          </span>
        )}
      </div>
    )
  const mine = draft.mine
  return (
    <form
      data-testid="knowledge-editor"
      aria-label={t('editorLabel', { title: draft.original.title })}
      style={{ ...s.card, display: 'flex', flexDirection: 'column', gap: 8 }}
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      <label htmlFor="knowledge-edit-title" style={{ fontWeight: 500 }}>
        {t('editTitle')}
      </label>
      <input id="knowledge-edit-title" ref={titleField} value={draft.title} maxLength={200} style={s.input} onChange={(e) => setDraft({ ...draft, title: e.target.value })} />
      <label htmlFor="knowledge-edit-content" style={{ fontWeight: 500 }}>
        {t('editContent')}
      </label>
      <textarea
        id="knowledge-edit-content"
        data-testid="knowledge-edit-content"
        rows={14}
        value={draft.content}
        spellCheck
        onChange={(e) => setDraft({ ...draft, content: e.target.value })}
        style={{ ...s.input, ...s.mono, width: '100%', boxSizing: 'border-box', resize: 'vertical' }}
      />
      <p style={s.hint}>{t(draft.as === 'page' ? 'editHintPage' : 'editHintNote')}</p>
      {mine !== undefined && (
        <details data-testid="knowledge-edit-mine" open>
          <summary style={s.hint}>{t('editYourText')}</summary>
          <pre style={{ ...s.mono, whiteSpace: 'pre-wrap', margin: 0 }}>{mine}</pre>
        </details>
      )}
      <div style={s.row}>
        <button type="submit" data-testid="knowledge-edit-save" disabled={busy || !dirty || !draft.title.trim() || !draft.content.trim()} style={{ ...s.button, fontWeight: 600 }}>
          {t('save')}
        </button>
        <button type="button" style={s.button} onClick={() => (dirty ? setDiscarding(true) : close())}>
          {t('cancel')}
        </button>
        {dirty && <span style={{ ...s.hint, color: palette.warn }}>{t('unsaved')}</span>}
      </div>
      {discarding && (
        <div role="alertdialog" aria-labelledby="knowledge-edit-discard" style={{ ...s.row, ...s.card, borderColor: palette.warn }}>
          <span id="knowledge-edit-discard">{t('editDiscardAsk')}</span>
          <button ref={keepButton} type="button" style={{ ...s.button, fontWeight: 600 }} onClick={() => setDiscarding(false)}>
            {t('editKeep')}
          </button>
          <button type="button" data-testid="knowledge-edit-discard" style={s.button} onClick={close}>
            {t('editDiscard')}
          </button>
        </div>
      )}
      {failure && (
        <div role="alert" data-testid="knowledge-edit-failure" style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
          <p style={s.error}>{failure.conflict ? t('editConflict') : failure.text}</p>
          {failure.conflict && (
            <div>
              <button type="button" data-testid="knowledge-edit-reload" style={s.button} onClick={() => void start(draft.content)}>
                {t('editReload')}
              </button>
            </div>
          )}
        </div>
      )}
    </form>
  )
}
