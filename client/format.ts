/**
 * Small display helpers shared by the tabs: dates in the page's language, facet entries. Pure (workspace names: src/wire-workspaces.ts).
 * @module dsh-knowledge-sync/client/format
 */
import type { Lang } from './i18n.js'

/** A timestamp as a short local date and time; the raw text when it is not a date. */
export function formatDate(iso: string | undefined, lang: Lang): string {
  if (!iso) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return date.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

/** Entries of a facet count map, most frequent first, then by name. */
export function facetEntries(counts: Record<string, number> | undefined, selected?: string): Array<[string, number]> {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  // The selected value stays listed even when the other filters leave it no documents.
  if (selected && !entries.some(([name]) => name === selected)) entries.unshift([selected, 0])
  return entries
}

/** A list of strings out of a front-matter value that should be one. */
export function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String)
  if (typeof value === 'string' && value) return [value]
  return []
}
