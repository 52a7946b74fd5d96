/**
 * Getting a source's text: a local file read, or an HTTP fetch through the safe fetcher and the cache, then
 * converted. Every failure becomes a per-source status with a one-line reason; nothing here throws.
 * @module dsh-knowledge-sync/sync/obtain
 */
import { extname } from 'node:path'
import type { SyncStatus } from '../wire.js'
import { isFresh, readCache, writeCache, type CacheEntry } from './cache.js'
import { decodeBody, mediaType, toSectionText, UnsupportedType } from './convert.js'
import { FetchFailure, MAX_BODY_BYTES, type SafeFetcher } from './fetcher.js'
import { LocalReadError, readLocalFile } from './local-file.js'
import type { HttpSource, LocalSource, Source } from './sources.js'

export type Obtained = { ok: true; text: string; fromCache: boolean } | { ok: false; status: SyncStatus; reason: string }

const LOCAL_TYPES: Record<string, string> = { '.md': 'text/markdown', '.markdown': 'text/markdown', '.txt': 'text/plain', '.html': 'text/html', '.htm': 'text/html', '.xhtml': 'application/xhtml+xml' }
const SUPPORTED = new Set(['text/markdown', 'text/x-markdown', 'text/plain', 'text/html', 'application/xhtml+xml'])

const fail = (status: SyncStatus, reason: string): Obtained => ({ ok: false, status, reason: reason.replace(/\s+/g, ' ').slice(0, 300) })

async function readLocal(source: LocalSource, allowed: readonly string[]): Promise<Obtained> {
  let body: Buffer
  try {
    body = await readLocalFile(source.path, allowed, MAX_BODY_BYTES)
  } catch (error) {
    if (!(error instanceof LocalReadError)) return fail('fetch-error', `cannot read ${source.path}: ${(error as Error).message}`)
    return fail(error.kind === 'missing' ? 'source-missing' : error.kind === 'too-large' ? 'too-large' : 'fetch-error', error.message)
  }
  try {
    // Unknown extensions (an ADR named `0001-decision`) are plain text.
    return { ok: true, text: await toSectionText(body, LOCAL_TYPES[extname(source.path).toLowerCase()] ?? 'text/plain'), fromCache: false }
  } catch (error) {
    return fail('fetch-error', `cannot read ${source.path}: ${(error as Error).message}`)
  }
}

async function convert(entry: Pick<CacheEntry, 'body' | 'contentType' | 'finalUrl'>, source: HttpSource, fromCache: boolean): Promise<Obtained> {
  try {
    return { ok: true, text: await toSectionText(Buffer.from(entry.body, 'utf8'), entry.contentType, source.selector, entry.finalUrl || source.url), fromCache }
  } catch (error) {
    return fail('fetch-error', (error as Error).message)
  }
}

async function fetchHttp(root: string, source: HttpSource, fetcher: SafeFetcher): Promise<Obtained> {
  const cached = source.cacheTtl > 0 ? await readCache(root, source.url) : undefined
  // Within cache_ttl: no network round trip at all.
  if (cached && isFresh(cached, source.cacheTtl)) return convert(cached, source, true)
  const headers: Record<string, string> = {}
  if (cached?.etag) headers['if-none-match'] = cached.etag
  if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified
  let answer
  try {
    answer = await fetcher.get(source.url, headers)
  } catch (error) {
    if (error instanceof FetchFailure) return fail(error.status, error.message)
    return fail('fetch-error', (error as Error).message)
  }
  if (answer.status === 304 && cached) {
    const renewed = { ...cached, fetchedAt: new Date().toISOString() }
    await writeCache(root, renewed).catch(() => {})
    return convert(renewed, source, false)
  }
  if (answer.status >= 400 && answer.status < 500) return fail('source-missing', `HTTP ${answer.status} from ${answer.url}`)
  if (answer.status < 200 || answer.status >= 300) return fail('fetch-error', `HTTP ${answer.status} from ${answer.url}`)
  const contentType = String(answer.headers['content-type'] ?? '')
  if (!SUPPORTED.has(mediaType(contentType)))
    return fail('fetch-error', new UnsupportedType(`${answer.url} is ${mediaType(contentType) || 'of no declared type'}, not Markdown, plain text or HTML`).message)
  const entry: CacheEntry = {
    url: source.url,
    finalUrl: answer.url,
    contentType,
    fetchedAt: new Date().toISOString(),
    etag: typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined,
    lastModified: typeof answer.headers['last-modified'] === 'string' ? answer.headers['last-modified'] : undefined,
    body: decodeBody(answer.body, contentType),
  }
  if (source.cacheTtl > 0) await writeCache(root, { ...entry, contentType: `${mediaType(contentType)}; charset=utf-8` }).catch(() => {})
  return convert({ body: entry.body, contentType: `${mediaType(contentType)}; charset=utf-8`, finalUrl: answer.url }, source, false)
}

/**
 * The text of one source, or the status that explains why there is none. `localRoots`: the real folders a local
 * source may be read from (`allowedLocalRoots`).
 */
export async function obtain(root: string, source: Source, fetcher: SafeFetcher, localRoots: readonly string[]): Promise<Obtained> {
  try {
    return source.type === 'local' ? await readLocal(source, localRoots) : await fetchHttp(root, source, fetcher)
  } catch (error) {
    return fail('fetch-error', (error as Error).message)
  }
}
