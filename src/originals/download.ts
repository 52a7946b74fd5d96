/**
 * `download_to_sources`: a URL fetched through the guarded fetcher (every hop's address checked, no private
 * networks, at most 50 MB after decompression) and streamed straight into the originals folder, never through the
 * model's context. A web page is also saved beside it as its main content in Markdown (Mozilla's Readability over
 * a linkedom document, then turndown), redacted; the HTML stays as obtained.
 * @module dsh-knowledge-sync/originals/download
 */
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import { type Added, type OriginalsFolder, originalPath, OriginalsError } from '../knowledge/originals/index.js'
import { MAX_DOWNLOAD_BYTES, type SafeFetcher } from '../net/fetcher.js'
import { htmlToMarkdown } from './extract/markdown.js'

/** Pages larger than this are kept as HTML only (Readability on a huge DOM is slow and the page is not an article). */
const MAX_READABLE_HTML = 5 * 1024 * 1024

export interface Downloaded extends Added {
  url: string
  contentType: string
  size: number
  /** The Markdown of a web page's main content, saved beside it. */
  markdown?: Added
  note?: string
}

/** `page.html` → `page.md`; a name without extension gets `.md` appended. */
export function markdownName(path: string): string {
  return /\.[A-Za-z0-9]{1,8}$/.test(path) ? path.replace(/\.[A-Za-z0-9]{1,8}$/, '.md') : `${path}.md`
}

/** The main content of an HTML page as Markdown, with its title and where it came from; undefined when none is found. */
export function pageMarkdown(html: string, url: string): string | undefined {
  const { document } = parseHTML(html)
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse()
  if (!article?.content) return undefined
  const body = htmlToMarkdown(article.content)
  if (!body.trim()) return undefined
  return `# ${(article.title || url).replace(/\s+/g, ' ').trim()}\n\nSource: <${url}>\n\n${body}\n`
}

export async function downloadOriginal(
  folder: OriginalsFolder,
  fetcher: SafeFetcher,
  url: string,
  destination: unknown,
  options: { replaces?: unknown; redact: (text: string) => Promise<string> },
): Promise<Downloaded> {
  const path = originalPath(destination)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new OriginalsError(`not a URL: ${String(url).slice(0, 200)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OriginalsError(`only http and https URLs are downloaded, not ${parsed.protocol}`)
  let added: Added | undefined
  let contentType = ''
  const answer = await fetcher.download(url, async (body, headers) => {
    contentType = String(headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase()
    added = await folder.add(body, path, { kind: 'url', url: parsed.href }, { maxBytes: MAX_DOWNLOAD_BYTES, what: parsed.href, replaces: options.replaces })
  })
  if (!added) throw new OriginalsError(`${parsed.href}: nothing was received`)
  const entry = (await folder.entries()).find((e) => e.path === added?.path)
  const result: Downloaded = { ...added, url: answer.url, contentType, size: entry?.size ?? 0 }
  const html = contentType === 'text/html' || contentType === 'application/xhtml+xml' || /\.html?$/i.test(path)
  if (!html || added.existing) return result
  if (result.size > MAX_READABLE_HTML) return { ...result, note: `the page is larger than ${MAX_READABLE_HTML / 1024 / 1024} MB: kept as HTML only` }
  const markdown = pageMarkdown(readFileSync(folder.fullPath(added.path), 'utf8'), answer.url)
  if (!markdown) return { ...result, note: 'no main content was found in the page: kept as HTML only' }
  const mdPath = markdownName(added.path)
  try {
    result.markdown = await folder.add(
      Readable.from([Buffer.from(await options.redact(markdown))]),
      mdPath,
      { kind: 'url', url: answer.url },
      { maxBytes: MAX_DOWNLOAD_BYTES, what: `the Markdown of ${answer.url}` },
    )
  } catch (error) {
    result.note = `the page's Markdown was not saved: ${(error as Error).message}`
  }
  return result
}
