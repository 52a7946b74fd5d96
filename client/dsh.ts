/**
 * The slice of the dsh web client (0.1.0-rc.8) this module touches, declared locally: the client packages are not
 * dependencies of the bundle (only `slots` is required at load; everything else arrives through `ctx.inject`), and
 * declaring just what is used keeps every access optional-aware. Shapes were read from the harness source:
 * packages/client/runtime/src/client/{slots.ts,contract/settings-scope.ts}, packages/client/ui-settings/src/client,
 * packages/client/locale/src/client/index.ts.
 * @module dsh-knowledge-sync/client/dsh
 */

/** A disposer, as cordis and the slot registry return them. */
export type Dispose = () => void

/** `ctx.slots`: the slot registry service. */
export interface SlotsService {
  /** Runs `callback` (returning its disposer) while the slot is declared; re-runs on re-declaration. */
  inject(key: string, callback: () => Dispose): Dispose
  /** Registers one entry; the disposal rides the caller's fiber. */
  register(options: SlotRegisterOptions, component: unknown): Dispose
}

/** Options of one slot entry: a list entry (`settings.section`, `shell.overlay`) has an `id`, a keyed one a `key`. */
export interface SlotRegisterOptions {
  name: string
  id?: string
  /** The dispatch value of a keyed slot (`tool.call.toolview`: the wire tool name). */
  key?: string
  order?: number
  /** A thunk is re-read whenever the shell re-projects its rows (the locale revision is part of its cache key). */
  label?: string | (() => string)
  /** The entry's business face, called once per entry; its members arrive as component props. */
  inject?: () => Record<string, unknown>
}

/** Owner props the Settings shell passes to a section (`SettingsSectionOwnerProps`). */
export interface SectionOwnerProps {
  close?: () => void
}

/** `SettingsScopeSnapshot` of `@deepseek-ai/dsh-client-runtime/client`. */
export interface SettingsScopeSnapshot<T> {
  status: 'loading' | 'ready' | 'unavailable'
  value: T | undefined
  base: unknown
  user: unknown
  revision: number | undefined
  writable: boolean
  mode: 'host' | 'memory'
}

/** `SettingsScope` of `@deepseek-ai/dsh-client-runtime/client` (methods must be called on the scope: never detach them). */
export interface SettingsScope<T> {
  getSnapshot(): SettingsScopeSnapshot<T>
  subscribe(listener: () => void): Dispose
  set(field: string, value: unknown): Promise<void>
  unset(field: string): Promise<void>
}

/** One namespace as `settings.describe` / `settings.mutate` answer it (`SettingsNamespaceView`). */
export interface SettingsNamespaceView {
  ns: string
  value: unknown
  base?: unknown
  user?: unknown
  revision: number
}

/** The shared describe mirror face (`ctx.settingsScope.describe()`). */
export interface SettingsDescribeFace {
  acceptView(view: SettingsNamespaceView): void
}

/** `ctx.settingsScope` (`SettingsScopeBinder` of `@deepseek-ai/dsh-client-ui-settings`). */
export interface SettingsScopeBinder {
  bind<T>(spec: { namespace: string }): SettingsScope<T>
  describe(): SettingsDescribeFace
}

/** One settings path edit (`SettingsPathOp`): paths may be nested, e.g. `['capture', 'salience', 'minScore']`. */
export type SettingsPathOp = { op: 'set'; path: string[]; value: unknown } | { op: 'unset'; path: string[] }

/** An RPC answer of the dsh API client. */
export interface RpcAnswer<T> {
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }
}

/** `ctx.get('connection')`: the wire handle (`ConnectionHandle`): settings writes, loopback, the Host description. */
export interface ConnectionHandle {
  isLoopback?: boolean
  api?: { settings?: { mutate(payload: { ns: string; ops: SettingsPathOp[]; expectedRevision?: number }): Promise<RpcAnswer<SettingsNamespaceView>> } }
  /** `HostDescriptionSource` (packages/client/connection/src/client/index.ts): `canOpenPath` is the native opener. */
  hostDescription?: { getSnapshot(): { canOpenPath?: boolean; home?: string } | undefined; subscribe(listener: () => void): Dispose }
}

/** `ctx.workspaces` (`IWorkspaces`, runtime contract/workspaces.ts), of which only the native opener is used. */
export interface WorkspacesService {
  /** Opens a path with the Host operating system's default application; rejects with the Host's reason. */
  openPath(path: string): Promise<void>
}

/** `ctx.sessions` (`ISessions`, runtime contract/sessions.ts): the session list and selecting one of it. */
export interface SessionsService {
  list: { getSnapshot(): { byId: Record<string, unknown> }; subscribe(listener: () => void): Dispose }
  /** Selects a session as current; the id must be in the list (unknown ids fail loud). */
  open(id: string): void
}

/** `ctx.locale` (`LocaleRuntime` of `@deepseek-ai/dsh-client-locale`). */
export interface LocaleService {
  getLocale(): { active: string }
  subscribe(listener: () => void): Dispose
}

/** The cordis client context, as far as this module uses it. */
export interface ClientContext {
  slots: SlotsService
  inject(deps: string[], callback: (ctx: ClientContext) => void): unknown
  effect(execute: () => Dispose | undefined, label?: string): unknown
  get(name: string): unknown
  settingsScope?: SettingsScopeBinder
  locale?: LocaleService
  workspaces?: WorkspacesService
  sessions?: SessionsService
}
