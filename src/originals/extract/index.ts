/**
 * The text of an original for a model: one entry point over the formats, paged within a stated budget. Units are
 * slides (PPTX), pages (PDF), sheets (XLSX) or parts of a long document (DOCX, Markdown, text, HTML); `from`/`to` choose them and
 * the output says where to continue. The caller redacts the result before any model sees it.
 * @module dsh-knowledge-sync/originals/extract
 */
import { fstatSync, readSync } from 'node:fs'
import type { OriginalType } from '../../knowledge/originals/names.js'
import { withinBudget } from '../../tool-output.js'
import { htmlToMarkdown } from './markdown.js'
import { countPdf } from './pdf.js'
import { countSlides, extractPptx } from './pptx.js'
import type { Extracted, Unit } from './types.js'
import { extractXlsx } from './xlsx.js'

export { ExtractError } from './zip.js'
export { countPdf } from './pdf.js'

/** The most characters `extract_text` returns in one call (about 5k tokens). */
export const EXTRACT_BUDGET = 20_000
const MAX_TEXT_BYTES = 8 * 1024 * 1024

export interface ExtractRequest {
  from?: number
  to?: number
  budget?: number
}

export interface ExtractResult {
  text: string
  unit: Extracted['unit'] | 'none'
  total: number
  from: number
  to: number
  /** The `from` to ask for next, when more follows. */
  next?: number
}

/** Splits Markdown into parts of at most `size` characters at paragraph boundaries (a longer paragraph is cut). */
export function parts(markdown: string, size: number): string[] {
  const out: string[] = []
  let current = ''
  for (const block of markdown.split(/\n{2,}/)) {
    const piece = block.length > size ? block.slice(0, size) : block
    if (current && current.length + piece.length + 2 > size) {
      out.push(current)
      current = ''
    }
    current = current ? `${current}\n\n${piece}` : piece
  }
  if (current || !out.length) out.push(current)
  return out
}

function readText(fd: number, file: string): string {
  const size = Math.min(fstatSync(fd).size, MAX_TEXT_BYTES)
  const bytes = Buffer.alloc(size)
  readSync(fd, bytes, 0, size, 0)
  if (bytes.subarray(0, 8192).includes(0)) throw new Error(`${file}: holds binary data, not text`)
  return bytes.toString('utf8')
}

const paged = (units: string[], from: number, to: number, notes: string[]): Extracted => ({
  units: units.slice(from - 1, to).map((text, i) => ({ label: `Part ${from + i} of ${units.length}`, text })),
  total: units.length,
  unit: 'part',
  from,
  notes,
})

/** Counts pages (PDF) or slides (PPTX) of an open original: the manifest's cached counts. */
export async function countPages(fd: number, path: string, type: OriginalType): Promise<{ pages?: number; slides?: number; declaredPages?: number }> {
  const file = `originals/${path}`
  if (type === 'pptx') return { slides: await countSlides(fd, file) }
  if (type === 'pdf') {
    const { pages, declaredPages } = await countPdf(fd, file)
    return { pages, ...(declaredPages !== undefined ? { declaredPages } : {}) }
  }
  return {}
}

/** The text of the original open at `fd`, units `from`…`to`, within the budget. Throws an error naming the file. */
export async function extractText(fd: number, path: string, type: OriginalType, request: ExtractRequest = {}): Promise<ExtractResult> {
  const file = `originals/${path}`
  const budget = Math.max(2_000, Math.min(request.budget ?? EXTRACT_BUDGET, EXTRACT_BUDGET))
  const from = Math.max(1, Math.trunc(request.from ?? 1) || 1)
  const to = Math.max(from, Math.trunc(request.to ?? Number.MAX_SAFE_INTEGER) || from)
  const room = budget - 600
  const full = (units: Unit[]) => units.reduce((n, u) => n + u.label.length + u.text.length + 8, 0) >= room
  let got: Extracted
  if (type === 'pptx') got = await extractPptx(fd, file, from, to, full)
  else if (type === 'xlsx') got = await extractXlsx(fd, file, from, to, full)
  else if (type === 'docx') {
    // mammoth is loaded on the first DOCX only: listing, slides and sheets never pay for it.
    const { docxMarkdown } = await import('./docx.js')
    const { markdown, images } = await docxMarkdown(fd, file)
    got = paged(parts(markdown, room), from, to, images ? [`${images} image(s) skipped`] : [])
  } else if (type === 'markdown' || type === 'text') got = paged(parts(readText(fd, file), room), from, to, [])
  else if (type === 'html') got = paged(parts(htmlToMarkdown(readText(fd, file)), room), from, to, [])
  else if (type === 'pdf') {
    // pdf.js is loaded on the first PDF only, like mammoth.
    const { extractPdf } = await import('./pdf-text.js')
    got = await extractPdf(fd, file, from, to, full)
  } else
    return {
      text: `# ${file}\n${type === 'image' ? 'An image: skipped (images are not read).' : 'Not a format whose text can be extracted (DOCX, PPTX, XLSX, PDF, Markdown, text, HTML).'}`,
      unit: 'none',
      total: 0,
      from: 1,
      to: 0,
    }
  return render(file, type, got, room, to)
}

/** Header, the units that fit, and where to continue. */
function render(file: string, type: OriginalType, got: Extracted, room: number, askedTo: number): ExtractResult {
  const shown: string[] = []
  let used = 0
  let last = got.from - 1
  for (const unit of got.units) {
    const block = `## ${unit.label}\n\n${unit.text}`
    if (shown.length && used + block.length > room) break
    shown.push(used + block.length > room ? withinBudget(block, room - used, () => `(${unit.label} is cut here: it is longer than one call's budget)`) : block)
    used += block.length
    last++
  }
  const end = Math.min(askedTo, got.total)
  const range = got.total ? `${got.unit}s ${got.from}–${Math.max(last, got.from)} of ${got.total}` : `no ${got.unit}s`
  const more = last < end ? `\n\n(More follows: call extract_text with from=${last + 1}.)` : ''
  const notes = got.notes.length ? ` · ${got.notes.join(' · ')}` : ''
  const body = shown.length ? shown.join('\n\n') : got.total && got.from > got.total ? `(from=${got.from} is past the last ${got.unit}, ${got.total})` : '(no text)'
  return {
    text: `# ${file}\n${type.toUpperCase()} · ${range}${notes}\n\n${body}${more}`,
    unit: got.unit,
    total: got.total,
    from: got.from,
    to: last,
    ...(last < end ? { next: last + 1 } : {}),
  }
}
