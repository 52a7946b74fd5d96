/**
 * The Knowledge page of dsh's Settings: a title, two tabs (Documents, Config) in the same tab pattern as dsh's own
 * Plugins page, and an error boundary so a failure of this page stays inside it.
 * @module dsh-knowledge-sync/client/KnowledgeSection
 */
import { Component, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react'
import { DesktopContext } from './desktop.js'
import { ConfigTab } from './ConfigTab.js'
import { DocumentsTab } from './DocumentsTab.js'
import { HealthTab } from './HealthTab.js'
import { SourcesTab } from './SourcesTab.js'
import { OriginalsTab } from './OriginalsTab.js'
import { WikiTab } from './WikiTab.js'
import { MaskingWarning } from './MaskingWarning.js'
import { moveFocus } from './roving.js'
import type { KnowledgeHost } from './host.js'
import { translator } from './i18n.js'
import { s } from './styles.js'

export interface KnowledgeSectionProps {
  host: KnowledgeHost
  /** Closes Settings (the shell's owner prop): opening a document's session leaves Settings for the chat. */
  close?: () => void
}

type TabId = 'documents' | 'wiki' | 'originals' | 'sources' | 'health' | 'config'

/** The `settings.section` component. */
export function KnowledgeSection(props: KnowledgeSectionProps) {
  const { host, close } = props
  // Opening a document's session leaves Settings for the chat.
  useEffect(() => (close ? host.desktop.onLeave(close) : undefined), [host, close])
  return (
    <SectionBoundary host={host}>
      <DesktopContext.Provider value={host.desktop}>
        <SectionBody host={host} />
      </DesktopContext.Provider>
    </SectionBoundary>
  )
}

function SectionBody({ host }: { host: KnowledgeHost }) {
  const lang = useSyncExternalStore(
    (l) => host.locale.subscribe(l),
    () => host.locale.get(),
  )
  const t = useMemo(() => translator(lang), [lang])
  const [tab, setTab] = useState<TabId>('documents')
  // While the full-size view is open it has the documents; this list lets go (one poll, one set of keys, one place).
  const full = useSyncExternalStore(host.full.subscribe, host.full.isOpen)
  // A tab mounts when first shown, then stays mounted while hidden so its search and drafts survive switching.
  const [visited, setVisited] = useState<ReadonlySet<TabId>>(() => new Set<TabId>(['documents']))
  const select = (id: TabId) => {
    setTab(id)
    setVisited((prev) => (prev.has(id) ? prev : new Set([...prev, id])))
  }
  const tabs: Array<[TabId, string]> = [
    ['documents', t('tabDocuments')],
    ['wiki', t('tabWiki')],
    ['originals', t('tabOriginals')],
    ['sources', t('tabSources')],
    ['health', t('tabHealth')],
    ['config', t('tabConfig')],
  ]

  return (
    <div data-testid="knowledge-page" lang={lang === 'zh' ? 'zh-CN' : 'en'} style={s.section}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 12 }}>
        <h2 style={{ ...s.heading, flex: 1 }}>{t('title')}</h2>
        <button type="button" data-testid="knowledge-open-full" title={t('openFullHint')} style={s.button} onClick={(e) => host.full.show(e.currentTarget)}>
          {t('openFull')}
        </button>
      </div>
      {/* One line (the whole text on hover): the chrome above the list stays small in the settings dialog. */}
      <p data-testid="knowledge-intro" title={t('intro')} style={{ ...s.intro, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
        {t('intro')}
      </p>
      <MaskingWarning host={host} t={t} />
      <div role="tablist" aria-label={t('tabs')} data-roving-group style={s.tabs}>
        {tabs.map(([id, label]) => (
          <button
            key={id}
            id={`knowledge-tab-${id}`}
            type="button"
            role="tab"
            aria-selected={tab === id}
            aria-controls={`knowledge-panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            style={s.tab(tab === id)}
            onClick={() => select(id)}
            onKeyDown={(e) => {
              // Arrows, Home and End move the focus, and the selection follows it (automatic activation).
              const next = moveFocus(e, '[role=tab]')
              const nextId = next?.id.replace(/^knowledge-tab-/, '')
              if (nextId) select(nextId as typeof id)
            }}
          >
            {label}
          </button>
        ))}
      </div>
      {visited.has('documents') && (
        <div id="knowledge-panel-documents" role="tabpanel" aria-labelledby="knowledge-tab-documents" hidden={tab !== 'documents'}>
          {full ? (
            <p data-testid="knowledge-full-shown" style={s.muted}>
              {t('fullShown')}
            </p>
          ) : (
            <DocumentsTab api={host.api} t={t} lang={lang} active={tab === 'documents'} />
          )}
        </div>
      )}
      {visited.has('wiki') && (
        <div id="knowledge-panel-wiki" role="tabpanel" aria-labelledby="knowledge-tab-wiki" hidden={tab !== 'wiki'}>
          <WikiTab api={host.api} t={t} lang={lang} active={tab === 'wiki'} />
        </div>
      )}
      {visited.has('originals') && (
        <div id="knowledge-panel-originals" role="tabpanel" aria-labelledby="knowledge-tab-originals" hidden={tab !== 'originals'}>
          <OriginalsTab api={host.api} t={t} lang={lang} active={tab === 'originals'} />
        </div>
      )}
      {visited.has('health') && (
        <div id="knowledge-panel-health" role="tabpanel" aria-labelledby="knowledge-tab-health" hidden={tab !== 'health'}>
          <HealthTab api={host.api} t={t} lang={lang} active={tab === 'health'} />
        </div>
      )}
      {visited.has('sources') && (
        <div id="knowledge-panel-sources" role="tabpanel" aria-labelledby="knowledge-tab-sources" hidden={tab !== 'sources'}>
          <SourcesTab api={host.api} t={t} lang={lang} active={tab === 'sources'} />
        </div>
      )}
      {visited.has('config') && (
        <div id="knowledge-panel-config" role="tabpanel" aria-labelledby="knowledge-tab-config" hidden={tab !== 'config'}>
          <ConfigTab host={host} t={t} active={tab === 'config'} />
        </div>
      )}
    </div>
  )
}

/** Keeps a rendering failure inside the page, with its message, instead of retiring the section. */
class SectionBoundary extends Component<{ host: KnowledgeHost; children: ReactNode }, { error: Error | undefined }> {
  override state: { error: Error | undefined } = { error: undefined }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  override render() {
    if (this.state.error) {
      return (
        <div role="alert" style={{ ...s.section, gap: 8 }}>
          <p style={s.error}>{this.props.host.locale.t('crashed', { message: this.state.error.message })}</p>
          <div>
            <button type="button" style={s.button} onClick={() => this.setState({ error: undefined })}>
              {this.props.host.locale.t('refresh')}
            </button>
          </div>
        </div>
      )
    }
    return this.props.children
  }
}
