/**
 * `discover`: walks the `roots:` of sources.yml and records new URLs as `pending` decisions. Per root: the root
 * itself when it looks like a sitemap, else `/sitemap.xml` at its origin, else a breadth-first crawl of HTML links
 * bounded by `max_depth` and `max_urls`. Only URLs under the root's directory (a sitemap's too), allowed by the
 * origin's robots.txt (robots-parser) and carrying no credential are kept or fetched. Roots run in parallel; requests to one host are spaced by the
 * fetcher, which also guards every address.
 * @module dsh-knowledge-sync/sync/discover
 */
import { XMLParser } from 'fast-xml-parser'
import { createRequire } from 'node:module'
import { decodeBody, mediaType } from './convert.js'
import { runHtmlJob } from './html.js'
import type { Decisions } from './decisions.js'
import { FetchFailure, USER_AGENT, type SafeFetcher } from './fetcher.js'
import { hasUrlCredentials } from '../redact/url-credentials.js'
import type { DiscoveryRoot } from './sources.js'

/** Child sitemaps of a sitemap index read per root, at most. */
const MAX_SITEMAPS = 20
const ROBOTS_AGENT = 'dsh-knowledge-sync'

export interface DiscoverResult {
  root: string
  method: 'sitemap' | 'origin-sitemap' | 'crawl' | 'none'
  found: number
  added: number
  skippedByRobots: number
  /** URLs found that carry credentials and were not recorded. */
  skippedCredentials: number
  errors: string[]
}

type Robots = { isAllowed(url: string, ua?: string): boolean | undefined }
// robots-parser is CommonJS whose typings declare an ES default export that does not exist at run time.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robots

/** Per-origin robots.txt, fetched once per discover run. */
class RobotsCache {
  private readonly byOrigin = new Map<string, Promise<Robots>>()
  constructor(private readonly fetcher: SafeFetcher) {}

  get(url: string): Promise<Robots> {
    const origin = new URL(url).origin
    let robots = this.byOrigin.get(origin)
    if (!robots) {
      robots = (async () => {
        const at = `${origin}/robots.txt`
        try {
          const answer = await this.fetcher.get(at)
          if (answer.status >= 200 && answer.status < 300) return robotsParser(at, decodeBody(answer.body, String(answer.headers['content-type'] ?? '')))
          // RFC 9309: no robots.txt (4xx) allows everything; an unreachable one (5xx) disallows everything.
          if (answer.status >= 400 && answer.status < 500) return { isAllowed: () => true }
          return { isAllowed: () => false }
        } catch {
          return { isAllowed: () => false }
        }
      })()
      this.byOrigin.set(origin, robots)
    }
    return robots
  }

  async allowed(url: string): Promise<boolean> {
    return (await this.get(url)).isAllowed(url, ROBOTS_AGENT) !== false
  }
}

const xml = new XMLParser({ ignoreAttributes: true, processEntities: true, htmlEntities: false })

/** `<loc>` values of a sitemap, and whether it is a sitemap index. */
export function parseSitemap(text: string): { index: boolean; locs: string[] } {
  const data = xml.parse(text) as Record<string, unknown>
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value])
  const locs = (items: unknown[]) =>
    items
      .map((item) => (item as { loc?: unknown })?.loc)
      .filter((loc): loc is string => typeof loc === 'string')
      .map((loc) => loc.trim())
  if (data.sitemapindex) return { index: true, locs: locs(list((data.sitemapindex as { sitemap?: unknown }).sitemap)) }
  if (data.urlset) return { index: false, locs: locs(list((data.urlset as { url?: unknown }).url)) }
  throw new Error('not a sitemap (no <urlset> or <sitemapindex>)')
}

/** True when a URL names a sitemap rather than a page. */
export function looksLikeSitemap(url: string): boolean {
  const path = new URL(url).pathname.toLowerCase()
  return path.endsWith('.xml') || /sitemap/.test(path)
}

/** The directory prefix a root covers: `https://x/docs/intro` covers `https://x/docs/`. */
function scopeOf(url: URL): string {
  return `${url.origin}${url.pathname.endsWith('/') ? url.pathname : url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1)}`
}

const normalize = (href: string, base: string): string | undefined => {
  try {
    const url = new URL(href, base)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    if (url.username || url.password) return undefined
    url.hash = ''
    return url.href
  } catch {
    return undefined
  }
}

async function readSitemaps(first: string, fetcher: SafeFetcher, root: DiscoveryRoot, errors: string[]): Promise<string[] | undefined> {
  const pages: string[] = []
  const queue = [first]
  const seen = new Set<string>()
  let read = 0
  while (queue.length && read < MAX_SITEMAPS && pages.length < root.maxUrls * 4) {
    const at = queue.shift()!
    if (seen.has(at)) continue
    seen.add(at)
    read++
    try {
      const answer = await fetcher.get(at)
      if (answer.status < 200 || answer.status >= 300) {
        if (read === 1) return undefined
        errors.push(`HTTP ${answer.status} from ${at}`)
        continue
      }
      const parsed = parseSitemap(decodeBody(answer.body, String(answer.headers['content-type'] ?? '')))
      for (const loc of parsed.locs) {
        const url = normalize(loc, at)
        if (url) (parsed.index ? queue : pages).push(url)
      }
    } catch (error) {
      if (read === 1) {
        if (!(error instanceof FetchFailure) || error.status !== 'fetch-error' || !/refused/.test(error.message)) errors.push(`${at}: ${(error as Error).message}`)
        return undefined
      }
      errors.push(`${at}: ${(error as Error).message}`)
    }
  }
  return pages
}

