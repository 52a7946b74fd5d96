/**
 * Originals: extract time and peak memory against file size, per format, 1 MB → 50 MB. Files are made by the
 * writer libraries (exceljs for XLSX rows; docx, pptxgenjs and pdf-lib with incompressible padding — an embedded
 * image or attachment — so the size grows while the text stays the same, as real decks and scans do) and cached in
 * bench/.data/originals/. Each extraction runs in a fresh child process (peak RSS sampled every 10 ms), three times; the median time and the largest peak are reported.
 *
 * Baseline, measured in the same run on the same file: streaming its bytes once through SHA-256 (what the manifest
 * does to every original anyway), so "×hash" says how many reads of the file an extraction costs. The libraries
 * publish no figures of their own; for XLSX, exceljs's streaming reader is measured at the small sizes as the
 * library alternative this reader replaced.
 *
 * Run: `node bench/originals.bench.mjs [sizes MB, comma list] [formats, comma list]` after `pnpm run build` (default
 * 1,5,10,25,50 and xlsx,docx,pptx,pdf). PDF text is read by pdf.js (unpdf), which needs the whole file in memory.
 * @module dsh-knowledge-sync/bench/originals.bench
 */
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const data = join(here, '.data', 'originals')

if (process.argv[2] === '--child') {
  const [, , , kind, file, type] = process.argv
  // Modules are loaded before the clock starts: the figure is the extraction, not Node's start-up.
  const ExcelJS = kind === 'exceljs' ? (await import('exceljs')).default : undefined
  const { extractText } = await import(pathToFileURL(join(root, 'lib/originals/extract/index.js')).href)
  if (type === 'docx' || type === 'pdf') await import(pathToFileURL(join(root, `lib/originals/extract/${type === 'pdf' ? 'pdf-text' : 'docx'}.js`)).href)
  if (type === 'pdf') await import('unpdf').then((m) => m.getResolvedPDFJS())
  // Peak RSS by sampling: ru_maxrss survives exec on Linux, so it would report the parent's peak.
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 10)
  const t0 = performance.now()
  if (kind === 'hash') {
    const hash = createHash('sha256')
    for await (const part of createReadStream(file)) hash.update(part)
    hash.digest('hex')
  } else if (kind === 'exceljs') {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, { sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', worksheets: 'emit' })
    let rows = 0
    for await (const sheet of reader) for await (const _row of sheet) rows++
    if (!rows) throw new Error('no rows')
  } else {
    const fd = openSync(file, 'r')
    const got = await extractText(fd, 'bench', type)
    closeSync(fd)
    if (!got.text) throw new Error('no text')
  }
  const ms = performance.now() - t0
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  process.stdout.write(JSON.stringify({ ms, rssMB: peak / 1024 / 1024 }))
  process.exit(0)
}

if (!existsSync(join(root, 'lib/originals/extract/index.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' })
mkdirSync(data, { recursive: true })
const sizes = (process.argv[2] ?? '1,5,10,25,50').split(',').map(Number)
const MB = 1024 * 1024

async function cached(name, make) {
  const file = join(data, name)
  if (!existsSync(file)) {
    const tmp = `${file}.tmp`
    await make(tmp)
    renameSync(tmp, file)
  }
  return file
}

const PNG_HEAD = Buffer.from('89504e470d0a1a0a', 'hex')
const padding = (mb) => Buffer.concat([PNG_HEAD, randomBytes(Math.max(0, Math.round(mb * MB) - 64 * 1024))])

const makers = {
  async xlsx(file, mb) {
    const ExcelJS = (await import('exceljs')).default
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true })
    const sheet = book.addWorksheet('Prices')
    const rows = Math.round(mb * 30_000) // about 33 bytes a row once zipped (measured)
    for (let r = 1; r <= rows; r++) sheet.addRow([`item ${r}`, r * 1.5, `note ${r % 5000}`, r % 3 === 0]).commit()
    sheet.commit()
    await book.commit()
  },
  async docx(file, mb) {
    const { Document, Packer, Paragraph, HeadingLevel, ImageRun } = await import('docx')
    const children = [new Paragraph({ text: 'Report', heading: HeadingLevel.HEADING_1 })]
    for (let i = 0; i < 200; i++) children.push(new Paragraph(`Paragraph ${i}: the quarterly figures are in the attached table and the appendix.`))
    children.push(new Paragraph({ children: [new ImageRun({ data: padding(mb), transformation: { width: 10, height: 10 }, type: 'png' })] }))
    writeFileSync(file, await Packer.toBuffer(new Document({ sections: [{ children }] })))
  },
  async pptx(file, mb) {
    const PptxGenJS = (await import('pptxgenjs')).default
    const deck = new PptxGenJS()
    for (let i = 1; i <= 60; i++) deck.addSlide().addText(`Slide ${i}: a point worth making about the plan`, { x: 1, y: 1, w: 8, h: 1 })
    deck.addSlide().addImage({ data: `data:image/png;base64,${padding(mb).toString('base64')}`, x: 1, y: 1, w: 1, h: 1 })
    writeFileSync(file, await deck.write({ outputType: 'nodebuffer' }))
  },
  async pdf(file, mb) {
    const { PDFDocument } = await import('pdf-lib')
    const pdf = await PDFDocument.create()
    for (let i = 0; i < 100; i++) pdf.addPage([200, 200]).drawText(`page ${i + 1}`, { x: 20, y: 100, size: 12 })
    await pdf.attach(padding(mb), 'scan.bin', { mimeType: 'application/octet-stream' })
    writeFileSync(file, await pdf.save())
  },
}

function child(kind, file, type) {
  const runs = []
  for (let i = 0; i < 3; i++)
    runs.push(
      JSON.parse(
        execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child', kind, file, type ?? ''], {
          cwd: root,
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ),
    )
  runs.sort((a, b) => a.ms - b.ms)
  return { ms: runs[1].ms, rssMB: Math.max(...runs.map((r) => r.rssMB)) }
}

console.log('format  size MB  extract ms  hash ms  ×hash  peak RSS MB  (hash peak)')
for (const type of (process.argv[3] ?? 'xlsx,docx,pptx,pdf').split(',')) {
  for (const mb of sizes) {
    const file = await cached(`${type}-${mb}mb.${type}`, (out) => makers[type](out, mb))
    const size = statSync(file).size / MB
    const base = child('hash', file)
    const got = child('extract', file, type)
    console.log(
      `${type.padEnd(6)}  ${size.toFixed(1).padStart(7)}  ${got.ms.toFixed(0).padStart(10)}  ${base.ms.toFixed(0).padStart(7)}  ${(got.ms / base.ms).toFixed(1).padStart(5)}  ${got.rssMB.toFixed(0).padStart(11)}  (${base.rssMB.toFixed(0)})`,
    )
    if (type === 'xlsx' && mb <= 5) {
      const lib = child('exceljs', file)
      console.log(`        exceljs streaming reader on the same file: ${lib.ms.toFixed(0)} ms (${(lib.ms / got.ms).toFixed(1)}× ours), peak ${lib.rssMB.toFixed(0)} MB`)
    }
  }
}
