/**
 * The browser module of dsh-knowledge-sync, loaded by dsh web for the bare-name `knowledge-client` row: a
 * "Knowledge" page in Settings (the `settings.section` slot) with a Documents tab and a Config tab.
 *
 * Never break dsh: the module requires only `slots` (a plugin that never activates fails the whole web boot); the
 * locale and settings services are optional and reached through `ctx.inject`, so without them the page still
 * renders, in the browser's language and with read-only config. `apply` cannot throw: a failure is logged and the
 * page is simply absent.
 * @module dsh-knowledge-sync/client
 */
import type { ClientContext, ConnectionHandle, SettingsScopeBinder } from './dsh.js'
import { SETTINGS_NAMESPACE } from './config.js'
import { KnowledgeHost, SETTINGS_TIMEOUT_MS } from './host.js'
import { KnowledgeSection } from './KnowledgeSection.js'
import { KnowledgeFullView, KnowledgeSidebarAction } from './FullView.js'
import { KnowledgeSearchRow, SEARCH_TOOL } from './SearchRow.js'
import { KnowledgeRoundMarker } from './RoundMarker.js'

/** Services the module needs before `apply`: only the slot registry. */
export const inject = ['slots']

/** The section's id in the Settings navigation, and its position (after General, Models, Plugins, Agent presets). */
export const SECTION_ID = 'knowledge'
export const SECTION_ORDER = 30

/** Registers the Knowledge page and links it to the optional locale and settings services. */
export function apply(ctx: ClientContext): void {
  try {
    const host = new KnowledgeHost()

    ctx.inject(['locale'], (scoped) => {
      const locale = scoped.locale
      if (!locale) return
      scoped.effect(() => {
        const detach = host.locale.follow(() => locale.getLocale().active)
        const off = locale.subscribe(() => host.locale.changed())
        return () => {
          off()
          detach()
        }
      }, 'knowledge page: follow the dsh locale')
    })

    ctx.inject(['settingsScope', 'connection'], (scoped) => {
      const binder = scoped.settingsScope as SettingsScopeBinder | undefined
      if (!binder) return
      const scope = binder.bind<unknown>({ namespace: SETTINGS_NAMESPACE })
      let describe
      try {
        describe = binder.describe()
      } catch {
        describe = undefined
      }
      const connection = scoped.get('connection') as ConnectionHandle | undefined
      scoped.effect(() => host.attach(scope, describe, connection), 'knowledge page: settings scope')
    })

    // Opening a document's file (the Host's default application) and its session (dsh web's session list): optional
    // services, each attached when it arrives; the page shows those actions only while they can work.
    ctx.inject(['workspaces'], (scoped) => {
      const workspaces = scoped.workspaces
      if (workspaces) scoped.effect(() => host.desktop.attachWorkspaces(workspaces), 'knowledge page: open files')
    })
    ctx.inject(['sessions'], (scoped) => {
      const sessions = scoped.sessions
      if (sessions) scoped.effect(() => host.desktop.attachSessions(sessions), 'knowledge page: open sessions')
    })
    ctx.inject(['connection'], (scoped) => {
      const connection = scoped.get('connection') as ConnectionHandle | undefined
      if (connection) scoped.effect(() => host.desktop.attachConnection(connection), 'knowledge page: host description')
    })
    ctx.effect(() => host.desktop.onLeave(() => host.full.hide()), 'knowledge page: a session opened from the full view')

    // A scope that never leaves `loading` (no settings provider) must not leave the page waiting for ever.
    ctx.effect(() => {
      const timer = setTimeout(() => host.expire(), SETTINGS_TIMEOUT_MS)
      return () => clearTimeout(timer)
    }, 'knowledge page: settings timeout')

    ctx.slots.inject('settings.section', () =>
      ctx.slots.register(
        {
          name: 'settings.section',
          id: SECTION_ID,
          order: SECTION_ORDER,
          // A thunk: the shell re-reads it whenever dsh's locale moves.
          label: () => host.locale.t('nav'),
          inject: () => ({ host }),
        },
        KnowledgeSection,
      ),
    )

    // The full-size documents view: an entry of dsh web's frame-wide overlay layer (drawn only while open), and an
    // action beside Settings at the sidebar's foot that opens it. Both are root-scoped list slots (rc.8: ui-layout
    // `shell.overlay`, ui-sidebar `sidebar.footer.action`); a shell without them simply never calls these.
    ctx.slots.inject('shell.overlay', () => ctx.slots.register({ name: 'shell.overlay', id: 'knowledge-full-view', order: 100, inject: () => ({ host }) }, KnowledgeFullView))
    ctx.slots.inject('sidebar.footer.action', () =>
      ctx.slots.register({ name: 'sidebar.footer.action', id: 'knowledge-full-view', order: 100, label: () => host.locale.t('openFullSidebar'), inject: () => ({ host }) }, KnowledgeSidebarAction),
    )

    // knowledge_search's chat row, whose hits open the full-size view: the keyed, session-scoped `tool.call.toolview`
    // slot (rc.8 ui-tool contract/slots.ts; ToolCallTree.tsx falls back to GenericToolCard for an unclaimed key, and
    // ui-skill claims `skill` the same way). A key someone else holds stays theirs: the row then is dsh's own.
    ctx.slots.inject('tool.call.toolview', () => {
      try {
        return ctx.slots.register({ name: 'tool.call.toolview', key: SEARCH_TOOL, inject: () => ({ host }) }, KnowledgeSearchRow)
      } catch (error) {
        console.error('dsh-knowledge-sync: the knowledge_search chat row could not be registered', error)
        return () => {}
      }
    })

    // The kept/dropped marker of each finished round (./RoundMarker.tsx): an entry of the list-kind, session-scoped
    // `conversation.chat.assistant-actions` slot (rc.8 ui-conversation contract/slots.ts), where every entry is drawn.
    registerRoundMarker(ctx, host)
  } catch (error) {
    console.error('dsh-knowledge-sync: the Knowledge page could not be registered', error)
  }
}

/** Registers the chat's kept/dropped marker under each finished answer. */
export function registerRoundMarker(ctx: ClientContext, host: KnowledgeHost): void {
  ctx.slots.inject('conversation.chat.assistant-actions', () => {
    try {
      return ctx.slots.register({ name: 'conversation.chat.assistant-actions', id: 'knowledge-round', order: 100, inject: () => ({ host }) }, KnowledgeRoundMarker)
    } catch (error) {
      console.error('dsh-knowledge-sync: the round marker could not be registered', error)
      return () => {}
    }
  })
}
