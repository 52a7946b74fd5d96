/**
 * The page's reads of the knowledge-http routes (same origin, JSON). dsh web answers an unclaimed path with its own
 * index.html and status 200, so a non-JSON answer means the routes are not mounted, not that the data is empty.
 * @module dsh-knowledge-sync/client/api
 */

/** Where the knowledge-http row serves by default (its `path` config). */
export const DEFAULT_ROUTE_PREFIX = '/knowledge'

export type { ConfigSection, ConfigView, DocKind, DocumentFile, DocumentItem, DocumentPage, Facets, GrowthDay, HealthHistoryPoint, HealthReport, HealthView, RecentRounds, Stats } from '../src/wire.js'
export type { WireFrontMatter as FrontMatter, SettingsSection as SectionName } from '../src/wire.js'
import type { ConfigView, DocumentFile, DocumentHistory, DocumentPage, HealthReport, HealthView, HistoryDiff, RecentRounds, SourcesView, Stats, SyncReport } from '../src/wire.js'
export type { DocumentHistory, HistoryDiff, HistoryRevision } from '../src/wire.js'
export type { SourceRow, SourcesView, SyncReport, SyncResult, SyncStatus } from '../src/wire.js'

/** A refusal of the routes, or a transport failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The routes' error code (`not-found`, `conflict`, …), or the page's own (`network`: no answer; `not-mounted`: an
     * answer that is not the routes' JSON), which the page translates. */
    readonly code?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** The query of the document list. */
export interface DocumentQuery {
  q?: string
  /** Search hits by relevance (default) or newest first. */
  sort?: 'relevance' | 'created' | 'updated'
  kind?: string
  tag?: string
  tool?: string
  cwd?: string
  /** Default: active and superseded; `retired`, `superseded`, `active` or `all` on purpose. */
  status?: string
  offset?: number
  limit?: number
}

/** Reads the knowledge routes under one prefix. */
export class KnowledgeApi {
  constructor(readonly prefix: string = DEFAULT_ROUTE_PREFIX) {}

  async get<T>(path: string, signal?: AbortSignal): Promise<T> {
    let response: Response
    try {
      response = await fetch(`${this.prefix}${path}`, { headers: { accept: 'application/json' }, credentials: 'same-origin', signal })
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error
      throw new ApiError((error as Error).message || 'network error', 0, 'network')
    }
    const type = response.headers.get('content-type') ?? ''
    if (!type.includes('application/json')) throw new ApiError(`${this.prefix}${path} answered ${response.status} ${type || 'without a type'}, not JSON`, response.status, 'not-mounted')
    const body = (await response.json()) as T & { error?: string; code?: string }
    if (!response.ok) throw new ApiError(body.error ?? `HTTP ${response.status}`, response.status, body.code)
    return body
  }

