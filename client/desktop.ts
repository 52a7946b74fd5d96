/**
 * What dsh web 0.1.0-rc.8 lets the page do outside itself, read from the harness source at tag dsh-v0.1.0-rc.8:
 *
 * - Open a file: `ctx.workspaces.openPath(path)` (packages/client/runtime/src/client/contract/workspaces.ts) sends
 *   `host.openPath` to the Host, which hands the path to the operating system's default application (`xdg-open`,
 *   `open`, `Invoke-Item`; packages/host/apiproxy/src/native-path-opener.ts), on the Host machine. There is no
 *   "open in editor" for an arbitrary file (the text-editor intent is reached only for the settings document), and no
 *   `vscode://` link: the page offers "Open in the default app" only where dsh's own chat offers its file chips, that
 *   is when the page is served over loopback (`connection.isLoopback`) and the Host says it can reach a desktop
 *   (`connection.hostDescription.getSnapshot().canOpenPath`, the `api-gateway` row's `nativeOpen`).
 * - Open a session: `ctx.sessions.open(id)` (contract/sessions.ts) selects a session of the list, and fails loud for
 *   an id the list does not hold; rc.8 has no URL for a session. So a document's session is a link only while
 *   `ctx.sessions.list` holds that id (a session of this dsh home), and following it also closes Settings or the
 *   full-size view, so the chat it opened is what the person sees.
 * @module dsh-knowledge-sync/client/desktop
 */
import { createContext, useContext, useSyncExternalStore } from 'react'
import type { ConnectionHandle, Dispose, SessionsService, WorkspacesService } from './dsh.js'

/** The page's reach into dsh web beyond its routes (one per plugin activation, on the host). */
export class DesktopLink {
  private workspaces: WorkspacesService | undefined
  private sessions: SessionsService | undefined
  private connection: ConnectionHandle | undefined
  private readonly leavers = new Set<() => void>()
  private readonly listeners = new Set<() => void>()
  private version = 0

  /** Changes whenever what the page can do changes (a service came or went, the host description or sessions moved). */
  getVersion = (): number => this.version

  subscribe = (listener: () => void): Dispose => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  private emit = (): void => {
    this.version++
    for (const listener of [...this.listeners]) listener()
  }

  /** `ctx.workspaces` arrived; returns its detach. */
  attachWorkspaces(workspaces: WorkspacesService): Dispose {
    this.workspaces = workspaces
    this.emit()
    return () => {
      if (this.workspaces === workspaces) this.workspaces = undefined
      this.emit()
    }
  }

  /** `ctx.sessions` arrived; returns its detach. */
  attachSessions(sessions: SessionsService): Dispose {
    this.sessions = sessions
    const off = safe(() => sessions.list.subscribe(this.emit))
    this.emit()
    return () => {
      off?.()
      if (this.sessions === sessions) this.sessions = undefined
      this.emit()
    }
  }

  /** `ctx.connection` arrived; returns its detach. */
  attachConnection(connection: ConnectionHandle): Dispose {
    this.connection = connection
    const off = safe(() => connection.hostDescription?.subscribe(this.emit))
    this.emit()
    return () => {
      off?.()
      if (this.connection === connection) this.connection = undefined
      this.emit()
    }
  }

  /** True when a file can be handed to the Host's default application (see the module comment). */
  canOpenFiles(): boolean {
    if (!this.workspaces || this.connection?.isLoopback !== true) return false
    return safe(() => this.connection?.hostDescription?.getSnapshot()?.canOpenPath) === true
  }

  /** Opens `path` (absolute) with the Host's default application; rejects with the Host's reason. */
  async openFile(path: string): Promise<void> {
    if (!this.workspaces || !this.canOpenFiles()) throw Object.assign(new Error('opening files is not available here'), { name: 'OpenUnavailable' })
    await this.workspaces.openPath(path)
  }

  /** True when dsh web's session list holds `id` (only those can be opened). */
  knowsSession(id: string): boolean {
    const byId = safe(() => this.sessions?.list.getSnapshot().byId)
    return !!byId && Object.hasOwn(byId, id)
  }

  /** Opens the session in the chat and leaves Settings or the full-size view for it. */
  openSession(id: string): boolean {
    if (!this.sessions || !this.knowsSession(id)) return false
    this.sessions.open(id)
    for (const leave of [...this.leavers]) leave()
    return true
  }

  /** Registers what closes the surface the page is drawn in (Settings, the full-size view) when a session opens. */
  onLeave(leave: () => void): Dispose {
    this.leavers.add(leave)
    return () => {
      this.leavers.delete(leave)
    }
  }
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** The host's link, for the views deep inside the page (the Settings section and the full view provide it). */
export const DesktopContext = createContext<DesktopLink | undefined>(undefined)

const noSubscribe = (): Dispose => () => {}
const noVersion = (): number => 0

/** The page's link to dsh web, re-rendering when what it can do changes; undefined outside a provider. */
export function useDesktop(): DesktopLink | undefined {
  const link = useContext(DesktopContext)
  useSyncExternalStore(link?.subscribe ?? noSubscribe, link?.getVersion ?? noVersion)
  return link
}
