/**
 * Wiki page types: what each is for, where its files live, the section of the index it is listed under, its
 * template and its fields. Five are built in (summary, concept, entity, synthesis, preference); a profile declares
 * more in the wiki row's config, and a declared type with a built-in's name replaces it. Pure data and checks.
 * @module dsh-knowledge-sync/knowledge/wiki/page-types
 */

/** One front-matter field of a page type. `list`: a list of strings (aliases); else one string. */
export interface PageField {
  name: string
  description: string
  list?: boolean
  /** Set by the store, never by the caller (`ingested`). */
  byStore?: boolean
}

/** A page type, as the store applies it. */
export interface PageType {
  /** Lowercase name, the first part of every id of this type (`concept/…`). */
  type: string
  /** Folder under the root, `''` for the root itself. */
  folder: string
  /** Heading of the type's section in the index. */
  section: string
  /** One sentence the model reads in the prompt section and in knowledge_create's description. */
  description: string
  /** The body a new page starts from (below its `# title`). */
  template: string
  fields: PageField[]
  /** Fields shown on the page's index line. */
  indexFields: string[]
  /** Reached through the index, not through links: the check does not call such a page an orphan. */
  orphanOk?: boolean
}

/** What a profile declares in the row config (fields as `name` or `name[]` for a list). */
export interface DeclaredType {
  type: string
  folder: string
  section: string
  description: string
  template: string
  fields?: string[]
  indexFields?: string[]
}

import { INDEX_REACHED_TYPES, MAX_SLUG, OVERVIEW_ID, SLUG, TYPE_NAME } from '../documents/page-ids.js'

export { MAX_SLUG, OVERVIEW_ID, OVERVIEW_PATH, SLUG, splitPageId, TYPE_NAME } from '../documents/page-ids.js'
/** A folder of pages: relative, `/`-separated words, no dot segments (checked again against the root on write). */
const FOLDER = /^(?:[A-Za-z0-9][A-Za-z0-9_-]*)(?:\/[A-Za-z0-9][A-Za-z0-9_-]*){0,3}$/
const FIELD_NAME = /^[a-z][a-z0-9_]{0,31}$/
/** Keys the store owns in every document's front matter: a field of one of these names is stored as `<type>_<name>`. */
export const STORE_KEYS = new Set([
  'id',
  'title',
  'kind',
  'type',
  'created',
  'updated',
  'cwd',
  'session',
  'turn',
  'outcome',
  'tools',
  'tags',
  'salience',
  'redacted',
  'distill',
  'status',
  'superseded_by',
  'supersedes',
  'retired',
])

export const BUILT_IN_TYPES: readonly PageType[] = (
  [
    {
      type: 'summary',
      folder: 'summaries',
      section: 'Summaries',
      description: 'One per ingested original (a file or a URL) or set of rounds: what it says, its key points, the pages it feeds.',
      template: '## What it says\n\n## Key points\n\n- \n\n## Feeds\n\n- [concept or entity](type/slug)\n',
      fields: [
        { name: 'file', description: 'The original, as a path relative to the root.' },
        { name: 'url', description: 'The original, as a URL.' },
        { name: 'ingested', description: 'When it was ingested (set by the store).', byStore: true },
      ],
      indexFields: ['file', 'url'],
    },
    {
      type: 'concept',
      folder: 'concepts',
      section: 'Concepts',
      description: 'An idea: its definition, an explanation, its connections to other pages, and its sources.',
      template: '## Definition\n\n## Explanation\n\n## Connections\n\n- \n\n## Sources\n\n- \n',
      fields: [{ name: 'aliases', description: 'Other names it goes by.', list: true }],
      indexFields: ['aliases'],
    },
    {
      type: 'entity',
      folder: 'entities',
      section: 'Entities',
      description: 'A concrete thing: a system, component, organisation or document; what it is, who owns it, how it relates.',
      template: '## What it is\n\n## Details\n\n## Relations\n\n- \n\n## Sources\n\n- \n',
      fields: [
        { name: 'kind', description: 'system, component, organisation, document, …' },
        { name: 'aliases', description: 'Other names it goes by.', list: true },
      ],
      indexFields: ['kind', 'aliases'],
    },
    {
      type: 'synthesis',
      folder: 'syntheses',
      section: 'Syntheses',
      description: 'An answer worth keeping: a comparison, an analysis or a report, with the pages it draws on.',
      template: '## Answer\n\n## Reasoning\n\n## Sources\n\n- \n',
      fields: [{ name: 'question', description: 'The question it answers.' }],
      indexFields: ['question'],
    },
    {
      type: 'preference',
      folder: 'preferences',
      section: 'Preferences',
      description: 'A standing instruction of the person, in their own words, and since when it holds.',
      template: '## Quote\n\n> \n\n## Applies to\n\n',
      fields: [{ name: 'since', description: 'Since when it holds (a date).' }],
      indexFields: ['since'],
    },
  ] as PageType[]
).map((t) => (INDEX_REACHED_TYPES.has(t.type) ? { ...t, orphanOk: true } : t))

