/**
 * A page's fields, from the caller's `[{name, value}]` to front matter and back: known names only, the right shape
 * (a list or one string), bounded, `value: null` removes one; the store's own fields (`ingested`) are refused.
 * A request to change the id (a rename) is refused with the reason. Pure.
 * @module dsh-knowledge-sync/knowledge/wiki/page-fields
 */
import { diskKey, type PageType } from './page-types.js'

/** One requested change of a field. */
export interface FieldChange {
  name: string
  value: string | string[] | null
}

export const MAX_FIELDS = 16
export const MAX_FIELD_VALUE = 500
export const MAX_LIST = 20
export const MAX_TITLE = 200

/** Names that would move a page: refused, pages are never renamed. */
const RENAMES = new Set(['id', 'slug', 'type', 'path', 'folder'])
export const RENAME_REFUSAL =
  'pages are never renamed or moved (their id is in every link to them): create the page under its new name with knowledge_create and supersede this one with knowledge_supersede'

/** Validates `fields` as given by a model or the CLI; throws with what to fix. `title` is allowed (it is not the id). */
export function parseFieldChanges(raw: unknown): FieldChange[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw new Error('"fields" must be an array of {"name", "value"} (value null removes a field)')
  if (raw.length > MAX_FIELDS) throw new Error(`"fields": at most ${MAX_FIELDS}`)
  return raw.map((item, k) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new Error(`"fields"[${k}] must be {"name", "value"}`)
    const { name, value } = item as { name?: unknown; value?: unknown }
    if (typeof name !== 'string' || !name.trim()) throw new Error(`"fields"[${k}].name must be a field name`)
    if (RENAMES.has(name.trim())) throw new Error(`refused: "${name.trim()}" cannot be changed; ${RENAME_REFUSAL}`)
    if (value === null) return { name: name.trim(), value: null }
    if (typeof value === 'string') return { name: name.trim(), value }
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { name: name.trim(), value: value as string[] }
    throw new Error(`"fields"[${k}].value must be a string, a list of strings, or null (to remove it)`)
  })
}

/** The changes as front matter of `type`: applied over `current` (front matter of the page), with refusals. */
export function applyFieldChanges(type: PageType, current: Record<string, unknown>, changes: FieldChange[]): { fields: Record<string, unknown>; title?: string } {
  const out: Record<string, unknown> = {}
  for (const field of type.fields) {
    const key = diskKey(type, field.name)
    if (current[key] !== undefined) out[key] = current[key]
  }
  let title: string | undefined
  for (const change of changes) {
    if (change.name === 'title') {
      if (typeof change.value !== 'string' || !change.value.trim()) throw new Error('"title" must be a non-empty string (a page always has one)')
      title = oneLine(change.value, MAX_TITLE)
      continue
    }
    const field = type.fields.find((f) => f.name === change.name)
    if (!field) throw new Error(`a ${type.type} page has no field "${change.name}"; its fields: ${type.fields.map((f) => f.name).join(', ') || '(none)'}`)
    if (field.byStore) throw new Error(`"${field.name}" is set by the store, not by the caller`)
    const key = diskKey(type, field.name)
    if (change.value === null) {
      delete out[key]
      continue
    }
    if (field.list) {
      const list = (Array.isArray(change.value) ? change.value : change.value.split(',')).map((v) => oneLine(v, MAX_FIELD_VALUE)).filter(Boolean)
      if (list.length > MAX_LIST) throw new Error(`"${field.name}": at most ${MAX_LIST} values`)
      out[key] = [...new Set(list)]
    } else {
      if (Array.isArray(change.value)) throw new Error(`"${field.name}" is one string, not a list`)
      out[key] = oneLine(change.value, MAX_FIELD_VALUE)
    }
  }
  return { fields: out, ...(title !== undefined ? { title } : {}) }
}

/** A field's value as text (the index line, the CLI). */
export function fieldText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(', ')
  return value === undefined || value === null ? '' : String(value)
}

const oneLine = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length > max) throw new Error(`a value of at most ${max} characters is allowed; got ${line.length}`)
  return line
}
