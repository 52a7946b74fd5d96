/**
 * Real office files for the originals specs, made at test time by the writer libraries (docx, pptxgenjs, exceljs,
 * pdf-lib), and hostile variants of them made by re-zipping a real file (yauzl to read it, a small zip writer here
 * to write what no library would: an entry that leaves the archive, sizes that lie, a DTD). The slow ones (10,000
 * slides, a large workbook) are cached in the temp folder by name and writer version, so a second run is quick.
 * @module test/harness/office-files
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateRawSync } from 'node:zlib'
import yauzl from 'yauzl'
import { AlignmentType, Document, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx'
import PptxModule from 'pptxgenjs'
import ExcelJS from 'exceljs'
import { PDFDocument } from 'pdf-lib'

const CACHE = join(tmpdir(), 'dsh-originals-fixtures-v1')
// pptxgenjs ships CommonJS with an `export default class`: under NodeNext the default import is the module object.
const PptxGenJS = ((PptxModule as unknown as { default?: unknown }).default ?? PptxModule) as unknown as { new (): PptxModule.default }

/** A 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

export async function makeDocx(secret = ''): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Course syllabus', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('Week one covers '), new TextRun({ text: 'sets and maps', bold: true }), new TextRun('.')] }),
          new Paragraph({ text: 'Grading', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Homework is 40 percent', bullet: { level: 0 } }),
          new Paragraph({ text: 'The exam is 60 percent', bullet: { level: 0 } }),
          new Table({
            rows: [
              new TableRow({ children: [new TableCell({ children: [new Paragraph('Week')] }), new TableCell({ children: [new Paragraph('Topic')] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph('1')] }), new TableCell({ children: [new Paragraph('Sets | maps')] })] }),
            ],
          }),
          new Paragraph({ children: [new ImageRun({ data: PNG, transformation: { width: 10, height: 10 }, type: 'png' })] }),
          new Paragraph({ text: secret ? `The lab server password: ${secret}` : 'No secrets here.', alignment: AlignmentType.LEFT }),
        ],
      },
    ],
  })
  return Packer.toBuffer(doc)
}

export async function makePptx(slides = 3, options: { notes?: boolean } = {}): Promise<Buffer> {
  const deck = new PptxGenJS()
  deck.defineSlideMaster({
    title: 'M',
    objects: [
      { placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.2, w: 9, h: 1 }, text: '' } },
      { placeholder: { options: { name: 'body', type: 'body', x: 0.5, y: 1.5, w: 9, h: 4 }, text: '' } },
    ],
  })
  for (let i = 1; i <= slides; i++) {
    const slide = deck.addSlide({ masterName: 'M' })
    slide.addText(`Topic ${i}`, { placeholder: 'title' })
    slide.addText(
      [
        { text: `Point A of slide ${i}`, options: { bullet: true } },
        { text: `Detail of slide ${i}`, options: { bullet: true, indentLevel: 1 } },
      ],
      { placeholder: 'body' },
    )
    if (i === 1) slide.addImage({ data: `data:image/png;base64,${PNG.toString('base64')}`, x: 1, y: 5, w: 0.5, h: 0.5 })
    if (options.notes !== false) slide.addNotes(`Say hello to slide ${i}`)
  }
  return (await deck.write({ outputType: 'nodebuffer' })) as Buffer
}

/** A workbook with a `Prices` sheet of `rows` rows (plus a header) and a small `Notes` sheet, streamed to `file`. */
export async function writeXlsx(file: string, rows: number): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true })
  const prices = book.addWorksheet('Prices')
  prices.columns = [
    { header: 'Item', key: 'item' },
    { header: 'Price', key: 'price' },
    { header: 'Since', key: 'since', style: { numFmt: 'yyyy-mm-dd' } },
    { header: 'Note', key: 'note' },
  ]
  for (let r = 1; r <= rows; r++) prices.addRow({ item: `item ${r}`, price: r * 1.5, since: new Date(Date.UTC(2024, 0, 1 + (r % 365))), note: r % 7 ? `note ${r % 1000}` : 'a | pipe' }).commit()
  prices.commit()
  const notes = book.addWorksheet('Notes')
  notes.addRow(['Remember', 'to check']).commit()
  notes.commit()
  await book.commit()
}

/**
 * A real workbook of at least `minBytes` on disk, streamed by exceljs's WorkbookWriter (never held in memory): a
 * `Log` sheet whose rows each carry 3,000 random bytes as base64 text in an inline string (incompressible, so the file
 * on disk is about as large as its sheet: about 3,000 bytes a row once deflated; few rows keep the writer quick), then a small `Summary` sheet. Returns the rows written.
 */
export async function writeBigXlsx(file: string, minBytes: number): Promise<number> {
  const { randomBytes } = await import('node:crypto')
  const rows = Math.ceil(minBytes / 2900)
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false })
  const log = book.addWorksheet('Log')
  log.addRow(['Row', 'Payload']).commit()
  for (let r = 1; r <= rows; r++) log.addRow([r, randomBytes(3000).toString('base64')]).commit()
  log.commit()
  const summary = book.addWorksheet('Summary')
  summary.addRow(['Rows', rows]).commit()
  summary.commit()
  await book.commit()
  return rows
}

/** A PDF of `pages` pages (pdf-lib); page i says `page i`, then the lines `text(i)` gives, one under the other. */
export async function makePdf(pages: number, useObjectStreams: boolean, text?: (page: number) => string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create()
  for (let i = 0; i < pages; i++) {
    const page = pdf.addPage([400, 400])
    page.drawText(`page ${i + 1}`, { x: 20, y: 370, size: 12 })
    ;(text?.(i + 1) ?? []).forEach((line, k) => page.drawText(line, { x: 20, y: 340 - k * 14, size: 10 }))
  }
  return Buffer.from(await pdf.save({ useObjectStreams }))
}

/** The file at `name` in the fixture cache, made by `make` when absent (written atomically). */
export async function cached(name: string, make: (file: string) => Promise<void>): Promise<string> {
  mkdirSync(CACHE, { recursive: true })
  const file = join(CACHE, name)
  if (!existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`
    await make(tmp)
    renameSync(tmp, file)
  }
  return file
}

export interface ZipEntry {
  name: string
  data: Buffer
  /** Claim this inflated size in the headers instead of the real one (a lying archive). */
  declaredSize?: number
}

/** The entries of a zip (names and inflated bytes), read with yauzl. */
export function unzip(bytes: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error)
      const out: ZipEntry[] = []
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry()
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e)
          const parts: Buffer[] = []
          stream.on('data', (p: Buffer) => parts.push(p))
          stream.on('end', () => {
            out.push({ name: entry.fileName, data: Buffer.concat(parts) })
            zip.readEntry()
          })
        })
      })
      zip.on('end', () => resolve(out))
      zip.on('error', reject)
      zip.readEntry()
    })
  })
}

/** Writes entries as a zip (deflated), honouring `declaredSize` lies. Only for hostile fixtures. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8')
    const packed = deflateRawSync(entry.data, { level: 9 })
    const size = entry.declaredSize ?? entry.data.length
    const crc = crc32(entry.data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(packed.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(packed.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, packed)
    centrals.push(central, name)
    offset += local.length + name.length + packed.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A real file re-zipped with `change` applied to its entries. */
export async function rezip(bytes: Buffer, change: (entries: ZipEntry[]) => ZipEntry[]): Promise<Buffer> {
  return zip(change(await unzip(bytes)))
}

export const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol3;</w:t></w:r></w:p></w:body></w:document>`

export { readFileSync, writeFileSync }
