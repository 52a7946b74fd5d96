/**
 * Live settings: the `knowledge` settings namespace (edited by the page's Config tab or `$DSH_HOME/settings.yaml`)
 * holds user overrides for three sections — `redact` (this row), `capture` and `recall` (their rows). Every field is
 * optional: an unset field inherits the owning row's own config, so Reset returns a field to what the patch says.
 *
 * The store row owns the one registration; each row reads only its own section through {@link LiveSettings.effective}
 * and publishes its row config so the page can show inherited values.
 * @module dsh-knowledge-sync/knowledge/settings/settings
 */
import z from '@deepseek-ai/schemastery'
import { compileUserPatterns } from '../../redact/patterns.js'
import type { SettingsSection } from '../../wire.js'
import { type FieldDecl, fieldsOf, SECTION_DECLS } from './fields.js'

export const SETTINGS_NAMESPACE = 'knowledge'
export type { SettingsSection }

/** The user layer of the namespace: every field optional. */
export interface KnowledgeSettings {
  redact?: { enabled?: boolean; mask?: string; patterns?: string[] }
  capture?: { enabled?: boolean; salience?: { minScore?: number }; distill?: { enabled?: boolean; provider?: string; model?: string; budgetPerDay?: number } }
  recall?: { announce?: boolean; sameWorkspaceOnly?: boolean; searchLimit?: number }
}

/** The schema of one declared field; with `withDefault` (a row's Config) it carries the declared default. */
export function fieldSchema(field: FieldDecl, withDefault: boolean): z<any> {
  let schema: z<any>
  switch (field.type) {
    case 'boolean':
      schema = z.boolean()
      break
    case 'lines':
      schema = z.array(z.string())
      break
    case 'integer':
      schema = z.natural()
      break
    case 'number':
      schema = z.number()
      break
    default:
      schema = z.string()
  }
  if (field.min !== undefined) schema = schema.min(field.min)
  if (field.max !== undefined) schema = schema.max(field.max)
  if (withDefault) schema = schema.default(field.default)
  return schema.description(field.hint.en)
}

type Shape = { [key: string]: z<any> | Shape }
const isSchema = (v: unknown): v is z<any> => typeof v === 'function'

function objectOf(shape: Shape): z<any> {
  const out: Record<string, z<any>> = {}
  for (const [key, value] of Object.entries(shape)) out[key] = isSchema(value) ? value : objectOf(value)
  return z.object(out)
}

/**
 * The schema of one section: its declared fields at their dotted paths, plus a row's own non-live fields (`extra`,
 * nested the same way). Rows build their `Config` with `withDefault`; the live layer without defaults.
 */
export function sectionSchema(section: SettingsSection, withDefault: boolean, extra: Shape = {}): z<any> {
  const shape: Shape = structuredCloneShape(extra)
  for (const field of fieldsOf(section)) {
    const parts = field.path.split('.')
    let node = shape
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Shape
    node[parts[parts.length - 1]] = fieldSchema(field, withDefault)
  }
  return objectOf(shape)
}

function structuredCloneShape(shape: Shape): Shape {
  const out: Shape = {}
  for (const [key, value] of Object.entries(shape)) out[key] = isSchema(value) ? value : structuredCloneShape(value)
  return out
}

export const KnowledgeSettings: z<KnowledgeSettings> = z.object(Object.fromEntries(SECTION_DECLS.map((s) => [s.name, sectionSchema(s.name, false).description(s.label.en)]))) as z<KnowledgeSettings>

/** Refuses what the schema cannot: a custom pattern that is invalid, or that the linear-time engine cannot run or runs too slowly (named in the error). */
export function validateSettings(value: KnowledgeSettings): void {
  if (value.redact?.patterns) compileUserPatterns(value.redact.patterns)
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/** `base` with every defined leaf of `override` laid over it (arrays replace). */
export function overlay<T>(base: T, override: unknown): T {
  if (!isPlainObject(override)) return base
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined || value === null) continue
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? overlay(out[key], value) : value
  }
  return out as T
}

/** The shared live-settings hub on the store. */
export class LiveSettings {
  private source: () => KnowledgeSettings = () => ({})
  private readonly listeners = new Set<() => void>()
  private readonly rows = new Map<SettingsSection, () => unknown>()
  /** True while a settings service is attached (the page can edit). */
  attached = false

  /** Called by the store row's settings wiring. */
  setSource(source: () => KnowledgeSettings, attached: boolean): void {
    this.source = source
    this.attached = attached
  }

  /** The user overrides of one section (may be empty). */
  overrides<S extends SettingsSection>(section: S): NonNullable<KnowledgeSettings[S]> {
    try {
      return (this.source()?.[section] ?? {}) as NonNullable<KnowledgeSettings[S]>
    } catch {
      return {} as NonNullable<KnowledgeSettings[S]>
    }
  }

  /**
   * A row's config with the user's overrides of its section laid over it. `redact.patterns` is additive: the
   * page can add patterns to the row's own but never remove one, so live edits cannot weaken redaction silently.
   */
  effective<T>(section: SettingsSection, rowConfig: T): T {
    const overrides = this.overrides(section) as Record<string, unknown>
    const merged = overlay(rowConfig, overrides) as Record<string, unknown>
    if (section === 'redact') {
      const own = ((rowConfig as Record<string, unknown>).patterns as string[] | undefined) ?? []
      merged.patterns = [...new Set([...own, ...((overrides.patterns as string[] | undefined) ?? [])])]
    }
    return merged as T
  }

  /** A row announces its own config (for the page's inherited values); returns a disposer. */
  publish(section: SettingsSection, current: () => unknown): () => void {
    this.rows.set(section, current)
    return () => {
      if (this.rows.get(section) === current) this.rows.delete(section)
    }
  }

  /** Inherited (row) and effective values of every published section, for the page. */
  describe(): { attached: boolean; sections: Record<string, { inherited: unknown; effective: unknown; overrides: unknown }> } {
    const sections: Record<string, { inherited: unknown; effective: unknown; overrides: unknown }> = {}
    for (const [section, current] of this.rows) {
      const inherited = current()
      sections[section] = { inherited, effective: this.effective(section, inherited), overrides: this.overrides(section) }
    }
    return { attached: this.attached, sections }
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Announces a committed change (or an attach/detach) to every row. */
  changed(): void {
    for (const listener of this.listeners) {
      try {
        listener()
      } catch {
        /* a row's reaction must not stop the others */
      }
    }
  }
}
