/**
 * The Wiki tab: the wiki's index as a view — its overview, then every active page grouped by type (the type's
 * section heading, its description on hover, each page with its title, id, first sentence and index fields), what
 * else the base holds (counted, not listed), and the last entries of the operation log. A page opens inside the
 * tab (the document view, with Edit for a page or note); Escape or Back returns to the index with focus on the
 * page that was open. Says so plainly when the wiki row is off.
 * @module dsh-knowledge-sync/client/WikiTab
 */
import { useEffect, useRef, useState } from 'react'
import type { KnowledgeApi } from './api.js'
import { DocumentView, kindLabel } from './DocumentView.js'
import { formatDate } from './format.js'
import { type Lang, type MessageKey, type Translate, translator } from './i18n.js'
import { Markdown } from './markdown.js'
import { palette, s } from './styles.js'
import { errorText, type WikiView, wiki } from './views-api.js'

export interface WikiTabProps {
  api: KnowledgeApi
  t: Translate
  lang: Lang
  active: boolean
}

/** The Wiki tab. */
export function WikiTab({ api, t, lang, active }: WikiTabProps) {
  const [view, setView] = useState<WikiView | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [open, setOpen] = useState<string | undefined>()
  const [tick, setTick] = useState(0)
  const returnTo = useRef<string | undefined>(undefined)
  const index = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (!active || open) return
    const abort = new AbortController()
    wiki(api, abort.signal).then(
      (next) => {
        setView(next)
        setError(undefined)
      },
      (e: Error) => {
        if (e.name !== 'AbortError') setError(errorText(e, t))
      },
    )
    return () => abort.abort()
  }, [api, active, open, tick, t])

  useEffect(() => {
    if (open || !view || !returnTo.current) return
    index.current?.querySelector<HTMLElement>(`button[data-id="${CSS.escape(returnTo.current)}"]`)?.focus()
    returnTo.current = undefined
  }, [open, view])

  const openPage = (id: string) => {
    returnTo.current ??= id
    setOpen(id)
  }

  if (open) return <DocumentView api={api} id={open} t={t} lang={lang} onBack={() => setOpen(undefined)} onOpen={setOpen} onChanged={() => setTick((n) => n + 1)} />
  if (error)
    return (
      <p role="alert" data-testid="knowledge-wiki-error" style={s.error}>
        {error}
      </p>
    )
  if (!view) return <p style={s.muted}>{t('loading')}</p>
  if (!view.available)
    return (
      <p data-testid="knowledge-wiki-off" style={s.muted}>
        {t('wikiOff')}
      </p>
    )
  const others = Object.entries(view.others)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kindLabel(kind, t)}`)
    .join(' · ')
  return (
    <div ref={index} data-testid="knowledge-wiki" style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
      <p style={s.hint}>
        {t('wikiIntro', { pages: view.pages })}
        {others ? ` ${t('wikiOthers', { others })}` : ''}
      </p>
      <section data-testid="knowledge-wiki-overview" aria-labelledby="knowledge-wiki-overview-h" style={{ ...s.card, display: 'flex', flexDirection: 'column', gap: 6 }}>
        <div style={s.row}>
          <h3 id="knowledge-wiki-overview-h" style={{ margin: 0, fontSize: 14, fontWeight: 600 }}>
            {t('wikiOverview')}
          </h3>
          {view.overview && (
            <button type="button" data-id="overview" style={{ ...s.button, marginLeft: 'auto' }} onClick={() => openPage('overview')}>
              {t('openAndEdit')}
            </button>
          )}
        </div>
        {view.overview ? <Markdown source={view.overview.content} onOpen={openPage} /> : <p style={s.muted}>{t('wikiNoOverview')}</p>}
      </section>
      {view.sections.length === 0 && <p style={s.muted}>{t('wikiEmpty')}</p>}
      {view.sections.map((section) => {
        const type = view.types.find((x) => x.type === section.type)
        const headingId = `knowledge-wiki-type-${section.type}`
        return (
          <section key={section.type} data-testid="knowledge-wiki-section" data-type={section.type} aria-labelledby={headingId} style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
            <h3 id={headingId} title={type?.description} style={{ margin: 0, fontSize: 14, fontWeight: 600, display: 'flex', gap: 8, alignItems: 'baseline' }}>
              {wikiSection(section.type, section.section, t)}
              <span style={s.muted}>{section.entries.length}</span>
            </h3>
            {type?.description && <p style={s.hint}>{typeDescription(section.type, type.description, t)}</p>}
            <ul style={s.list}>
              {section.entries.map((entry) => (
                <li key={entry.id} data-testid="knowledge-wiki-entry" data-id={entry.id} style={s.item}>
                  <div style={{ ...s.row, gap: 6 }}>
                    <span style={s.badge('kind')}>{kindLabel('page', t, entry.id)}</span>
                    <button type="button" data-id={entry.id} style={{ ...s.linkButton, overflowWrap: 'anywhere' }} onClick={() => openPage(entry.id)}>
                      {entry.title}
                    </button>
                    <span style={{ ...s.mono, color: palette.tertiary }}>{entry.id}</span>
                    {entry.stale && (
                      <span data-testid="knowledge-wiki-stale" title={t('staleHint')} style={{ ...s.badge('off'), color: palette.warn, borderColor: palette.warn }}>
                        {t('stale')}
                      </span>
                    )}
                  </div>
                  {entry.summary && <span style={{ fontSize: 12.5 }}>{entry.summary}</span>}
                  {entry.fields.length > 0 && (
                    <span style={s.hint}>
                      {entry.fields.map(([name, text]) => (
                        <span key={name} style={{ marginRight: 10 }}>
                          {name}: {text}
                        </span>
                      ))}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </section>
        )
      })}
      <section data-testid="knowledge-wiki-log" aria-labelledby="knowledge-wiki-log-h" style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
        <h3 id="knowledge-wiki-log-h" style={{ margin: 0, fontSize: 14, fontWeight: 600 }}>
          {t('wikiLog')}
        </h3>
        {view.log.length === 0 && <p style={s.muted}>{t('wikiNoLog')}</p>}
        <ol style={s.list}>
          {view.log.map((entry, k) => (
            <li key={`${entry.at}-${k}`} data-testid="knowledge-wiki-log-entry" style={{ ...s.row, gap: 6, fontSize: 12.5 }}>
              <span style={s.muted} title={entry.at}>
                {formatDate(entry.at, lang)}
              </span>
              <span style={s.badge('tag')}>{entry.operation}</span>
              <span>{entry.what}</span>
              {entry.pages.map((id) => (
                <button key={id} type="button" data-id={id} style={{ ...s.linkButton, fontSize: 12.5, color: palette.link, fontWeight: 400 }} onClick={() => openPage(id)}>
                  {id}
                </button>
              ))}
            </li>
          ))}
        </ol>
      </section>
    </div>
  )
}

const english = translator('en')

/**
 * A built-in type's text in the page's language, where the row still declares the built-in's own English text; a
 * profile's own heading or description (also one that replaces a built-in) is shown as declared.
 */
function builtIn(key: string, declared: string, t: Translate): string {
  return english(key as MessageKey) === declared ? t(key as MessageKey) : declared
}
const wikiSection = (type: string, declared: string, t: Translate) => builtIn(`wikiSection_${type}`, declared, t)
const typeDescription = (type: string, declared: string, t: Translate) => builtIn(`wikiType_${type}`, declared, t)
