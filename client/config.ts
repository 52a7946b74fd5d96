/**
 * The fields of the `knowledge` settings namespace the Config tab edits, and the pure helpers that read a field's
 * inherited, overridden and effective values and turn typed text into the value a write carries. Pure: no I/O.
 * Range checks are left to the host on purpose: its schema and validator are the authority, and the page shows
 * their refusal message as it is.
 * @module dsh-knowledge-sync/client/config
 */
import type { SectionName } from './api.js'
import { stringList } from './format.js'
import { type FieldType, fieldsOf, SECTION_DECLS } from '../src/knowledge/settings/fields.js'

export type { FieldType }

/** The settings namespace the store row registers. */
export const SETTINGS_NAMESPACE = 'knowledge'

/** One editable field: its section, its path inside the section, and its control. */
export interface FieldSpec {
  section: SectionName
  path: string[]
  type: FieldType
  /** `<section>.<path>`: the i18n key suffix and the DOM test id. */
  key: string
}

/** Every field, grouped by section in display order, derived from the one declaration of each setting. */
export const SECTIONS: ReadonlyArray<{ name: SectionName; row: string; fields: FieldSpec[] }> = SECTION_DECLS.map((section) => ({
  name: section.name,
  row: section.row,
  fields: fieldsOf(section.name).map((f) => ({ section: f.section, path: f.path.split('.'), type: f.type, key: `${f.section}.${f.path}` })),
}))

/** The value at `path` inside `value`, or undefined. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const part of path) {
    if (!current || typeof current !== 'object' || Array.isArray(current)) return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

/** What the page shows for one field. */
export interface FieldView {
  /** The owning row's own value (what Reset returns to). */
  inherited: unknown
  /** The user layer's value; undefined when the field is not overridden. */
  override: unknown
  overridden: boolean
  /** The value in force. */
  effective: unknown
}

/**
 * Reads one field. `user` is the namespace's user layer as the settings scope holds it (fresher than the routes right
 * after a write; `{}` when nothing is stored), or undefined when no scope is ready; `section` is what
 * `/knowledge/config` said about the field's section.
 */
export function viewField(spec: FieldSpec, section: { inherited?: unknown; effective?: unknown; overrides?: unknown } | undefined, user: unknown): FieldView {
  const inherited = getPath(section?.inherited, spec.path)
  // Without the scope's user layer, the routes' `overrides` stand in; they are schema-resolved, so an empty list there
  // is the schema's default, not a choice.
  const fromUser = user === undefined ? getPath(section?.overrides, spec.path) : getPath(getPath(user, [spec.section]), spec.path)
  const overridden = fromUser !== undefined && fromUser !== null && !(user === undefined && Array.isArray(fromUser) && fromUser.length === 0)
  let effective: unknown = overridden ? fromUser : inherited
  // Extra patterns are additive: the row's own always apply, so the effective list is the union.
  if (spec.type === 'lines') effective = [...new Set([...stringList(inherited), ...(overridden ? stringList(fromUser) : [])])]
  return { inherited, override: overridden ? fromUser : undefined, overridden, effective }
}

/** The text a control starts from: the override when there is one, else the value in force. */
export function draftOf(spec: FieldSpec, view: FieldView): string {
  if (spec.type === 'lines') return stringList(view.override).join('\n')
  const value = view.overridden ? view.override : view.effective
  return value === undefined || value === null ? '' : String(value)
}

/** The value typed text stands for, or an error key when it is not one. */
export function parseDraft(spec: FieldSpec, text: string): { value: unknown } | { error: 'notANumber' } {
  switch (spec.type) {
    case 'number':
    case 'integer': {
      const trimmed = text.trim()
      const value = Number(trimmed)
      if (trimmed === '' || !Number.isFinite(value)) return { error: 'notANumber' }
      return { value }
    }
    case 'lines':
      return {
        value: text
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line.length > 0),
      }
    case 'boolean':
      return { value: text === 'true' }
    default:
      return { value: text }
  }
}

/** A value as one short line of text (for "Inherited: …"). */
export function formatValue(value: unknown, labels: { on: string; off: string; empty: string; none: string }): string {
  if (value === undefined || value === null) return labels.none
  if (typeof value === 'boolean') return value ? labels.on : labels.off
  if (Array.isArray(value)) return value.length ? value.map((v) => String(v)).join(', ') : labels.none
  if (value === '') return labels.empty
  return String(value)
}
