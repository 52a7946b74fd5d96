/**
 * One document, read-only: its front matter as a compact header (kind, created, workspace, session, tools, tags,
 * salience score and reasons, how many values were masked, the file) over its body rendered as safe Markdown.
 * @module dsh-knowledge-sync/client/DocumentView
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { DocumentFile, KnowledgeApi } from './api.js'
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
}

/** The document page, with a way back to the list. */
export function DocumentView({ api, id, t, lang, onBack }: DocumentViewProps) {
  const [doc, setDoc] = useState<DocumentFile | undefined>()
  const [error, setError] = useState<string | undefined>()

  useEffect(() => {
    const abort = new AbortController()
    setDoc(undefined)
    setError(undefined)
    api.document(id, abort.signal).then(setDoc, (e: Error) => { if (e.name !== 'AbortError') setError(e.message) })
    return () => abort.abort()
  }, [api, id])

  return (
    <article data-testid="knowledge-document" data-id={id} style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div style={s.row}>
        <button type="button" style={s.button} onClick={onBack}>{t('back')}</button>
      </div>
      {error && <p role="alert" style={s.error}>{t('notFound', { message: error })}</p>}
      {!doc && !error && <p style={s.muted}>{t('loading')}</p>}
      {doc && <FrontMatterHeader doc={doc} t={t} lang={lang} />}
      {doc && <Markdown source={doc.body} />}
    </article>
  )
}

function FrontMatterHeader({ doc, t, lang }: { doc: DocumentFile; t: Translate; lang: Lang }) {
  const meta = doc.meta ?? {}
  const rows: Array<[MessageKey, ReactNode]> = []
  const kind = typeof meta.kind === 'string' ? meta.kind : ''
  if (kind) rows.push(['metaKind', <span style={s.badge('kind')}>{kindLabel(kind, t)}</span>])
  if (meta.created) rows.push(['metaCreated', <span title={String(meta.created)}>{formatDate(String(meta.created), lang)}</span>])
  if (meta.cwd) rows.push(['metaWorkspace', <span style={s.mono}>{String(meta.cwd)}</span>])
  if (meta.session) {
    rows.push(['metaSession', <span><span style={s.mono}>{String(meta.session)}</span>{meta.turn !== undefined ? ` · ${t('turn', { turn: meta.turn })}` : ''}</span>])
  }
  const tools = stringList(meta.tools)
  rows.push(['metaTools', tools.length ? <Badges values={tools} tone="tool" /> : <span style={s.muted}>{t('none')}</span>])
  const tags = stringList(meta.tags)
  rows.push(['metaTags', tags.length ? <Badges values={tags} tone="tag" /> : <span style={s.muted}>{t('none')}</span>])
  if (meta.salience && typeof meta.salience === 'object') {
    const reasons = stringList(meta.salience.reasons)
    rows.push(['metaSalience', (
      <span data-testid="knowledge-salience">
        {t('salienceScore', { score: meta.salience.score ?? '?' })}
        {reasons.length ? <span style={{ ...s.mono, color: palette.tertiary }}>{`  ${reasons.join(' ')}`}</span> : null}
      </span>
    )])
  }
  if (typeof meta.redacted === 'number') rows.push(['metaRedacted', <span data-testid="knowledge-redacted">{t('redactedCount', { count: meta.redacted })}</span>])
  rows.push(['metaFile', <span style={s.mono}>{doc.path}{doc.version ? <span data-testid="knowledge-doc-version">{` · v:${doc.version}`}</span> : null}</span>])
  return (
    <dl data-testid="knowledge-front-matter" style={{ ...s.card, margin: 0, display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 14px', fontSize: 12.5 }}>
      {rows.map(([label, value]) => (
        <div key={label} style={{ display: 'contents' }}>
          <dt style={{ color: palette.tertiary }}>{t(label)}</dt>
          <dd style={{ margin: 0, minWidth: 0, overflowWrap: 'anywhere' }}>{value}</dd>
        </div>
      ))}
    </dl>
  )
}

/** The translated name of a document kind (unknown kinds as they are). */
export function kindLabel(kind: string, t: Translate): string {
  return ['raw', 'note', 'distilled', 'manual'].includes(kind) ? t(`kind_${kind}` as MessageKey) : kind
}

/** A row of small badges. */
export function Badges({ values, tone }: { values: string[]; tone: 'tag' | 'tool' }) {
  return (
    <span style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap' }}>
      {values.map((value) => <span key={value} data-testid={`knowledge-${tone}`} style={s.badge(tone)}>{value}</span>)}
    </span>
  )
}