  /** `GET <prefix>/documents`: a page of the list, or of search hits with `q`. */
  documents(query: DocumentQuery, signal?: AbortSignal): Promise<DocumentPage> {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== '') params.set(key, String(value))
    }
    const text = params.toString()
    return this.get(`/documents${text ? `?${text}` : ''}`, signal)
  }

  /** `GET <prefix>/documents/<id>`. */
  document(id: string, signal?: AbortSignal): Promise<DocumentFile> {
    return this.get(`/documents/${encodeURIComponent(id)}`, signal)
  }

  /** `GET <prefix>/history?id=`: a document's revisions, newest first. */
  history(id: string, signal?: AbortSignal): Promise<DocumentHistory> {
    return this.get(`/history?id=${encodeURIComponent(id)}`, signal)
  }

  /** `GET <prefix>/history/diff?id=&from=&to=`: the redacted line diff of two listed revisions. */
  historyDiff(id: string, from: string, to: string, signal?: AbortSignal): Promise<HistoryDiff> {
    return this.get(`/history/diff?${new URLSearchParams({ id, from, to })}`, signal)
  }

  /** `GET <prefix>/health`: recorded probes and growth, without probing. */
  health(signal?: AbortSignal): Promise<HealthView> {
    return this.get('/health', signal)
  }

  /** `GET <prefix>/health/last`: the page's last probe (kept by the process) and a running probe's progress. */
  healthLast(signal?: AbortSignal): Promise<{ last?: HealthReport; running?: { done: number; total: number } }> {
    return this.get('/health/last', signal)
  }

  /** `POST <prefix>/documents/<id>/supersede` `{by}`: `id` is superseded by `by` (a near-duplicate pair's action). */
  supersede(id: string, by: string): Promise<{ id: string; by: string; status: string }> {
    return this.post(`/documents/${encodeURIComponent(id)}/supersede`, { by })
  }

  /** `POST <prefix>/health/run`: a new (sampled) probe, recorded. */
  runHealth(): Promise<HealthReport> {
    return this.post('/health/run', {})
  }

  /** `GET <prefix>/revision`: a counter of document changes, polled to stay live. */
  revision(signal?: AbortSignal): Promise<{ revision: number }> {
    return this.get('/revision', signal)
  }

  /** `GET <prefix>/rounds`: recent rounds' salience and the bar in force. */
  rounds(signal?: AbortSignal): Promise<RecentRounds> {
    return this.get('/rounds', signal)
  }

  /** `GET <prefix>/stats`. */
  stats(signal?: AbortSignal): Promise<Stats> {
    return this.get('/stats', signal)
  }

  private token?: Promise<string>

  /** `POST <prefix>/token`: minting is same-origin only, so another site's requests cannot evict this page's token. */
  private async mintToken(): Promise<string> {
    let response: Response
    try {
      response = await fetch(`${this.prefix}/token`, { method: 'POST', credentials: 'same-origin', body: '{}', headers: { accept: 'application/json', 'content-type': 'application/json' } })
    } catch (error) {
      throw new ApiError((error as Error).message || 'network error', 0, 'network')
    }
    const answer = (await response.json().catch(() => ({}))) as { token?: string; error?: string }
    if (!response.ok || typeof answer.token !== 'string') throw new ApiError(answer.error ?? `${this.prefix}/token answered ${response.status}`, response.status)
    return answer.token
  }

  /**
   * `POST <prefix><path>` with a JSON body and the per-page token (minted once per page load by `POST <prefix>/token`);
   * a refused token is fetched again once, for a page left open across a restart.
   */
  async post<T>(path: string, body: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      this.token ??= this.mintToken().catch((error) => {
        this.token = undefined
        throw error
      })
      const token = await this.token
      let response: Response
      try {
        response = await fetch(`${this.prefix}${path}`, {
          method: 'POST',
          credentials: 'same-origin',
          body: JSON.stringify(body),
          headers: { accept: 'application/json', 'content-type': 'application/json', 'x-knowledge-token': token },
        })
      } catch (error) {
        throw new ApiError((error as Error).message || 'network error', 0, 'network')
      }
      const type = response.headers.get('content-type') ?? ''
      if (!type.includes('application/json')) throw new ApiError(`${this.prefix}${path} answered ${response.status}, not JSON`, response.status, 'not-mounted')
      const answer = (await response.json()) as T & { error?: string; code?: string }
      if (response.status === 403 && attempt === 0 && /token/.test(answer.error ?? '')) {
        this.token = undefined
        continue
      }
      if (!response.ok) throw new ApiError(answer.error ?? `HTTP ${response.status}`, response.status, answer.code)
      return answer
    }
  }

  /** `GET <prefix>/sources`: every sync source with its last result and cache state. */
  sources(signal?: AbortSignal): Promise<SourcesView> {
    return this.get('/sources', signal)
  }

  /** `POST <prefix>/sources/dry-run` (`sync` false) or `POST <prefix>/sources/sync` ("Sync now"). */
  sync(dryRun: boolean, source?: string): Promise<SyncReport> {
    return this.post(dryRun ? '/sources/dry-run' : '/sources/sync', source ? { source } : {})
  }

  /** `GET <prefix>/config`. */
  config(signal?: AbortSignal): Promise<ConfigView> {
    return this.get('/config', signal)
  }
}
