/**
 * PDF: the page count without parsing the document. One streamed pass over the bytes counts page objects
 * (`/Type /Page`), image objects, the largest `/Count` a page tree declares, and where each compressed object
 * stream (`/Type /ObjStm`, where PDF 1.5+ writers put page objects) starts; then only those streams are read and
 * inflated (bounded) to count the pages inside them. A file whose page tree claims another number than it holds
 * reports both. The text of pages is pdf-text.ts's (pdf.js), loaded only when a PDF's text is asked for.
 * @module dsh-knowledge-sync/originals/extract/pdf
 */
import { createReadStream, readSync } from 'node:fs'
import { inflateSync } from 'node:zlib'
import { ExtractError } from './zip.js'

const CHUNK = 1024 * 1024
const CARRY = 256
const MAX_OBJSTM_BYTES = 16 * 1024 * 1024
const MAX_OBJSTMS = 10_000

const PAGE = /\/Type\s*\/Page(?![A-Za-z])/g
const COUNT = /\/Type\s*\/Pages(?![A-Za-z])[^>]{0,200}?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]{0,200}?\/Type\s*\/Pages(?![A-Za-z])/g
const IMAGE = /\/Subtype\s*\/Image(?![A-Za-z])/g
const OBJSTM = /\/Type\s*\/ObjStm(?![A-Za-z])[\s\S]{0,400}?stream(\r\n|\n|\r)/g

export interface PdfCounts {
  pages: number
  /** The page tree's own claim, when it differs from the pages found. */
  declaredPages?: number
  images: number
}

/** Counts the pages of the PDF behind descriptor `fd` (left open). */
export async function countPdf(fd: number, file: string): Promise<PdfCounts> {
  let carry = ''
  let pages = 0
  let images = 0
  let declared = 0
  let offset = 0
  let head = ''
  const objectStreams: Array<{ start: number; length: number }> = []
  const lengthNear = (dict: string) => Number(/\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict)?.[1] ?? Number.NaN)
  const stream = createReadStream('', { fd, autoClose: false, start: 0, highWaterMark: CHUNK })
  for await (const part of stream as AsyncIterable<Buffer>) {
    const text = carry + part.toString('latin1')
    if (!head) head = text.slice(0, 1024)
    const base = offset - carry.length
    // Count a match only when it ends past the carried tail: matches inside the tail were counted with the last chunk.
    const fresh = (m: RegExpMatchArray) => (m.index ?? 0) + m[0].length > carry.length
    for (const m of text.matchAll(PAGE)) if (fresh(m)) pages++
    for (const m of text.matchAll(IMAGE)) if (fresh(m)) images++
    for (const m of text.matchAll(COUNT)) if (fresh(m)) declared = Math.max(declared, Number(m[1] ?? m[2]))
    for (const m of text.matchAll(OBJSTM))
      if (fresh(m) && objectStreams.length < MAX_OBJSTMS) {
        const length = lengthNear(m[0])
        objectStreams.push({ start: base + (m.index ?? 0) + m[0].length, length: Number.isFinite(length) ? length : MAX_OBJSTM_BYTES })
      }
    offset += part.length
    carry = text.slice(-CARRY)
  }
  if (!head.startsWith('%PDF-')) throw new ExtractError(file, 'does not start with %PDF-: not a PDF file')
  for (const objstm of objectStreams) {
    const length = Math.min(objstm.length, MAX_OBJSTM_BYTES, Math.max(offset - objstm.start, 0))
    const bytes = Buffer.alloc(length)
    readSync(fd, bytes, 0, length, objstm.start)
    let inflated: string
    try {
      inflated = inflateSync(bytes, { maxOutputLength: 64 * 1024 * 1024, finishFlush: 2 /* Z_SYNC_FLUSH: a stream cut at a guessed length still inflates */ }).toString('latin1')
    } catch {
      continue // not Flate, or damaged: its pages (if any) cannot be counted
    }
    pages += inflated.match(PAGE)?.length ?? 0
    for (const m of inflated.matchAll(COUNT)) declared = Math.max(declared, Number(m[1] ?? m[2]))
  }
  return { pages, images, ...(declared && declared !== pages ? { declaredPages: declared } : {}) }
}