async function crawl(root: DiscoveryRoot, fetcher: SafeFetcher, robots: RobotsCache, prefix: string, errors: string[]): Promise<{ urls: string[]; skipped: number }> {
  const found: string[] = []
  const seen = new Set<string>([root.url])
  let frontier = [root.url]
  let skipped = 0
  for (let depth = 0; depth <= root.maxDepth && frontier.length && found.length < root.maxUrls; depth++) {
    const next: string[] = []
    for (const url of frontier) {
      if (found.length >= root.maxUrls) break
      if (!(await robots.allowed(url))) {
        skipped++
        continue
      }
      let answer
      try {
        answer = await fetcher.get(url)
      } catch (error) {
        errors.push(`${url}: ${(error as Error).message}`)
        continue
      }
      if (answer.status < 200 || answer.status >= 300) {
        errors.push(`HTTP ${answer.status} from ${url}`)
        continue
      }
      found.push(url)
      const type = mediaType(String(answer.headers['content-type'] ?? ''))
      if (depth === root.maxDepth || (type !== 'text/html' && type !== 'application/xhtml+xml')) continue
      let hrefs: string[]
      try {
        hrefs = (await runHtmlJob({ op: 'links', html: decodeBody(answer.body, String(answer.headers['content-type'] ?? '')), baseUrl: answer.url })).links ?? []
      } catch (error) {
        errors.push(`${url}: ${(error as Error).message}`)
        continue
      }
      for (const href of hrefs) {
        const link = normalize(href, answer.url)
        // A link carrying a credential is neither followed nor kept (see keep in discoverRoot).
        if (!link?.startsWith(prefix) || seen.has(link) || hasUrlCredentials(link)) continue
        seen.add(link)
        next.push(link)
      }
    }
    frontier = next
  }
  return { urls: found, skipped }
}

/** Walks one root; returns the URLs found (not yet recorded). */
export async function discoverRoot(root: DiscoveryRoot, fetcher: SafeFetcher, robots: RobotsCache): Promise<{ result: DiscoverResult; urls: string[] }> {
  const result: DiscoverResult = { root: root.name, method: 'none', found: 0, added: 0, skippedByRobots: 0, skippedCredentials: 0, errors: [] }
  const start = new URL(root.url)
  const prefix = scopeOf(start)
  const keep = async (urls: string[]) => {
    const out: string[] = []
    for (const url of new Set(urls)) {
      if (out.length >= root.maxUrls) break
      if (!url.startsWith(prefix)) continue
      // A URL that carries a credential (userinfo, `?token=…`, a signature) is a grant, not an address: it is not
      // recorded, so decisions.json and the documents never hold it.
      if (hasUrlCredentials(url)) {
        result.skippedCredentials++
        continue
      }
      if (!(await robots.allowed(url))) {
        result.skippedByRobots++
        continue
      }
      out.push(url)
    }
    return out
  }
  let urls: string[] = []
  if (looksLikeSitemap(root.url)) {
    result.method = 'sitemap'
    // A sitemap covers the directory it sits in (sitemaps.org: "all URLs listed in the Sitemap must use the same
    // protocol and reside on the same host"; a sitemap at /docs/ may list /docs/ URLs only), as a page root does.
    const pages = await readSitemaps(root.url, fetcher, root, result.errors)
    if (!pages) result.errors.push(`${root.url} could not be read as a sitemap`)
    urls = await keep(pages ?? [])
  } else {
    const pages = await readSitemaps(`${start.origin}/sitemap.xml`, fetcher, root, result.errors)
    const kept = pages ? await keep(pages) : []
    if (kept.length) {
      result.method = 'origin-sitemap'
      urls = kept
    } else {
      result.method = 'crawl'
      const crawled = await crawl(root, fetcher, robots, prefix, result.errors)
      urls = crawled.urls.filter((url) => !hasUrlCredentials(url) || !++result.skippedCredentials)
      result.skippedByRobots += crawled.skipped
    }
  }
  result.found = urls.length
  result.errors = result.errors.slice(0, 20)
  return { result, urls }
}

/** Walks every root in parallel and records new URLs as pending decisions. */
export async function discover(roots: DiscoveryRoot[], fetcher: SafeFetcher, decisions: Decisions): Promise<DiscoverResult[]> {
  const robots = new RobotsCache(fetcher)
  return Promise.all(
    roots.map(async (root) => {
      const { result, urls } = await discoverRoot(root, fetcher, robots).catch((error: Error) => ({
        result: { root: root.name, method: 'none' as const, found: 0, added: 0, skippedByRobots: 0, skippedCredentials: 0, errors: [error.message] },
        urls: [] as string[],
      }))
      if (urls.length) result.added = await decisions.addPending(urls, root.name)
      return result
    }),
  )
}

export { RobotsCache, USER_AGENT }
