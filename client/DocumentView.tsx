/**
 * One document: its front matter as a compact header (kind, status, created, workspace, session, tools, tags,
 * salience score and reasons, how many values were masked, the file), its computed relations as in-page links
 * ("Superseded by", "Supersedes", "Linked from"), retire (with a reason) and restore, over its body rendered as safe
 * Markdown. Retire and restore are POSTs through {@link KnowledgeApi.post} (per-page token).
 * @module dsh-knowledge-sync/client/DocumentView
 */
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { DocumentFile, KnowledgeApi } from './api.js'
import type { DocumentLink, StatusResult } from '../src/wire.js'
import { formatDate, stringList } from './format.js'
import type { Lang, MessageKey, Translate } from './i18n.js'
import { Markdown } from './markdown.js'
import { palette, s } from './styles.js'

export interface DocumentViewProps {
  api: KnowledgeApi
  id: string
  t: Translate
  lang: Lang
  onBack: () => void
  /** Opens another document in the page (relations are links inside the page). */
  onOpen?: (id: string) => void
  /** Filter the list by a tag (a tag badge was clicked). */
  onTag?: (tag: string) => void
  /** The document's status changed here (retired, restored): the list behind it is out of date. */
  onChanged?: () => void
}

/** The document page, with a way back to the list. */
export function DocumentView({ api, id, t, lang, onBack, onOpen, onTag, onChanged }: DocumentViewProps) {
  const [doc, setDoc] = useState<DocumentFile | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [reload, setReload] = useState(0)
  const [copied, setCopied] = useState<string | undefined>()
  const back = useRef<HTMLButtonElement>(null)

  // Escape goes back one level, to the list, instead of closing the whole Settings dialog; focus starts on Back.
  useEffect(() => {
    back.current?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return
      e.preventDefault()
      e.stopImmediatePropagation()
      onBack()
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [onBack])

  const copy = (what: 'id' | 'path', value: string) => {
    void navigator.clipboard?.writeText(value).then(
      () => setCopied(what),
      () => setCopied(undefined),
    )
  }

  useEffect(() => {
    const abort = new AbortController()
    setDoc(undefined)
    setError(undefined)
    api.document(id, abort.signal).then(setDoc, (e: Error) => {
      if (e.name !== 'AbortError') setError(e.message)
    })
    return () => abort.abort()
  }, [api, id, reload])

  return (
    <article data-testid="knowledge-document" data-id={id} style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div style={s.row}>
        <button ref={back} type="button" style={s.button} onClick={onBack} title={t('backKeys')}>
          {t('back')}
        </button>
        <span style={{ marginLeft: 'auto', display: 'inline-flex', gap: 6 }}>
          <button type="button" data-testid="knowledge-copy-id" style={s.button} onClick={() => copy('id', id)}>
            {copied === 'id' ? t('copied') : t('copyId')}
          </button>
          {doc && (
            <button type="button" data-testid="knowledge-copy-path" style={s.button} onClick={() => copy('path', doc.path)}>
              {copied === 'path' ? t('copied') : t('copyPath')}
            </button>
          )}
        </span>
      </div>
      {error && (
        <p role="alert" style={s.error}>
          {t('notFound', { message: error })}
        </p>
      )}
      {!doc && !error && <p style={s.muted}>{t('loading')}</p>}
      {doc && <FrontMatterHeader doc={doc} t={t} lang={lang} onTag={onTag} />}
      {doc && <Relations doc={doc} t={t} onOpen={onOpen} />}
      {doc && (
        <StatusActions
          api={api}
          doc={doc}
          t={t}
          lang={lang}
          onChanged={() => {
            setReload((n) => n + 1)
            onChanged?.()
          }}
        />
      )}
      {doc && <Markdown source={withoutTitleHeading(doc.body)} />}
    </article>
  )
}

/**
 * The body without its first `# heading` line: the page shows the title once, above the front matter, and the
 * heading repeats it (cut to the title's length for a captured round, whose full question follows).
 */
export function withoutTitleHeading(body: string): string {
  return body.replace(/^\s*# [^\n]*\n+/, '')
}

function FrontMatterHeader({ doc, t, lang, onTag }: { doc: DocumentFile; t: Translate; lang: Lang; onTag?: (tag: string) => void }) {
  const meta = doc.meta ?? {}
  const rows: Array<[MessageKey, ReactNode]> = []
  const kind = typeof meta.kind === 'string' ? meta.kind : ''
  const status = meta.status === 'superseded' || meta.status === 'retired' ? meta.status : undefined
  if (kind)
    rows.push([
      'metaKind',
      <span style={{ display: 'inline-flex', gap: 4 }}>
        <span style={s.badge('kind')} title={t(`kindHint_${kind}`)}>
          {kindLabel(kind, t, typeof meta.id === 'string' ? meta.id : undefined)}
        </span>
        {status && <StatusBadge status={status} t={t} />}
      </span>,
    ])
  if (meta.created) rows.push(['metaCreated', <span title={String(meta.created)}>{formatDate(String(meta.created), lang)}</span>])
  if (meta.cwd) rows.push(['metaWorkspace', <span style={s.mono}>{String(meta.cwd)}</span>])
  if (meta.session) {
    rows.push([
      'metaSession',
      <span>
        <span style={s.mono}>{String(meta.session)}</span>
        {meta.turn !== undefined ? ` · ${t('turn', { turn: meta.turn })}` : ''}
      </span>,
    ])
  }
  const tools = stringList(meta.tools)
  rows.push(['metaTools', tools.length ? <Badges values={tools} tone="tool" /> : <span style={s.muted}>{t('none')}</span>])
  const tags = stringList(meta.tags)
  rows.push(['metaTags', tags.length ? <Badges values={tags} tone="tag" onPick={onTag} t={t} /> : <span style={s.muted}>{t('none')}</span>])
  if (meta.salience && typeof meta.salience === 'object') {
    const reasons = stringList(meta.salience.reasons)
    rows.push([
      'metaSalience',
      <span data-testid="knowledge-salience">
        {t('salienceScore', { score: meta.salience.score ?? '?' })}
        {reasons.map((reason) => (
          <span key={reason} data-testid="knowledge-reason" title={reason} style={{ marginLeft: 8, color: reason.startsWith('-') ? palette.warn : palette.tertiary }}>
            {reasonLabel(reason, t)}
          </span>
        ))}
      </span>,
    ])
  }
  if (typeof meta.redacted === 'number') rows.push(['metaRedacted', <span data-testid="knowledge-redacted">{t(meta.redacted === 1 ? 'redactedOne' : 'redactedCount', { count: meta.redacted })}</span>])
  rows.push([
    'metaFile',
    <span style={s.mono}>
      {doc.path}
      {doc.version ? <span data-testid="knowledge-doc-version">{` · v:${doc.version}`}</span> : null}
    </span>,
  ])
  return (
    <>
      <h3 data-testid="knowledge-document-title" style={{ margin: 0, fontSize: 17, fontWeight: 600, overflowWrap: 'anywhere' }}>
        {String(meta.title ?? doc.id)}
      </h3>
      <dl data-testid="knowledge-front-matter" style={{ ...s.card, margin: 0, display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 14px', fontSize: 12.5 }}>
        {rows.map(([label, value]) => (
          <div key={label} style={{ display: 'contents' }}>
            <dt style={{ color: palette.tertiary }}>{t(label)}</dt>
            <dd style={{ margin: 0, minWidth: 0, overflowWrap: 'anywhere' }}>{value}</dd>
          </div>
        ))}
      </dl>
    </>
  )
}

/** A badge for a superseded or retired document (active documents carry none). */
export function StatusBadge({ status, t }: { status: string; t: Translate }) {
  if (status !== 'superseded' && status !== 'retired') return null
  return (
    <span data-testid="knowledge-status" data-status={status} style={{ ...s.badge('off'), color: status === 'retired' ? palette.error : palette.secondary }}>
      {t(`status_${status}` as MessageKey)}
    </span>
  )
}

/** Computed relations as links inside the page. */
function Relations({ doc, t, onOpen }: { doc: DocumentFile; t: Translate; onOpen?: (id: string) => void }) {
  const rows: Array<[MessageKey, DocumentLink[]]> = []
  if (doc.supersededBy) rows.push(['supersededBy', [doc.supersededBy]])
  if (doc.supersedes?.length) rows.push(['supersedesLabel', doc.supersedes])
  if (doc.linkedFrom?.length) rows.push(['linkedFrom', doc.linkedFrom])
  if (!rows.length) return null
  return (
    <div data-testid="knowledge-relations" style={{ display: 'flex', flexDirection: 'column', gap: 4, fontSize: 12.5 }}>
      {rows.map(([label, links]) => (
        <div key={label} data-testid={`knowledge-${label}`} style={{ ...s.row, gap: 6 }}>
          <span style={{ color: palette.tertiary }}>{t(label)}:</span>
          {links.map((link) => (
            <button key={link.id} type="button" data-id={link.id} style={s.linkButton} onClick={() => onOpen?.(link.id)}>
              {link.title || link.id}
              {link.status && link.status !== 'active' ? ` (${t(`status_${link.status}` as MessageKey)})` : ''}
            </button>
          ))}
        </div>
      ))}
    </div>
  )
}

/** Retire (with a reason) or restore; both POST through the guarded routes. */
function StatusActions({ api, doc, t, lang, onChanged }: { api: KnowledgeApi; doc: DocumentFile; t: Translate; lang: Lang; onChanged: () => void }) {
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | undefined>()
  const retired = doc.meta?.status === 'retired'
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
            <button type="button" style={s.button} disabled={busy} onClick={() => setAsking(true)}>
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
            <input aria-label={t('retireReason')} placeholder={t('retireReason')} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} style={{ ...s.input, flex: 1 }} />
            <button type="submit" style={s.button} disabled={busy || !reason.trim()}>
              {t('retireConfirm')}
            </button>
            <button
              type="button"
              style={s.button}
              onClick={() => {
                setAsking(false)
                setReason('')
              }}
            >
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

/**
 * A document kind as it is written in files and on the command line (one vocabulary); its meaning is on hover. A
 * wiki page shows its page type (the first part of its id: `concept/…` → concept), the word its `kind` filter takes.
 */
export function kindLabel(kind: string, _t?: Translate, id?: string): string {
  return kind === 'page' && id?.includes('/') ? id.slice(0, id.indexOf('/')) : kind
}

/** A salience reason in the page's language (`+cause` → "cause"); the raw reason stays on hover. */
export function reasonLabel(reason: string, t: Translate): string {
  const key = `reason_${reason.replace(/^[-+]/, '')}`
  const label = t(key as MessageKey)
  return `${reason.startsWith('-') ? '−' : '+'}${label === key ? reason.replace(/^[-+]/, '') : label}`
}

/** A row of small badges; with `onPick`, each is a button that filters the list by it. */
export function Badges({ values, tone, onPick, t }: { values: string[]; tone: 'tag' | 'tool'; onPick?: (value: string) => void; t?: Translate }) {
  return (
    <span style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap' }}>
      {values.map((value) =>
        onPick ? (
          <button
            key={value}
            type="button"
            data-testid={`knowledge-${tone}`}
            title={t?.('filterByTag', { tag: value })}
            onClick={() => onPick(value)}
            style={{ ...s.badge(tone), cursor: 'pointer', background: 'transparent' }}
          >
            {value}
          </button>
        ) : (
          <span key={value} data-testid={`knowledge-${tone}`} style={s.badge(tone)}>
            {value}
          </span>
        ),
      )}
    </span>
  )
}
