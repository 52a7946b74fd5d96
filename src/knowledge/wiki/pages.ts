/**
 * Writing wiki pages: create (one or many, all or none), edit by a fragment, rewrite whole. Every page goes through
 * the store's one write (redacted with all its fields as one document, atomic, revision bumped) and one ledger line
 * with who asked. Links arrive as ids (`[text](concept/x)`, a round's id) and are written as relative paths; a link
 * to nothing is refused before anything is written. Pages are never deleted or renamed here.
 * @module dsh-knowledge-sync/knowledge/wiki/pages
 */
import type { FrontMatter, KnowledgeDoc } from '../../types.js'
import { redactFields, type FieldInput } from '../../redact/fields.js'
import { isVisible } from '../../search/scope.js'
import { formatDocument } from '../documents/document.js'
import { checkRevision, type EditHost } from '../writes/edits.js'
import { carryStatus, idsToPaths, NOTICE_MARK, stripNotice, unresolvedIds } from '../relations/relations.js'
import { bodyWithIds } from '../corrections/correct.js'
import type { KnowledgeStore } from '../store.js'
import { applyFieldChanges, type FieldChange, MAX_TITLE } from './page-fields.js'
import { checkSlug, diskKey, OVERVIEW_ID, OVERVIEW_PATH, pageFile, type PageType, splitPageId } from './page-types.js'

/** Longest content of one page (after redaction), as a round's section. */
export const MAX_CONTENT = 64 * 1024
/** At most this many pages in one knowledge_create call (the page itself and `also`). */
export const MAX_BATCH = 20

/** A page to create, as the tool and the CLI give it. */
export interface NewPage {
  type: string
  slug: string
  title: string
  content: string
  fields: FieldChange[]
}

/** A page after a write: what the tool and `dsh-knowledge create --json` report. */
export interface WrittenPage {
  id: string
  path: string
  type: string
  version: number
  title: string
  redacted: number
}

/** What the page writes need: the store, the page types, who asked, and the workspace links may reach. */
export interface PageContext {
  store: KnowledgeStore
  typeOf(name: string): PageType | undefined
  actor: string
  scope: string | undefined
  /** Refuse an edit or rewrite unless the page is still at this revision (checked inside the write queue). */
  expectVersion?: number
  /** Told of each summary written with a `file` (the originals manifest ties it to the file). */
  ingested?: (event: { id: string; file: string }) => void
  /** The clock (ISO 8601), injectable for tests. */
  now?: () => string
}

/** The overview's pseudo type: one page at the root, no fields. */
export const OVERVIEW_TYPE: PageType = { type: 'overview', folder: '', section: 'Overview', description: 'The living synthesis of the whole wiki.', template: '', fields: [], indexFields: [] }

