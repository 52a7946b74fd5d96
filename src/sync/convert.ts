/**
 * From a fetched body to the Markdown a section holds: Markdown and plain text verbatim; HTML and XHTML parsed by a
 * real HTML parser (node-html-parser), narrowed by the CSS selector when it matches (else the whole document), and
 * converted by node-html-markdown. Scripts, styles and other non-content elements are dropped before conversion.
 * @module dsh-knowledge-sync/sync/convert
 */
import { NodeHtmlMarkdown } from 'node-html-markdown'
import { parse as parseHtml, type HTMLElement } from 'node-html-parser'

/** A body of a type this bundle does not convert. */
export class UnsupportedType extends Error {}

const NOT_CONTENT = 'script, style, noscript, template, iframe, object, embed, svg, canvas, form, button, input, select, textarea, link, meta'
const markdown = new NodeHtmlMarkdown({ keepDataImages: false, useLinkReferenceDefinitions: false })

/** The media type of a Content-Type header, lowercase, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return String(contentType ?? '').split(';')[0].trim().toLowerCase()
}

/** The charset a Content-Type names; utf-8 unless it says otherwise and Node knows the label. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([A-Za-z0-9._-]+)/i.exec(String(contentType ?? ''))?.[1] ?? 'utf-8'
  try { return new TextDecoder(charset).decode(body) } catch { return new TextDecoder('utf-8').decode(body) }
}

/** HTML to Markdown; `selector` picks the subtrees to keep, falling back to the whole document when nothing matches. */
export function htmlToMarkdown(html: string, selector?: string, baseUrl?: string): { markdown: string; selected: boolean } {
  const root = parseHtml(html, { comment: false, blockTextElements: { script: true, style: true, pre: true, noscript: true } })
  let picked: HTMLElement[] = []
  if (selector) { try { picked = root.querySelectorAll(selector) } catch { picked = [] } }
  const scope = picked.length ? picked : [root.querySelector('body') ?? root]
  const parts = scope.map((element) => {
    for (const junk of element.querySelectorAll(NOT_CONTENT)) junk.remove()
    // Links and images resolved against the page, so they still point somewhere from inside the knowledge base.
    if (baseUrl) {
      for (const [tag, attr] of [['a', 'href'], ['img', 'src']] as const) {
        for (const el of element.querySelectorAll(`${tag}[${attr}]`)) {
          try { el.setAttribute(attr, new URL(el.getAttribute(attr) ?? '', baseUrl).href) } catch { el.removeAttribute(attr) }
        }
      }
    }
    return markdown.translate(element.toString()).trim()
  })
  return { markdown: parts.filter(Boolean).join('\n\n'), selected: picked.length > 0 }
}

/** A fetched body as section text. Throws {@link UnsupportedType} for any type but Markdown, plain text, HTML, XHTML. */
export function toSectionText(body: Buffer, contentType: string | undefined, selector?: string, baseUrl?: string): string {
  const type = mediaType(contentType)
  const text = decodeBody(body, contentType)
  if (type === 'text/markdown' || type === 'text/x-markdown' || type === 'text/plain') return text
  if (type === 'text/html' || type === 'application/xhtml+xml') return htmlToMarkdown(text, selector, baseUrl).markdown
  throw new UnsupportedType(`content type ${type || '(none)'} is not Markdown, plain text or HTML`)
}
