/**
 * The wiki on the Knowledge page: `GET /wiki` (the catalogue grouped by page type, the overview, the last entries of
 * the operation log), `GET /editable?id=` (the text a note or a wiki page is edited from, and its revision) and
 * `POST /documents/<id>/edit` `{version, title, content}` (behind the same guard as every state change). A wiki page
 * is written by the wiki's rewrite, a note by the store's note edit; both refuse an edit made on an older revision
 * (a concurrent change is never overwritten) and redact what they write; a captured round is never edited.
 * @module dsh-knowledge-sync/http/wiki
 */
import { checkEdit, editableOf, editNote, isWikiPage, NotEditable, notEditable } from '../knowledge/corrections/edit-in-place.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import { OVERVIEW_ID } from '../knowledge/wiki/page-types.js'
import { contentOf } from '../knowledge/wiki/pages.js'
import type { Wiki } from '../knowledge/wiki/wiki.js'
import type { EditResult, WikiView } from '../wire.js'
import type { Mutation, ReadRoute } from './routes.js'
import { RouteError } from './words.js'

/** Log entries the page shows (as `knowledge_read("log")`). */
export const PAGE_LOG_ENTRIES = 10

/** Read routes and the edit mutation. `current` is the wiki row's service; `fallback` writes pages when that row is off. */
export function wikiRoutes(store: KnowledgeStore, current: () => Wiki | undefined, fallback: () => Wiki): { reads: Record<string, ReadRoute>; mutations: Mutation[] } {
  return {
    reads: {
      '/wiki': async (_query, scope): Promise<WikiView> => {
        const wiki = current()
        if (!wiki) return { available: false, types: [], sections: [], pages: 0, others: {}, log: [] }
        const catalogue = await wiki.catalogue(scope)
        const overviewDoc = catalogue.overview ? await store.read(OVERVIEW_ID).catch(() => undefined) : undefined
        return {
          available: true,
          types: wiki.types.map((t) => ({ type: t.type, section: t.section, description: t.description })),
          sections: catalogue.sections.map((s) => ({
            section: s.section,
            type: s.type,
            entries: s.entries.map(({ id, title, type, summary, fields, stale }) => ({ id, title, type, summary, fields, ...(stale ? { stale: true } : {}) })),
          })),
          pages: catalogue.pages,
          others: catalogue.others,
          ...(overviewDoc ? { overview: { id: OVERVIEW_ID, title: String(overviewDoc.meta.title ?? 'Overview'), content: contentOf(store, overviewDoc), version: store.versionOf(OVERVIEW_ID) } } : {}),
          log: wiki.readLog(PAGE_LOG_ENTRIES),
        }
      },
      '/editable': async (query, scope) => {
        const id = query.get('id')
        if (!id) throw new RouteError(400, 'say which document: ?id=<its id>')
        return editableOf(store, id, scope)
      },
    },
    mutations: [
      {
        pattern: /^\/documents\/([^/]+)\/edit$/,
        run: async (match, value, scope): Promise<EditResult> => {
          const body = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>
          const id = decodeURIComponent(match[1])
          const doc = await store.readVisible(id, scope)
          const refused = notEditable(doc)
          if (refused) throw new NotEditable(refused)
          if (!isWikiPage(doc)) return editNote(store, { id, version: body.version, title: body.title, content: body.content }, scope, 'page')
          const { version, title, content } = checkEdit({ id, version: body.version, title: body.title, content: body.content })
          const wiki = current() ?? fallback()
          const fields = doc.id === OVERVIEW_ID || title === String(doc.meta.title) ? [] : [{ name: 'title', value: title }]
          const written = await wiki.rewrite(doc.id, content, fields, { actor: 'page', scope, expectVersion: version })
          return { id: written.id, version: written.version, redacted: written.redacted }
        },
      },
    ],
  }
}
