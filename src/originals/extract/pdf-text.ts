/**
 * PDF: the text of pages `from`…`to`, a section per page, through pdf.js (Mozilla's reader, as packaged without a
 * worker or a native part by unpdf: 2.6 MB, no dependencies). Loaded on the first PDF only. The file is first checked
 * by the page counter of pdf.ts (which also streams it once: a file that is not a PDF is refused before pdf.js sees
 * it, and a page tree that lies is reported); pdf.js then reads only the pages asked for, one at a time, until the
 * call's budget is spent, so a document of 10,000 pages costs what its first pages cost. Hostile input: the pdf.js
 * unpdf bundles (6.1) evaluates no code (its bundle holds no `eval` or `new Function`: the font-code path of
 * CVE-2024-4367 is gone), no font is installed, no XFA form is run, nothing is fetched; an encrypted or unreadable file is an error naming it; a page that cannot be read
 * says so in its section and the others still come. pdf.js needs the whole file at hand (its cross-reference table
 * sits at the end and points anywhere), so the bytes are read into memory: at most {@link MAX_PDF_BYTES}, above the
 * 50 MB an original may have.
 * @module dsh-knowledge-sync/originals/extract/pdf-text
 */
import { fstatSync, readSync } from 'node:fs'
import { countPdf } from './pdf.js'
import type { Extracted, Unit } from './types.js'
import { ExtractError } from './zip.js'

export const MAX_PDF_BYTES = 64 * 1024 * 1024
/**
 * pdf.js spends about 9 KB per page of the document when it opens it (measured: +24 MB between 300 and 3,000 pages),
 * whatever pages are read; past this many pages (≈ 90 MB) the text is refused with the count, naming the file.
 */
export const MAX_PDF_PAGES = 10_000
/** Characters kept of one page's text (a page holds a few thousand; the call's budget cuts further). */
const MAX_PAGE_TEXT = 200_000

interface TextItem {
  str?: string
  hasEOL?: boolean
}

/** A page's text items as lines: pdf.js marks the ends of lines; runs of blanks become one. */
export function pageText(items: readonly TextItem[]): string {
  let text = ''
  for (const item of items) {
    if (typeof item.str === 'string') text += item.str
    if (item.hasEOL) text += '\n'
    if (text.length > MAX_PAGE_TEXT) break
  }
  return text
    .slice(0, MAX_PAGE_TEXT)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

function readAll(fd: number, file: string): Uint8Array {
  const size = fstatSync(fd).size
  if (size > MAX_PDF_BYTES) throw new ExtractError(file, `is ${Math.round(size / 1024 / 1024)} MB; PDF text is read from files up to ${MAX_PDF_BYTES / 1024 / 1024} MB`)
  const bytes = new Uint8Array(size)
  for (let at = 0; at < size; ) {
    const got = readSync(fd, bytes, at, size - at, at)
    if (!got) throw new ExtractError(file, 'ended while it was read (it changed on disk?)')
    at += got
  }
  return bytes
}

/** Extracts pages `from`…`to` (1-based) of the PDF behind `fd` (left open) until `enough` says the budget is spent. */
export async function extractPdf(fd: number, file: string, from: number, to: number, enough: (units: Unit[]) => boolean): Promise<Extracted> {
  const counts = await countPdf(fd, file)
  if (counts.pages > MAX_PDF_PAGES)
    throw new ExtractError(file, `holds ${counts.pages} page objects; PDF text is read from documents of up to ${MAX_PDF_PAGES} pages (split it, or ask for a smaller copy)`)
  const { getDocumentProxy } = await import('unpdf')
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>
  try {
    doc = await getDocumentProxy(readAll(fd, file), {
      disableFontFace: true,
      useSystemFonts: false,
      enableXfa: false,
      stopAtErrors: false,
      verbosity: 0,
    })
  } catch (error) {
    if (error instanceof ExtractError) throw error
    const name = (error as Error).name
    if (name === 'PasswordException') throw new ExtractError(file, 'is encrypted (password-protected); open it and save it without a password first')
    throw new ExtractError(file, `is not a readable PDF (${(error as Error).message || name})`)
  }
  try {
    const total = doc.numPages
    const units: Unit[] = []
    for (let n = from; n <= Math.min(to, total); n++) {
      if (units.length && enough(units)) break
      let text: string
      try {
        const page = await doc.getPage(n)
        text = pageText((await page.getTextContent()).items as TextItem[]) || '(no text on this page: a scan or a picture, not read)'
        page.cleanup()
      } catch (error) {
        text = `(this page cannot be read: ${(error as Error).message || (error as Error).name})`
      }
      units.push({ label: `Page ${n} of ${total}`, text })
    }
    const notes: string[] = []
    if (counts.declaredPages !== undefined) notes.push(`its page tree claims ${counts.declaredPages} pages`)
    if (counts.images) notes.push(`${counts.images} image(s) skipped`)
    return { units, total, unit: 'page', from, notes }
  } finally {
    await doc.loadingTask.destroy().catch(() => {})
  }
}
