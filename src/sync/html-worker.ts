/**
 * The HTML work of sync, run in a worker thread (see {@link ./html.ts}) so a large or crafted page can never stall
 * dsh's event loop: parsing (htmlparser2), CSS selection (css-select), cleanup (domutils), serialization
 * (dom-serializer) and HTML → Markdown (turndown). Also extracts links for discover's crawl.
 *
 * Loaded directly as `.ts` by Node's type stripping in the tests and as `.js` from lib/, so it imports only packages
 * and uses erasable TypeScript only.
 * @module dsh-knowledge-sync/sync/html-worker
 */
import { parentPort } from 'node:worker_threads'
import { selectAll } from 'css-select'
import render from 'dom-serializer'
import { removeElement } from 'domutils'
import { parseDocument } from 'htmlparser2'
import TurndownService from 'turndown'

/** One job: convert a page (narrowed by `selector`) to Markdown, or list its links. */
export interface HtmlJob {
  id: number
  op: 'markdown' | 'links'
  html: string
  selector?: string
  baseUrl?: string
}
export type HtmlAnswer = { id: number; ok: true; markdown?: string; selected?: boolean; links?: string[] } | { id: number; ok: false; error: string }

const NOT_CONTENT = 'script, style, noscript, template, iframe, object, embed, svg, canvas, form, button, input, select, textarea, link, meta'
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' })

type Node = ReturnType<typeof parseDocument>['children'][number]
type Element = Node & { attribs: Record<string, string>; parent: Node | null }

const absolute = (value: string, base: string | undefined): string | undefined => {
  try {
    return base ? new URL(value, base).href : value
  } catch {
    return undefined
  }
}

function toMarkdown(job: HtmlJob): HtmlAnswer {
  const doc = parseDocument(job.html)
  let picked: Element[] = []
  if (job.selector) {
    try {
      picked = selectAll(job.selector, doc) as Element[]
    } catch {
      picked = []
    }
  }
  // Keep only the outermost matches: a nested match is already inside its ancestor's text.
  const set = new Set<Node>(picked)
  picked = picked.filter((el) => {
    for (let p = el.parent; p; p = (p as Element).parent) if (set.has(p)) return false
    return true
  })
  const scope: Node[] = picked.length ? picked : (selectAll('body', doc) as Node[]).slice(0, 1)
  const roots: Node[] = scope.length ? scope : [doc]
  for (const junk of selectAll(NOT_CONTENT, roots)) removeElement(junk)
  // Links and images resolved against the page, so they still point somewhere from inside the knowledge base.
  for (const el of selectAll('a[href], img[src]', roots) as Element[]) {
    const attr = el.attribs.href !== undefined ? 'href' : 'src'
    const resolved = absolute(el.attribs[attr], job.baseUrl)
    if (resolved) el.attribs[attr] = resolved
    else delete el.attribs[attr]
  }
  const parts = roots.map((node) => turndown.turndown(render(node)).trim()).filter(Boolean)
  return { id: job.id, ok: true, markdown: parts.join('\n\n'), selected: picked.length > 0 }
}

function links(job: HtmlJob): HtmlAnswer {
  const doc = parseDocument(job.html)
  const base = (selectAll('base[href]', doc) as Element[])[0]?.attribs.href
  const from = absolute(base ?? '', job.baseUrl) ?? job.baseUrl
  const out: string[] = []
  for (const a of selectAll('a[href]', doc) as Element[]) {
    const url = absolute(a.attribs.href, from)
    if (url) out.push(url)
  }
  return { id: job.id, ok: true, links: out }
}

/** Runs one job; never throws (a stack overflow on absurd nesting becomes an error answer). */
export function runJob(job: HtmlJob): HtmlAnswer {
  try {
    return job.op === 'links' ? links(job) : toMarkdown(job)
  } catch (error) {
    return { id: job.id, ok: false, error: error instanceof RangeError ? 'the page is nested too deeply to convert' : (error as Error).message }
  }
}

parentPort?.on('message', (job: HtmlJob) => parentPort!.postMessage(runJob(job)))
