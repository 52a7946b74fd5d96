/**
 * From a fetched body to the Markdown a section holds: Markdown and plain text verbatim; HTML and XHTML parsed by a
 * real HTML parser (htmlparser2), narrowed by the CSS selector (css-select) when it matches (else the whole body),
 * cleaned of scripts, styles and other non-content elements, and converted by turndown — all in a worker thread
 * with a time limit ({@link runHtmlJob}), so no page can stall the event loop.
 * @module dsh-knowledge-sync/sync/convert
 */
import { runHtmlJob } from './html.js'

/** A body of a type this bundle does not convert. */
export class UnsupportedType extends Error {}

/** The media type of a Content-Type header, lowercase, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase()
}

/** The charset a Content-Type names; utf-8 unless it says otherwise and Node knows the label. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([A-Za-z0-9._-]+)/i.exec(String(contentType ?? ''))?.[1] ?? 'utf-8'
  try {
    return new TextDecoder(charset).decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}

/** HTML to Markdown; `selector` picks the subtrees to keep, falling back to the whole body when nothing matches. */
export async function htmlToMarkdown(html: string, selector?: string, baseUrl?: string): Promise<{ markdown: string; selected: boolean }> {
  const answer = await runHtmlJob({ op: 'markdown', html, selector, baseUrl })
  return { markdown: answer.markdown ?? '', selected: answer.selected ?? false }
}

/** A fetched body as section text. Throws {@link UnsupportedType} for any type but Markdown, plain text, HTML, XHTML. */
export async function toSectionText(body: Buffer, contentType: string | undefined, selector?: string, baseUrl?: string): Promise<string> {
  const type = mediaType(contentType)
  const text = decodeBody(body, contentType)
  if (type === 'text/markdown' || type === 'text/x-markdown' || type === 'text/plain') return text
  if (type === 'text/html' || type === 'application/xhtml+xml') return (await htmlToMarkdown(text, selector, baseUrl)).markdown
  throw new UnsupportedType(`content type ${type || '(none)'} is not Markdown, plain text or HTML`)
}
