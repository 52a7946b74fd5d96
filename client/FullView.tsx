/**
 * The Knowledge documents, full size. dsh web rc.8 lets a plugin add to two root-scoped list slots: `shell.overlay`
 * (ui-layout AppFrame, a frame-wide layer) and `sidebar.footer.action` (ui-sidebar, beside Settings). The overlay
 * entry draws nothing until the view is opened, from the section's "Open full size" button or the sidebar action;
 * then it covers the window with the same DocumentsTab (its search and open document carry over: both keep them in
 * the tab's sessionStorage). It is portalled to `<body>` above Settings' own modal layer (z-index 1000), so Settings
 * stays open underneath. Escape goes back one level (a document to the list, then the view closes back to where it
 * was opened), and focus stays inside while it is open.
 * @module dsh-knowledge-sync/client/FullView
 */
import { useEffect, useMemo, useRef, useSyncExternalStore, type CSSProperties } from 'react'
import { DesktopContext } from './desktop.js'
import { createPortal } from 'react-dom'
import { DocumentsTab } from './DocumentsTab.js'
import type { KnowledgeHost } from './host.js'
import { translator, type Lang } from './i18n.js'
import { MaskingWarning } from './MaskingWarning.js'
import { palette, s } from './styles.js'

/** Above dsh's Settings modal layer (ui-settings-general SettingsRoot.module.css `.overlay`, z-index 1000). */
const Z_INDEX = 1100

const panelStyle: CSSProperties = {
  position: 'fixed',
  inset: 0,
  zIndex: Z_INDEX,
  display: 'flex',
  flexDirection: 'column',
  background: 'var(--dsw-alias-bg-layer-2, Canvas)',
  color: palette.text,
  fontSize: 13,
}

function useLang(host: KnowledgeHost): Lang {
  return useSyncExternalStore(
    (l) => host.locale.subscribe(l),
    () => host.locale.get(),
  )
}

/** The `shell.overlay` entry: nothing while closed; the full-size view, portalled to `<body>`, while open. */
export function KnowledgeFullView({ host }: { host: KnowledgeHost }) {
  const open = useSyncExternalStore(host.full.subscribe, host.full.isOpen)
  if (!open || typeof document === 'undefined') return null
  return createPortal(
    <DesktopContext.Provider value={host.desktop}>
      <FullPanel host={host} />
    </DesktopContext.Provider>,
    document.body,
  )
}

function FullPanel({ host }: { host: KnowledgeHost }) {
  const lang = useLang(host)
  const t = useMemo(() => translator(lang), [lang])
  const panel = useRef<HTMLDivElement>(null)
  const closeButton = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    // On document, capturing: after an open document's own handler (window, capturing; it stops the event to go
    // back to the list), before Settings' document-level Escape, which must not close Settings underneath.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return
      e.preventDefault()
      e.stopImmediatePropagation()
      host.full.hide()
    }
    const onFocus = (e: FocusEvent) => {
      // Closed already (focus is going back to the opener before this panel unmounts): let it go.
      if (!host.full.isOpen()) return
      if (panel.current && e.target instanceof Node && !panel.current.contains(e.target)) closeButton.current?.focus()
    }
    document.addEventListener('keydown', onKey, true)
    document.addEventListener('focusin', onFocus)
    // An open document has put focus on its Back button already; else the panel takes it (so `/`, j, k work).
    if (!panel.current?.contains(document.activeElement)) panel.current?.focus()
    return () => {
      document.removeEventListener('keydown', onKey, true)
      document.removeEventListener('focusin', onFocus)
    }
  }, [host])

  return (
    <div ref={panel} role="dialog" aria-modal="true" aria-labelledby="knowledge-full-title" tabIndex={-1} data-testid="knowledge-full" lang={lang === 'zh' ? 'zh-CN' : 'en'} style={panelStyle}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 12, padding: '10px 24px', borderBottom: `1px solid ${palette.border}` }}>
        <h2 id="knowledge-full-title" style={{ ...s.heading, fontSize: 16, flex: 1 }}>
          {t('title')}
        </h2>
        <button ref={closeButton} type="button" data-testid="knowledge-full-close" title={t('closeFullHint')} style={s.button} onClick={() => host.full.hide()}>
          {t('closeFull')}
        </button>
      </div>
      <div data-testid="knowledge-full-body" style={{ flex: 1, overflow: 'auto', padding: '10px 24px 24px' }}>
        <div style={{ display: 'flex', flexDirection: 'column', gap: 10, maxWidth: 1280, margin: '0 auto' }}>
          <MaskingWarning host={host} t={t} />
          <DocumentsTab api={host.api} t={t} lang={lang} active />
        </div>
      </div>
    </div>
  )
}

/** The `sidebar.footer.action` entry: opens the full-size view (an icon alone on the narrow rail). */
export function KnowledgeSidebarAction({ host, wide }: { host: KnowledgeHost; wide?: boolean }) {
  const lang = useLang(host)
  const t = useMemo(() => translator(lang), [lang])
  return (
    <button
      type="button"
      data-testid="knowledge-sidebar-open"
      aria-label={t('openFullSidebar')}
      title={t('openFullSidebar')}
      onClick={(e) => host.full.show(e.currentTarget)}
      style={{
        display: 'flex',
        alignItems: 'center',
        justifyContent: wide === false ? 'center' : 'flex-start',
        gap: 8,
        width: '100%',
        padding: wide === false ? '8px 0' : '8px 12px',
        border: 0,
        borderRadius: 8,
        background: 'transparent',
        color: palette.text,
        font: 'inherit',
        fontSize: 14,
        cursor: 'pointer',
      }}
    >
      <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.3">
        <path d="M2.5 3.2c1.8-.6 3.7-.4 5.5.8v9.3c-1.8-1.2-3.7-1.4-5.5-.8z" />
        <path d="M13.5 3.2c-1.8-.6-3.7-.4-5.5.8v9.3c1.8-1.2 3.7-1.4 5.5-.8z" />
      </svg>
      {wide !== false && <span>{t('nav')}</span>}
    </button>
  )
}
