/**
 * One document: its front matter as a compact header (kind, status, created, workspace, session, tools, tags,
 * salience score and reasons, how many values were masked, the file), its computed relations as in-page links
 * ("Superseded by", "Supersedes", "Linked from"), retire (with a reason) and restore, over its body rendered as safe
 * Markdown. Retire and restore are POSTs through {@link KnowledgeApi.post} (per-page token).
 * @module dsh-knowledge-sync/client/DocumentView
 */
import { type CSSProperties, useEffect, useRef, useState, type ReactNode } from 'react'
import type { DocumentFile, KnowledgeApi } from './api.js'
import { type DocumentLink, type SourceRow, UPSTREAM_START_LINE } from '../src/wire.js'
import { useEscapeLayer } from './escape.js'
import { FileActions, SessionCell } from './DocumentActions.js'
import { formatDate, stringList } from './format.js'
import { HistoryPanel } from './HistoryPanel.js'
import type { Lang, MessageKey, Translate } from './i18n.js'
import { ownErrorText } from './views-api.js'
import { Markdown } from './markdown.js'
import { moveFocus } from './roving.js'
import { StatusActions } from './StatusActions.js'
import { EditDocument, offersEdit } from './EditDocument.js'
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
  // The text is kept with the id it was read for: after a link moves `id` on, the previous document is not shown
  // (nor its actions wired) under the new id while the effect below has not cleared it yet.
  const [loaded, setLoaded] = useState<{ id: string; doc: DocumentFile } | undefined>()
  const doc = loaded?.id === id ? loaded.doc : undefined
  const [error, setError] = useState<string | undefined>()
  const [reload, setReload] = useState(0)
  const back = useRef<HTMLButtonElement>(null)

  // Escape goes back one level, to the list, instead of closing the whole Settings dialog; focus starts on Back.
  useEffect(() => {
    back.current?.focus()
  }, [])
  useEscapeLayer(true, onBack)

  // A synced document: when each section last synced, from the Sources route (absent without the sync row).
  const [sources, setSources] = useState<SourceRow[] | undefined>()
  const hasSections = doc ? doc.body.split('\n').some((line) => UPSTREAM_START_LINE.test(line)) : false
  useEffect(() => {
    if (!hasSections) return
    const abort = new AbortController()
    api.sources(abort.signal).then(
      (view) => setSources(view.available ? view.sources : []),
      () => setSources([]),
    )
    return () => abort.abort()
  }, [api, hasSections])

  useEffect(() => {
    const abort = new AbortController()
    setLoaded(undefined)
    setError(undefined)
    api.document(id, abort.signal).then(
      (next) => setLoaded({ id, doc: next }),
      (e: Error) => {
        if (e.name !== 'AbortError') setError(ownErrorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, id, reload])

  return (
    <article data-testid="knowledge-document" data-id={id} style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div style={s.row}>
        <button ref={back} type="button" style={s.button} onClick={onBack} title={t('backKeys')}>
          {t('back')}
        </button>
        <FileActions id={id} doc={doc} t={t} />
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
      {doc && offersEdit(doc) && (
        <EditDocument
          api={api}
          doc={doc}
          t={t}
          onSaved={() => {
            setReload((n) => n + 1)
            onChanged?.()
          }}
        />
      )}
      {doc && <Markdown source={withoutTitleHeading(doc.body)} onOpen={onOpen} synced={(section) => <SyncedBadge section={section} path={doc.path} sources={sources} t={t} lang={lang} />} />}
      {doc && <HistoryPanel key={`${doc.id}@${doc.version ?? 0}`} api={api} id={doc.id} t={t} lang={lang} />}
    </article>
  )
}

/** "Synced from <source>, <when>" over a synced section; the time is the section's last sync that reached the source. */
function SyncedBadge({ section, path, sources, t, lang }: { section: { name: string; source?: string }; path: string; sources?: SourceRow[]; t: Translate; lang: Lang }) {
  const norm = (p: string) => p.replace(/^\.\//, '')
  const row = sources?.find((r) => r.target && norm(r.target.file) === norm(path) && r.target.section === section.name)
  const at = row?.last && (row.last.status === 'changed' || row.last.status === 'unchanged') ? row.last.at : undefined
  const from = section.source ?? row?.source ?? '?'
  const link = /^https?:\/\//i.test(from) ? (
    <a href={from} target="_blank" rel="noopener noreferrer" style={{ color: palette.link }}>
      {from}
    </a>
  ) : (
    <span style={s.mono}>{from}</span>
  )
  return (
    <p data-testid="knowledge-synced-badge" style={{ ...s.muted, display: 'flex', gap: 6, flexWrap: 'wrap', alignItems: 'baseline' }}>
      <span style={{ ...s.badge('kind') }}>{t('syncedBadge')}</span>
      <span>
        {t('syncedFrom')} {link}
        {at ? `, ${formatDate(at, lang)}` : ''}
      </span>
    </p>
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
  if (doc.updated)
    rows.push([
      'metaUpdated',
      <span data-testid="knowledge-doc-updated" title={doc.updated}>
        {formatDate(doc.updated, lang)}
      </span>,
    ])
  if (meta.cwd) rows.push(['metaWorkspace', <span style={s.mono}>{String(meta.cwd)}</span>])
  if (meta.session) rows.push(['metaSession', <SessionCell session={String(meta.session)} turn={meta.turn} t={t} />])
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
    <span data-testid="knowledge-status" data-status={status} style={statusBadge(status)}>
      {t(`status_${status}` as MessageKey)}
    </span>
  )
}

/**
 * A status badge never looks like a tag: superseded is dashed in the warning colour (still findable, down-ranked),
 * retired is double-ruled in the error colour (out of search); both bold.
 */
function statusBadge(status: 'superseded' | 'retired'): CSSProperties {
  const tone = status === 'retired' ? palette.error : palette.warn
  return {
    ...s.badge('off'),
    color: tone,
    borderColor: tone,
    borderStyle: status === 'retired' ? 'double' : 'dashed',
    borderWidth: status === 'retired' ? 3 : 1,
    lineHeight: status === 'retired' ? '12px' : '16px',
    fontWeight: 600,
  }
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

/**
 * A document kind in the page's language: the kind as files and the CLI write it in English, translated in Chinese. A
 * wiki page shows its page type (the first part of its id: `concept/…` → concept), the word its `kind` filter takes.
 */
export function kindLabel(kind: string, t?: Translate, id?: string): string {
  if (kind === 'page' && id?.includes('/')) return id.slice(0, id.indexOf('/'))
  const label = t?.(`kindBadge_${kind}` as MessageKey)
  return label && !label.startsWith('kindBadge_') ? label : kind
}

/** A salience reason in the page's language (`+cause` → "cause"); the raw reason stays on hover. */
export function reasonLabel(reason: string, t: Translate): string {
  const key = `reason_${reason.replace(/^[-+]/, '')}`
  const label = t(key as MessageKey)
  return `${reason.startsWith('-') ? '−' : '+'}${label === key ? reason.replace(/^[-+]/, '') : label}`
}

/**
 * A row of small badges; with `onPick`, each is a button that filters the list by it. The buttons are one tab stop
 * (a toolbar): the arrow keys, Home and End move between them.
 */
export function Badges({ values, tone, onPick, t }: { values: string[]; tone: 'tag' | 'tool'; onPick?: (value: string) => void; t?: Translate }) {
  if (!onPick)
    return (
      <span style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap' }}>
        {values.map((value) => (
          <span key={value} data-testid={`knowledge-${tone}`} style={s.badge(tone)}>
            {value}
          </span>
        ))}
      </span>
    )
  return (
    <span role="toolbar" aria-label={t?.('metaTags')} data-roving-group style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap' }}>
      {values.map((value, k) => (
        <button
          key={value}
          type="button"
          data-testid={`knowledge-${tone}`}
          tabIndex={k === 0 ? 0 : -1}
          title={t?.('filterByTag', { tag: value })}
          onClick={() => onPick(value)}
          onKeyDown={(e) => moveFocus(e, 'button')}
          style={{ ...s.badge(tone), cursor: 'pointer', background: 'transparent' }}
        >
          {value}
        </button>
      ))}
    </span>
  )
}
