/**
 * The arguments of the wiki tools, checked the same way for the model and the CLI: what `knowledge_create` accepts
 * (one page, `also` more of them) and the JSON Schemas the model sees.
 * @module dsh-knowledge-sync/wiki/args
 */
import { parseFieldChanges } from '../knowledge/wiki/page-fields.js'
import { MAX_BATCH, type NewPage } from '../knowledge/wiki/pages.js'
import type { PageType } from '../knowledge/wiki/page-types.js'

export const object = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object')
  return args as Record<string, unknown>
}

const FIELDS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    properties: { name: { type: 'string' }, value: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }] } },
    required: ['name', 'value'],
    additionalProperties: false,
  },
  description: 'Front-matter fields of the type, e.g. [{"name": "aliases", "value": ["king tide"]}]; value null removes one.',
} as const

/** `knowledge_create`'s parameters: the page, and `also` for more pages in the same all-or-none call. */
export function createParameters(types: readonly PageType[]): Record<string, unknown> {
  const page = {
    type: { type: 'string', enum: types.map((t) => t.type), description: 'The page type.' },
    slug: { type: 'string', description: 'Lowercase ASCII words joined by "-": the id becomes type/slug, e.g. concept/spring-tides.' },
    title: { type: 'string', description: "The page's title, in the conversation's language." },
    content: { type: 'string', description: 'Markdown below the title. Link pages and rounds by id: [text](entity/payments-service). Omit to get the template.' },
    fields: FIELDS_SCHEMA,
  }
  return {
    type: 'object',
    properties: {
      ...page,
      also: {
        type: 'array',
        maxItems: MAX_BATCH - 1,
        items: { type: 'object', properties: page, required: ['type', 'slug', 'title', 'content'], additionalProperties: false },
        description: 'More pages created in the same call (they may link to each other): all are written or none.',
      },
    },
    required: ['type', 'slug', 'title'],
    additionalProperties: false,
  }
}

export const EDIT_PARAMETERS = {
  type: 'object',
  properties: {
    page: { type: 'string', description: 'The page id, e.g. concept/spring-tides.' },
    oldText: { type: 'string', description: 'A fragment of its content, copied exactly; it must occur once.' },
    newText: { type: 'string', description: 'What replaces it ("" removes it).' },
    fields: FIELDS_SCHEMA,
  },
  required: ['page', 'oldText', 'newText'],
  additionalProperties: false,
} as const

export const REWRITE_PARAMETERS = {
  type: 'object',
  properties: {
    page: { type: 'string', description: 'The page id, or "overview" for the living synthesis.' },
    content: { type: 'string', description: 'The whole new Markdown below the title; links by id.' },
    fields: FIELDS_SCHEMA,
  },
  required: ['page', 'content'],
  additionalProperties: false,
} as const

export const LOG_PARAMETERS = {
  type: 'object',
  properties: {
    operation: { type: 'string', description: 'One word: ingest, query, lint, update, …' },
    what: { type: 'string', description: 'What was done, in one line.' },
    pages: { type: 'array', items: { type: 'string' }, maxItems: 20, description: 'Ids of the pages it touched.' },
  },
  required: ['operation', 'what'],
  additionalProperties: false,
} as const

export const INDEX_PARAMETERS = {
  type: 'object',
  properties: {
    section: { type: 'string', description: 'Only this section (e.g. "Concepts"), for a wiki too large to list at once.' },
    offset: { type: 'integer', minimum: 0, description: 'Continue a section from this line (the offset its last line names).' },
  },
  additionalProperties: false,
} as const

/** One page of `knowledge_create` (the top level or an `also` item); `content` may be absent only at the top. */
export function parseNewPage(raw: unknown, where: string, contentRequired: boolean): NewPage | { template: string } {
  const a = object(raw)
  if (typeof a.type !== 'string') throw new Error(`${where}"type" must be a page type`)
  if (typeof a.title !== 'string') throw new Error(`${where}"title" must be a string`)
  if (a.content === undefined || a.content === null || a.content === '') {
    if (contentRequired) throw new Error(`${where}"content" is required when several pages are created at once`)
    return { template: a.type }
  }
  if (typeof a.content !== 'string') throw new Error(`${where}"content" must be Markdown text`)
  return { type: a.type, slug: a.slug as string, title: a.title, content: a.content, fields: parseFieldChanges(a.fields) }
}

/** `knowledge_create`'s arguments: the pages to write, or the type whose template to return. */
export function parseCreate(raw: unknown): { pages: NewPage[] } | { template: string } {
  const a = object(raw)
  if (a.also !== undefined && a.also !== null && !Array.isArray(a.also)) throw new Error('"also" must be an array of pages')
  const also = (a.also as unknown[] | undefined) ?? []
  if (also.length > MAX_BATCH - 1) throw new Error(`"also": at most ${MAX_BATCH - 1} more pages`)
  const first = parseNewPage(a, '', also.length > 0)
  if ('template' in first) return first
  return { pages: [first, ...also.map((p, k) => parseNewPage(p, `"also"[${k}].`, true) as NewPage)] }
}
