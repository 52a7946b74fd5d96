/**
 * The fetch cache: one JSON file per URL under `<root>/.knowledge/cache/` with the body, ETag, Last-Modified, the
 * content type and when it was fetched. Within `cache_ttl` a source is served from here without any network round
 * trip; after it, the validators make the request conditional and a 304 reuses the body.
 * @module dsh-knowledge-sync/sync/cache
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../knowledge/disk/atomic.js'

export const CACHE_DIR = join('.knowledge', 'cache')

export interface CacheEntry {
  url: string
  /** The URL that answered, after redirects. */
  finalUrl: string
  contentType: string
  etag?: string
  lastModified?: string
  /** ISO time of the last network answer (200 or 304). */
  fetchedAt: string
  body: string
}

/** The cache file of a URL: a hash, so no URL text ever becomes a path. */
export function cachePath(root: string, url: string): string {
  return join(root, CACHE_DIR, `${createHash('sha256').update(url).digest('hex').slice(0, 40)}.json`)
}

/** The entry of `url`, or undefined when there is none or it is unreadable (then it is simply refetched). */
export async function readCache(root: string, url: string): Promise<CacheEntry | undefined> {
  try {
    const entry = JSON.parse(await readFile(cachePath(root, url), 'utf8')) as CacheEntry
    return entry && entry.url === url && typeof entry.body === 'string' && typeof entry.fetchedAt === 'string' ? entry : undefined
  } catch {
    return undefined
  }
}

export async function writeCache(root: string, entry: CacheEntry): Promise<void> {
  await writeFileAtomic(cachePath(root, entry.url), JSON.stringify(entry))
}

/** True while `entry` is younger than `ttlSeconds` (never for a TTL of 0). */
export function isFresh(entry: CacheEntry, ttlSeconds: number, now = Date.now()): boolean {
  return ttlSeconds > 0 && now - Date.parse(entry.fetchedAt) < ttlSeconds * 1000
}