/** The content of a page as the model sees and edits it: the body without its `# title`, status notice, links as ids. */
export function contentOf(store: KnowledgeStore, doc: Pick<KnowledgeDoc, 'path' | 'body'>): string {
  const body = bodyWithIds(store, { path: doc.path, body: stripNotice(doc.body) }).replace(` ${NOTICE_MARK}\n`, '\n')
  return body.replace(/^#[ \t]+[^\n]*\n+/, '')
}

/** The type of an existing page (its front matter `type`, else its id's first part); throws for a non-page. */
export function pageTypeOf(ctx: PageContext, doc: KnowledgeDoc): PageType {
  if (doc.id === OVERVIEW_ID) return OVERVIEW_TYPE
  const name = typeof doc.meta.type === 'string' ? doc.meta.type : splitPageId(doc.id)?.type
  if (!name || (doc.meta.kind !== 'page' && doc.meta.kind !== 'preference') || !splitPageId(doc.id))
    throw new Error(`${doc.id} is not a wiki page (it is a ${doc.meta.kind}); rounds and notes are changed with knowledge_note and knowledge_supersede`)
  return ctx.typeOf(name) ?? { type: name, folder: '', section: name, description: '', template: '', fields: [], indexFields: [] }
}

/** Creates `pages` in one write: every check passes for all of them, or nothing is written. */
export async function createPages(ctx: PageContext, pages: NewPage[]): Promise<WrittenPage[]> {
  if (!pages.length) throw new Error('nothing to create')
  if (pages.length > MAX_BATCH) throw new Error(`at most ${MAX_BATCH} pages in one call`)
  const planned = new Map<string, { page: NewPage; type: PageType; path: string }>()
  for (const page of pages) {
    const type = ctx.typeOf(page.type)
    if (!type) throw new Error(`refused: no page type "${page.type}"`)
    const slug = checkSlug(type, page.slug)
    const id = `${type.type}/${slug}`
    if (planned.has(id)) throw new Error(`refused: ${id} is named twice in one call`)
    if (ctx.store.get(id)) throw new Error(`refused: ${id} exists already; change it with knowledge_edit or knowledge_rewrite (pages are never replaced by a create)`)
    const path = pageFile(type, slug)
    const holder = ctx.store.idOfPath(path)
    if (holder) throw new Error(`refused: ${path} is already the file of ${holder}`)
    checkTitle(page.title)
    planned.set(id, { page, type, path })
  }
  for (const [id, plan] of planned) refuseBrokenLinks(ctx, id, plan.page.content, (other) => planned.has(other))
  // Fields are checked for all pages before the first write.
  const fields = new Map([...planned].map(([id, p]) => [id, applyFieldChanges(p.type, {}, p.page.fields).fields]))
  const pathOf = (other: string) => planned.get(other)?.path ?? ctx.store.get(other)?.path
  return ctx.store.edit(async (host) => {
    // Redacted first, all of them, so a failure leaves nothing half-written; then written in order.
    const prepared = []
    for (const [id, plan] of planned) {
      const now = (ctx.now ?? isoNow)()
      prepared.push(
        await preparePage(
          host,
          {
            id,
            path: plan.path,
            type: plan.type,
            title: plan.page.title,
            content: plan.page.content,
            fields: fields.get(id)!,
            created: now,
            now,
            ingest: plan.type.fields.some((f) => f.name === 'ingested'),
          },
          pathOf,
        ),
      )
    }
    // All or none on the disk too: a file that fails takes back the ones this call already wrote (all new files),
    // and the ledger and the ingest listeners hear of the pages only once every file is written.
    const versions: number[] = []
    try {
      for (const page of prepared) versions.push(await writePage(host, page))
    } catch (error) {
      for (const page of prepared.slice(0, versions.length)) host.withdraw(page.path)
      throw error
    }
    const out: WrittenPage[] = []
    for (const [k, page] of prepared.entries()) out.push(await recordPage(ctx, host, page, 'create', versions[k]))
    return out
  })
}

/** Replaces the one occurrence of `oldText` in a page's content by `newText` (and applies `fields`). */
export async function editPage(ctx: PageContext, rawId: unknown, oldText: unknown, newText: unknown, changes: FieldChange[]): Promise<WrittenPage> {
  if (typeof oldText !== 'string' || !oldText) throw new Error('"oldText" must be a fragment of the page, copied exactly from knowledge_read')
  if (typeof newText !== 'string') throw new Error('"newText" must be a string (empty to remove the fragment)')
  const doc = await ctx.store.readVisible(rawId, ctx.scope)
  const content = contentOf(ctx.store, doc)
  const at = content.indexOf(oldText)
  if (at < 0) throw new Error(`"oldText" is not in ${doc.id}'s content (the text below its title); read it again with knowledge_read and copy the fragment exactly`)
  const count = content.split(oldText).length - 1
  if (count > 1) throw new Error(`"oldText" appears ${count} times in ${doc.id}; include more of the text around it so it is unique`)
  return changePage(ctx, doc, content.slice(0, at) + newText + content.slice(at + oldText.length), changes, 'edit')
}

/** Replaces a page's whole content (id, file and every link to it stay); `overview` is created on its first rewrite. */
export async function rewritePage(ctx: PageContext, rawId: unknown, content: unknown, changes: FieldChange[]): Promise<WrittenPage> {
  if (typeof content !== 'string' || !content.trim()) throw new Error('"content" must be the page\'s whole new text (Markdown, below its title)')
  if (rawId === OVERVIEW_ID && !ctx.store.get(OVERVIEW_ID)) return createOverview(ctx, content)
  return changePage(ctx, await ctx.store.readVisible(rawId, ctx.scope), content, changes, 'rewrite')
}

async function changePage(ctx: PageContext, doc: KnowledgeDoc, content: string, changes: FieldChange[], op: 'edit' | 'rewrite'): Promise<WrittenPage> {
  const type = pageTypeOf(ctx, doc)
  if (doc.meta.status === 'retired') throw new Error(`refused: ${doc.id} is retired; a person restores it first (dsh-knowledge restore), or write a new page`)
  if (doc.meta.status === 'superseded') throw new Error(`refused: ${doc.id} is superseded by ${String(doc.meta.superseded_by)}; change that page instead`)
  refuseBrokenLinks(ctx, doc.id, content, () => false)
  const applied = applyFieldChanges(type, doc.meta, changes)
  const previousFile = doc.meta[diskKey(type, 'file')]
  return ctx.store.edit(async (host) => {
    await checkRevision(host, doc.id, ctx.expectVersion)
    const now = (ctx.now ?? isoNow)()
    const fields = { ...applied.fields }
    const ingest = type.fields.some((f) => f.name === 'ingested') && (fields.file !== previousFile || fields.url !== doc.meta.url)
    if (!ingest && doc.meta.ingested !== undefined) fields.ingested = doc.meta.ingested
    const page = await preparePage(
      host,
      { id: doc.id, path: doc.path, type, title: applied.title ?? String(doc.meta.title), content, fields, created: doc.meta.created, now, ingest, previous: doc },
      (other) => ctx.store.get(other)?.path,
    )
    return commitPage(ctx, host, page, op)
  })
}

async function createOverview(ctx: PageContext, content: string): Promise<WrittenPage> {
  if (ctx.store.idOfPath(OVERVIEW_PATH)) throw new Error(`refused: ${OVERVIEW_PATH} is the file of ${ctx.store.idOfPath(OVERVIEW_PATH)}, not the overview`)
  refuseBrokenLinks(ctx, OVERVIEW_ID, content, () => false)
  return ctx.store.edit(async (host) => {
    const now = (ctx.now ?? isoNow)()
    const page = await preparePage(
      host,
      { id: OVERVIEW_ID, path: OVERVIEW_PATH, type: OVERVIEW_TYPE, title: 'Overview', content, fields: {}, created: now, now, ingest: false },
      (other) => ctx.store.get(other)?.path,
    )
    return commitPage(ctx, host, page, 'create')
  })
}

interface PageDraft {
  id: string
  path: string
  type: PageType
  title: string
  content: string
  fields: Record<string, unknown>
  created: string
  now: string
  /** Set `ingested` now (a summary's original was set or changed). */
  ingest: boolean
  previous?: KnowledgeDoc
}

interface PreparedPage {
  id: string
  path: string
  type: PageType
  meta: FrontMatter
  body: string
  redacted: number
}

/** Redacts title, content and every field value as one document, bounds them, and renders the file. */
async function preparePage(host: EditHost, draft: PageDraft, pathOf: (id: string) => string | undefined): Promise<PreparedPage> {
  const keys = Object.keys(draft.fields).filter((k) => k !== 'ingested')
  const values = keys.map((k) => draft.fields[k])
  const flat = values.flatMap((v) => (Array.isArray(v) ? v.map(String) : [String(v)]))
  const inputs: FieldInput[] = [
    { text: draft.title, limit: MAX_TITLE, cut: 'ellipsis' },
    { text: draft.content.replace(/^#[ \t]+[^\n]*\n+/, ''), limit: MAX_CONTENT },
    ...flat.map((text): FieldInput => ({ text, limit: 500, cut: 'none' })),
  ]
  const { texts, redaction } = await redactFields(host.redactor, inputs)
  const title = texts[0].replace(/\s+/g, ' ').trim() || draft.id
  let k = 2
  const fields: Record<string, unknown> = {}
  for (const [i, key] of keys.entries()) fields[key] = Array.isArray(values[i]) ? (values[i] as unknown[]).map(() => texts[k++]) : texts[k++]
  if (draft.ingest && (fields.file !== undefined || fields.url !== undefined)) fields.ingested = draft.now
  else if (draft.fields.ingested !== undefined) fields.ingested = draft.fields.ingested
  const kind = draft.type.type === 'preference' ? 'preference' : 'page'
  const meta = { id: draft.id, title, kind, type: draft.type.type, created: draft.created, ...fields, updated: draft.now, redacted: redaction.count } as unknown as FrontMatter
  let body = `# ${title}\n\n${texts[1].trim()}\n`
  let finalMeta = meta
  if (draft.previous) ({ meta: finalMeta, body } = carryStatus(draft.previous, meta, body))
  body = idsToPaths(body, draft.path, pathOf)
  return { id: draft.id, path: draft.path, type: draft.type, meta: finalMeta, body, redacted: redaction.count }
}

async function commitPage(ctx: PageContext, host: EditHost, page: PreparedPage, op: 'create' | 'edit' | 'rewrite'): Promise<WrittenPage> {
  return recordPage(ctx, host, page, op, await writePage(host, page))
}

function writePage(host: EditHost, page: PreparedPage): Promise<number> {
  return host.commit(page.id, page.path, page.meta, page.body, formatDocument(page.meta, page.body))
}

/** After a page's file is written: its ledger line, the ingest listeners, what the caller is told. */
async function recordPage(ctx: PageContext, host: EditHost, page: PreparedPage, op: 'create' | 'edit' | 'rewrite', version: number): Promise<WrittenPage> {
  await host.ledger.record({ type: 'page', id: page.id, op, version, redacted: page.redacted, actor: ctx.actor })
  const file = page.meta.file
  if (typeof file === 'string' && page.meta.ingested === page.meta.updated && ctx.ingested) {
    try {
      ctx.ingested({ id: page.id, file })
    } catch {
      /* a listener's failure is not the write's */
    }
  }
  return { id: page.id, path: page.path, type: page.type.type, version, title: String(page.meta.title), redacted: page.redacted }
}

/** Refuses a text whose `[text](<id>)` links name no visible document (nor a page of the same call). */
function refuseBrokenLinks(ctx: PageContext, id: string, content: string, planned: (id: string) => boolean): void {
  const broken = unresolvedIds(content, (other) => {
    if (planned(other)) return true
    const meta = ctx.store.get(other)
    return !!meta && isVisible(meta.cwd, ctx.scope)
  })
  if (broken.length)
    throw new Error(
      `refused: ${id} links to ${broken.join(', ')}, which ${broken.length === 1 ? 'names' : 'name'} no document; link existing ids (knowledge_index, knowledge_search) or create the page in the same call with "also"`,
    )
}

function checkTitle(title: unknown): void {
  if (typeof title !== 'string' || !title.trim()) throw new Error('"title" must be a non-empty string')
  if (title.length > MAX_TITLE) throw new Error(`"title" is ${title.length} characters long; the limit is ${MAX_TITLE}`)
}

const isoNow = () => new Date().toISOString()
