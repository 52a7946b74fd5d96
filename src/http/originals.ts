/**
 * The Originals routes of the Knowledge page, served when the knowledge-originals row provides its service:
 * `GET /originals` (every original with its manifest entry, the summary pages built from it — stale ones flagged —
 * and whether its text can be extracted; no hash), `GET /originals/text?path=&from=&to=` (the extracted text,
 * redacted, paged like `extract_text`), `GET /originals/file?path=` (the bytes as a download, never as a page) and
 * `POST /originals/retire` (behind the same guard as every state change). Names are checked by the store's rules
 * (no `..`, no hidden segment, never through a link).
 * @module dsh-knowledge-sync/http/originals
 */
import type { ListedOriginal, OriginalType } from '../knowledge/originals/index.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import type { OriginalsService } from '../originals/service.js'
import { isVisible } from '../search/scope.js'
import type { OriginalRow, OriginalsView } from '../wire.js'
import { Download } from './download.js'
import type { Mutation, ReadRoute } from './routes.js'
import { RouteError, withoutToolAdvice } from './words.js'

/** Types whose text is extracted (images and other files are skipped). */
const TEXT_TYPES: ReadonlySet<OriginalType> = new Set(['docx', 'pptx', 'xlsx', 'pdf', 'markdown', 'text', 'html'])

/** Whether the page can open an original's text, and if not why (the person reads it in the list). */
export function extractionOf(item: ListedOriginal): OriginalRow['extraction'] {
  if (item.status !== 'present') return item.status
  if (item.problem) return 'unreadable'
  if (TEXT_TYPES.has(item.type)) return 'text'
  return 'none'
}

function rowOf(store: KnowledgeStore, item: ListedOriginal, scope: string | undefined): OriginalRow {
  const stale = new Set(item.staleSummaries ?? [])
  const summaries = (item.summaries ?? []).flatMap((id) => {
    const meta = store.get(id)
    if (!meta || !isVisible(meta.cwd, scope)) return []
    return [{ id, title: meta.title, stale: stale.has(id), status: meta.status ?? 'active' }]
  })
  return {
    path: item.path,
    status: item.status,
    type: item.type,
    size: item.size,
    addedAt: item.addedAt,
    changedAt: item.changedAt,
    provenance: item.provenance,
    ...(item.replaces ? { replaces: item.replaces } : {}),
    ...(item.pages !== undefined ? { pages: item.pages } : {}),
    ...(item.slides !== undefined ? { slides: item.slides } : {}),
    ...(item.declaredPages !== undefined ? { declaredPages: item.declaredPages } : {}),
    ...(item.retired ? { retired: item.retired } : {}),
    ...(item.problem ? { problem: item.problem } : {}),
    summaries,
    extraction: extractionOf(item),
  }
}

function pathParam(query: URLSearchParams): string {
  const path = query.get('path')
  if (!path) throw new RouteError(400, 'say which original: ?path=<its path in the list>')
  return path
}

function need(current: () => OriginalsService | undefined): OriginalsService {
  const service = current()
  if (!service) throw new RouteError(404, 'the knowledge-originals row is not running')
  return service
}

/** Read routes and mutations over whatever originals service is current (none: the page says the row is off). */
export function originalRoutes(store: KnowledgeStore, current: () => OriginalsService | undefined): { reads: Record<string, ReadRoute>; mutations: Mutation[] } {
  return {
    reads: {
      '/originals': async (_query, scope): Promise<OriginalsView> => {
        const service = current()
        if (!service) return { available: false, folder: '', originals: [] }
        const listed = await service.list()
        return { available: true, folder: service.folder.dir.slice(store.root.length + 1) || service.folder.dir, originals: listed.map((item) => rowOf(store, item, scope)) }
      },
      '/originals/text': async (query) => {
        const path = pathParam(query)
        const got = await need(current).extract(path, query.get('from') ?? undefined, query.get('to') ?? undefined)
        // The page pages with its own buttons (`next`): the text's note to the model about calling again goes.
        return { path, ...got, text: withoutToolAdvice(got.text) }
      },
      '/originals/file': async (query) => {
        const { entry, fd } = await need(current).folder.openForReading(pathParam(query))
        return new Download(fd, entry.path)
      },
    },
    mutations: [
      {
        pattern: /^\/originals\/retire$/,
        run: async (_match, body) => {
          const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>
          const { entry, summaries } = await need(current).retire(b.path, b.why, b.reason, b.replacedBy || undefined)
          return { path: entry.path, retired: entry.retired ? { at: entry.retired.at, why: entry.retired.why, reason: entry.retired.reason } : undefined, summaries }
        },
      },
    ],
  }
}
