/**
 * What a wiki page's id is: `<type>/<slug>` (`concept/spring-tides`), a lowercase type and a slug of lowercase ASCII
 * words, and the ids the wiki itself owns. Below every room that reads or checks pages (the wiki's writes, the
 * check's orphans), so they share one rule. Pure.
 * @module dsh-knowledge-sync/knowledge/documents/page-ids
 */

export const TYPE_NAME = /^[a-z][a-z0-9-]{0,31}$/
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const MAX_SLUG = 64

/** The living synthesis: one document at `<root>/overview.md`, id `overview`, rewritten with knowledge_rewrite. */
export const OVERVIEW_ID = 'overview'
export const OVERVIEW_PATH = 'overview.md'

/** Built-in types whose pages the index reaches (never orphans): a summary per original, answers, preferences. */
export const INDEX_REACHED_TYPES: ReadonlySet<string> = new Set(['summary', 'synthesis', 'preference'])

/** `type/slug` split, or undefined when `id` is not a page id. */
export function splitPageId(id: string): { type: string; slug: string } | undefined {
  const at = id.indexOf('/')
  if (at < 1) return undefined
  const type = id.slice(0, at)
  const slug = id.slice(at + 1)
  return TYPE_NAME.test(type) && SLUG.test(slug) ? { type, slug } : undefined
}