/** Slugs a type kept at the root may not take (they name the wiki's own files). */
const ROOT_SLUGS = new Set(['index', 'log', OVERVIEW_ID])

/** A declared type checked and completed; throws naming the type and what is wrong. */
export function declaredType(raw: DeclaredType): PageType {
  const where = `wiki type ${JSON.stringify(String(raw?.type ?? '')).slice(0, 40)}`
  if (!TYPE_NAME.test(String(raw?.type ?? ''))) throw new Error(`${where}: the name must be lowercase letters, digits and "-" (at most 32), starting with a letter`)
  if (raw.folder !== '' && !FOLDER.test(raw.folder)) throw new Error(`${where}: folder must be "" (the root) or a relative path of plain names, no "." or ".." parts`)
  if (!raw.section?.trim() || raw.section.length > 80) throw new Error(`${where}: section must be a heading of 1–80 characters`)
  if (!raw.description?.trim() || raw.description.length > 300) throw new Error(`${where}: description must be one sentence of 1–300 characters`)
  if (typeof raw.template !== 'string' || raw.template.length > 4000) throw new Error(`${where}: template must be Markdown of at most 4000 characters`)
  const fields = (raw.fields ?? []).map((spec): PageField => {
    const list = spec.endsWith('[]')
    const name = list ? spec.slice(0, -2) : spec
    if (!FIELD_NAME.test(name)) throw new Error(`${where}: field ${JSON.stringify(spec)} must be a lowercase name (letters, digits, "_"), "[]" at the end for a list`)
    return { name, description: '', ...(list ? { list } : {}) }
  })
  const indexFields = raw.indexFields ?? []
  for (const f of indexFields) if (!fields.some((x) => x.name === f)) throw new Error(`${where}: index field ${JSON.stringify(f)} is not one of its fields`)
  return { type: raw.type, folder: raw.folder, section: raw.section.trim(), description: raw.description.trim(), template: raw.template, fields, indexFields }
}

/** The built-ins with the declared types applied (a declared name replaces the built-in of that name), in order. */
export function resolveTypes(declared: readonly DeclaredType[] = []): PageType[] {
  const out = new Map(BUILT_IN_TYPES.map((t) => [t.type, t]))
  for (const raw of declared) {
    const type = declaredType(raw)
    const builtIn = out.get(type.type)
    // A replaced built-in keeps the index's exemption from orphans only if it was a built-in that had it.
    out.set(type.type, builtIn?.orphanOk ? { ...type, orphanOk: true } : type)
  }
  const folders = new Map<string, string>()
  for (const t of out.values()) {
    const other = folders.get(t.folder)
    if (other !== undefined && t.folder !== '') throw new Error(`wiki types ${other} and ${t.type} share the folder ${JSON.stringify(t.folder)}`)
    folders.set(t.folder, t.type)
  }
  return [...out.values()]
}

/** The front-matter key of a field: its name, or `<type>_<name>` when the store owns that key (`entity_kind`). */
export function diskKey(type: PageType, field: string): string {
  return STORE_KEYS.has(field) ? `${type.type}_${field}` : field
}

/** A slug checked for a type; throws with what a slug must be. */
export function checkSlug(type: PageType, slug: unknown): string {
  if (typeof slug !== 'string' || !SLUG.test(slug) || slug.length > MAX_SLUG)
    throw new Error(`"slug" must be lowercase ASCII words joined by "-" (a-z, 0-9, at most ${MAX_SLUG} characters), e.g. "spring-tides"; got ${JSON.stringify(String(slug)).slice(0, 80)}`)
  if (type.folder === '' && ROOT_SLUGS.has(slug)) throw new Error(`"slug": ${slug} names one of the wiki's own files at the root; choose another`)
  return slug
}

/** The root-relative file of a page. */
export function pageFile(type: PageType, slug: string): string {
  return type.folder ? `${type.folder}/${slug}.md` : `${slug}.md`
}
