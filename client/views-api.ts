/**
 * The page's reads and writes of the Originals, Wiki and edit routes, over {@link KnowledgeApi} (same origin, JSON;
 * state changes with the per-page token), and an error in the page's language.
 * @module dsh-knowledge-sync/client/views-api
 */
import type { EditableView, EditResult, OriginalsView, OriginalText, WikiView } from '../src/wire.js'
import { ApiError, type KnowledgeApi } from './api.js'
import type { MessageKey, Translate } from './i18n.js'

export type { EditableView, OriginalRow, OriginalsView, OriginalText, WikiEntry, WikiView } from '../src/wire.js'

const q = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value))
  return search.toString()
}

export const originals = (api: KnowledgeApi, signal?: AbortSignal): Promise<OriginalsView> => api.get('/originals', signal)
export const originalText = (api: KnowledgeApi, path: string, from?: number, signal?: AbortSignal): Promise<OriginalText> => api.get(`/originals/text?${q({ path, from })}`, signal)
/** Where the browser downloads an original (an attachment; the route never serves it as a page). */
export const originalFileUrl = (api: KnowledgeApi, path: string): string => `${api.prefix}/originals/file?${q({ path })}`
export const retireOriginal = (api: KnowledgeApi, path: string, why: 'wrong' | 'replaced', reason: string, replacedBy?: string) =>
  api.post<{ path: string; summaries: string[] }>('/originals/retire', { path, why, reason, ...(replacedBy ? { replacedBy } : {}) })
export const wiki = (api: KnowledgeApi, signal?: AbortSignal): Promise<WikiView> => api.get('/wiki', signal)
export const editable = (api: KnowledgeApi, id: string, signal?: AbortSignal): Promise<EditableView> => api.get(`/editable?${q({ id })}`, signal)
export const saveEdit = (api: KnowledgeApi, id: string, edit: { version: number | undefined; title: string; content: string }): Promise<EditResult> =>
  api.post(`/documents/${encodeURIComponent(id)}/edit`, edit)

/** An error as the page shows it: a lead sentence in the page's language for its code, then the routes' words. */
export function errorText(error: unknown, t: Translate): string {
  const message = (error as Error)?.message ?? String(error)
  const code = error instanceof ApiError ? error.code : undefined
  if (!code) return message
  // The page's own failures are written whole in the page's language; the technical detail stays in the console.
  if (code === 'network') return t('errorNetwork')
  if (code === 'not-mounted') return t('errorNotMounted')
  const lead = t(`error_${code}` as MessageKey)
  return lead.startsWith('error_') ? message : `${lead} ${message}`
}

/** The page's own failures (no answer, not the routes) in the page's language; the routes' words as they are. */
export function ownErrorText(error: unknown, t: Translate): string {
  const code = error instanceof ApiError ? error.code : undefined
  return code === 'network' || code === 'not-mounted' ? errorText(error, t) : ((error as Error)?.message ?? String(error))
}
