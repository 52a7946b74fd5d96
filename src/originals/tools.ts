/**
 * The originals tools every run gets: `list_sources`, `extract_text`, `save_to_sources`, `download_to_sources`.
 * Each returns a `text` for the model within a stated budget; no hash is ever in it.
 * @module dsh-knowledge-sync/originals/tools
 */
import type { Context } from '@deepseek-ai/cordis'
import { sessionOf, TEXT_OUTPUT, withinBudget } from '../tool-output.js'
import type { ListedOriginal } from '../knowledge/originals/index.js'
import { EXTRACT_BUDGET } from './extract/index.js'
import type { OriginalsService } from './service.js'

export const LIST_BUDGET = 12_000

const object = (args: unknown): Record<string, unknown> => {
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object')
  return args as Record<string, unknown>
}

const mb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`)
const from = (p: ListedOriginal['provenance']) => (p.kind === 'url' ? `url ${p.url}` : p.kind)

/** One line per original, for the model. */
export function renderList(items: ListedOriginal[]): string {
  if (!items.length) return 'No originals yet. Add one with save_to_sources, download_to_sources or request_file.'
  const lines = items.map((i) => {
    const counts = [i.pages !== undefined ? `${i.pages} pages${i.declaredPages !== undefined ? ` (claims ${i.declaredPages})` : ''}` : '', i.slides !== undefined ? `${i.slides} slides` : '']
      .filter(Boolean)
      .join(', ')
    const parts = [`originals/${i.path}`, i.status, i.type, mb(i.size), counts, `changed ${i.changedAt.slice(0, 16).replace('T', ' ')}`, `from ${from(i.provenance)}`]
    if (i.replaces) parts.push(`replaces ${i.replaces}`)
    if (i.retired) parts.push(`retired ${i.retired.why}: ${i.retired.reason}${i.retired.replacedBy ? ` → ${i.retired.replacedBy}` : ''}`)
    if (i.problem) parts.push(`PROBLEM: ${i.problem}`)
    if (i.summaries?.length) parts.push(`summaries ${i.summaries.join(', ')}`)
    if (i.staleSummaries?.length) parts.push(`STALE summaries ${i.staleSummaries.join(', ')} (the original changed after they were written)`)
    return `- ${parts.filter(Boolean).join(' · ')}`
  })
  return withinBudget(`${items.length} original(s):\n${lines.join('\n')}`, LIST_BUDGET, (shown) => `(list cut at ${shown} characters)`)
}

export function registerTools(ctx: Context, service: OriginalsService): void {
  ctx.tools.register({
    name: 'list_sources',
    description:
      'List the originals: the files this knowledge base is built from (originals/), present, missing and retired, with ' +
      'type, size, pages (PDF) and slides (PPTX), provenance, what each replaces, the summary pages built from it and ' +
      `which of those are stale. Output: at most ${LIST_BUDGET} characters.`,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    output: TEXT_OUTPUT,
    async execute() {
      const items = await service.list()
      return { count: items.length, text: (await service.store.redact(renderList(items))).text }
    },
  })

  ctx.tools.register({
    name: 'extract_text',
    description:
      'The text of an original as Markdown: DOCX (headings, paragraphs, lists, tables), PPTX (a section per slide: ' +
      'title, text, speaker notes; from/to are slide numbers), XLSX (a table per sheet, 200 rows, the rest counted; ' +
      'from/to are sheet numbers), PDF (a section per page; from/to are page numbers), Markdown/text/HTML (in parts). ' +
      `Images are skipped and counted. Output: at most ${EXTRACT_BUDGET} characters a call; it says the "from" to continue with.`,
    parameters: {
      type: 'object',
      properties: {
        source: { type: 'string', description: 'The original, as list_sources names it (originals/… or the path inside).' },
        from: { type: 'integer', minimum: 1, description: 'First slide, page, sheet or part (default 1).' },
        to: { type: 'integer', minimum: 1, description: 'Last slide, page, sheet or part (default: as many as fit).' },
      },
      required: ['source'],
      additionalProperties: false,
    },
    output: TEXT_OUTPUT,
    async execute(args) {
      const a = object(args)
      return service.extract(a.source, a.from, a.to)
    },
  })

  ctx.tools.register({
    name: 'save_to_sources',
    description:
      "Copy a file from this run's folder into originals/, recording where it came from. Nothing is overwritten: an " +
      'existing destination is an error (choose another name); a byte-identical original is not copied again (its path ' +
      'is returned); a new version of an original goes under a new name with "replaces".',
    parameters: {
      type: 'object',
      properties: {
        source: { type: 'string', description: "The file, relative to the run's folder (or absolute inside it)." },
        destination: { type: 'string', description: 'Its path inside originals/, e.g. "course/syllabus-2025.docx" (a trailing / keeps the name).' },
        replaces: { type: 'string', description: 'The original this one is a new version of (optional).' },
      },
      required: ['source', 'destination'],
      additionalProperties: false,
    },
    output: TEXT_OUTPUT,
    async execute(args, exec) {
      const a = object(args)
      const session = sessionOf(exec.agent)
      const cwd = session?.header?.cwd || process.cwd()
      const done = await service.save(a.source, a.destination, { kind: 'run', ...(session?.id ? { session: session.id } : {}) }, { within: cwd, cwd, replaces: a.replaces })
      return { ...done, text: done.existing ? `A byte-identical original is already there: originals/${done.path} (nothing copied).` : `Saved as originals/${done.path}.` }
    },
  })

  ctx.tools.register({
    name: 'download_to_sources',
    description:
      'Download a URL into originals/ (public addresses only, every redirect checked, at most 50 MB), streamed to disk: ' +
      'the content never passes through this conversation. A web page is also saved beside it as its main content in ' +
      'Markdown (redacted). Same naming rules as save_to_sources.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'An http(s) URL.' },
        destination: { type: 'string', description: 'Its path inside originals/, e.g. "web/pricing.html".' },
        replaces: { type: 'string', description: 'The original this one is a new version of (optional).' },
      },
      required: ['url', 'destination'],
      additionalProperties: false,
    },
    output: TEXT_OUTPUT,
    async execute(args) {
      const a = object(args)
      const got = await service.download(a.url, a.destination, a.replaces)
      const lines = [got.existing ? `A byte-identical original is already there: originals/${got.path}.` : `Saved ${mb(got.size)} (${got.contentType || 'unknown type'}) as originals/${got.path}.`]
      if (got.markdown) lines.push(`Its main content in Markdown: originals/${got.markdown.path}.`)
      if (got.note) lines.push(`Note: ${got.note}.`)
      return { path: got.path, markdown: got.markdown?.path, text: lines.join('\n') }
    },
  })
}
