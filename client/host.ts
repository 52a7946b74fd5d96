/**
 * The page's link to the dsh client: the active language, the routes, and the live settings of the `knowledge`
 * namespace. Every dsh service here is optional and arrives late (through `ctx.inject`), so the page renders from
 * the first frame and degrades: without a settings scope that becomes ready within a few seconds, the Config tab
 * says live settings are unavailable and shows the rows' effective config read-only.
 *
 * Writes go through the client's own settings API (`connection.api.settings.mutate`, path ops such as
 * `['capture', 'salience', 'minScore']`) rather than `scope.set`: `scope.set` only addresses top-level fields and
 * swallows a refusal (it reloads and resolves), while the page must show the host's refusal message. A successful
 * answer is folded into the shared describe mirror exactly as `scope.set` does, so every bound scope sees it.
 * @module dsh-knowledge-sync/client/host
 */
import { KnowledgeApi } from './api.js'
import { SETTINGS_NAMESPACE } from './config.js'
import type { ConnectionHandle, SettingsDescribeFace, SettingsPathOp, SettingsScope } from './dsh.js'
import { DesktopLink } from './desktop.js'
import { FullViewSwitch } from './full-view.js'
import { LocaleSource } from './i18n.js'
import { RoundVerdicts } from './RoundMarker.js'

/** How long a settings scope may stay `loading` before the page calls live settings unavailable. */
export const SETTINGS_TIMEOUT_MS = 4000

/** What the Config tab can do. */
export interface SettingsState {
  /** `waiting`: no answer yet; `ready`: editable; `readonly`: a scope without writes; `unavailable`: none. */
  phase: 'waiting' | 'ready' | 'readonly' | 'unavailable'
  /** The namespace's user layer as the scope holds it. */
  user: unknown
  revision: number | undefined
}

/** The outcome of one write: the host's refusal, or the page's own reason (`key`, translated where it is shown). */
export type WriteResult = { ok: true } | { ok: false; message: string; key?: 'settingsUnavailable' | 'settingsRefusedValue' }

interface Attached {
  scope: SettingsScope<unknown>
  describe: SettingsDescribeFace | undefined
  connection: ConnectionHandle | undefined
}

/** One instance per plugin activation; handed to the section component through the slot's inject face. */
export class KnowledgeHost {
  readonly locale = new LocaleSource()
  readonly api: KnowledgeApi
  /** Whether the full-size documents view is open (./FullView.tsx). */
  readonly full = new FullViewSwitch()
  /** Opening a document's file and its session in dsh web (./desktop.ts says what rc.8 allows). */
  readonly desktop = new DesktopLink()
  /** Kept or dropped, per round of a session: the chat's markers (./RoundMarker.tsx). */
  readonly rounds: RoundVerdicts
  private attached: Attached | undefined
  private expired = false
  private state: SettingsState = { phase: 'waiting', user: undefined, revision: undefined }
  private readonly listeners = new Set<() => void>()

  constructor(prefix?: string) {
    this.api = new KnowledgeApi(prefix)
    this.rounds = new RoundVerdicts((session) => this.api.get(`/rounds?session=${encodeURIComponent(session)}`))
  }

  /** The settings state (a stable object until it changes). */
  getSettings = (): SettingsState => this.state

  /** Observe settings state changes. */
  subscribeSettings = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** A bound scope arrived; returns its detach. */
  attach(scope: SettingsScope<unknown>, describe: SettingsDescribeFace | undefined, connection: ConnectionHandle | undefined): () => void {
    const attached: Attached = { scope, describe, connection }
    this.attached = attached
    // Call through the scope object: its methods are not bound.
    const off = scope.subscribe(() => this.derive())
    this.derive()
    return () => {
      off()
      if (this.attached === attached) this.attached = undefined
      this.derive()
    }
  }

  /** The loading timeout passed: a scope still loading now reads as unavailable. */
  expire(): void {
    this.expired = true
    this.derive()
  }

  private derive(): void {
    let next: SettingsState
    const attached = this.attached
    if (!attached) {
      next = { phase: this.expired ? 'unavailable' : 'waiting', user: undefined, revision: undefined }
    } else {
      let snapshot
      try {
        snapshot = attached.scope.getSnapshot()
      } catch {
        snapshot = undefined
      }
      if (!snapshot || snapshot.status === 'unavailable' || (snapshot.status === 'loading' && this.expired)) {
        next = { phase: 'unavailable', user: undefined, revision: undefined }
      } else if (snapshot.status === 'loading') {
        next = { phase: 'waiting', user: undefined, revision: undefined }
      } else {
        const canWrite = snapshot.writable && snapshot.mode === 'host'
        next = { phase: canWrite ? 'ready' : 'readonly', user: snapshot.user, revision: snapshot.revision }
      }
    }
    const prev = this.state
    if (prev.phase === next.phase && prev.user === next.user && prev.revision === next.revision) return
    this.state = next
    for (const listener of [...this.listeners]) listener()
  }

  /** Sets (`value` given) or unsets (`value` undefined) one field of the namespace; resolves with the host's verdict. */
  async write(path: string[], value: unknown): Promise<WriteResult> {
    const attached = this.attached
    if (!attached || this.state.phase !== 'ready') return { ok: false, message: 'live settings are unavailable', key: 'settingsUnavailable' }
    const op: SettingsPathOp = value === undefined ? { op: 'unset', path } : { op: 'set', path, value }
    const settingsApi = attached.connection?.api?.settings
    if (typeof settingsApi?.mutate !== 'function') return this.writeThroughScope(attached.scope, path, value)
    try {
      // No expectedRevision: a path op applies to the section as it stands, so it cannot undo another field's edit.
      const answer = await settingsApi.mutate({ ns: SETTINGS_NAMESPACE, ops: [op] })
      if (!answer.result.ok) return { ok: false, message: answer.result.error.message }
      attached.describe?.acceptView(answer.result.value)
      return { ok: true }
    } catch (error) {
      return { ok: false, message: (error as Error)?.message ?? String(error) }
    }
  }

  /**
   * Fallback without the API client: `scope.set` of the whole top-level section. It cannot report the host's
   * message, so a write that did not land reads as a plain refusal.
   */
  private async writeThroughScope(scope: SettingsScope<unknown>, path: string[], value: unknown): Promise<WriteResult> {
    const [section, ...rest] = path
    const current = (scope.getSnapshot().user as Record<string, unknown> | undefined)?.[section]
    const next = withPath(current, rest, value)
    try {
      if (next === undefined) await scope.unset(section)
      else await scope.set(section, next)
    } catch (error) {
      return { ok: false, message: (error as Error)?.message ?? String(error) }
    }
    const landed = JSON.stringify(readPath(scope.getSnapshot().user, path)) === JSON.stringify(value)
    return landed ? { ok: true } : { ok: false, message: 'the settings service refused the value', key: 'settingsRefusedValue' }
  }
}

function readPath(value: unknown, path: string[]): unknown {
  let current = value
  for (const part of path) {
    if (!current || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

/** A copy of `base` with `value` at `path` (removed when undefined); undefined when nothing is left. */
function withPath(base: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value
  const out: Record<string, unknown> = base && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {}
  const [head, ...rest] = path
  const child = withPath(out[head], rest, value)
  if (child === undefined) delete out[head]
  else out[head] = child
  return Object.keys(out).length ? out : undefined
}
