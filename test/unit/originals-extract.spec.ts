/**
 * Extraction from real office files made at test time by the writer libraries, and from hostile ones: a zip bomb
 * (honest and lying sizes), billion laughs, an entry that leaves the archive, 10,000 slides, a large workbook, PDFs
 * whose page tree lies (a little, and by two billion pages), a PDF of 3,000 pages, a torn PDF, a non-PDF named .pdf. Each bad file gives an error naming it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countPages, EXTRACT_BUDGET, extractText } from '../../src/originals/extract/index.js'
import { BILLION_LAUGHS, cached, makeDocx, makePdf, makePptx, rezip, writeXlsx } from '../harness/office-files.js'

const dir = mkdtempSync(join(tmpdir(), 'originals-extract-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function onDisk(name: string, bytes: Buffer | Promise<Buffer>): Promise<string> {
  const file = join(dir, name)
  writeFileSync(file, await bytes)
  return file
}

async function extract(file: string, name: string, type: Parameters<typeof extractText>[2], request = {}) {
  const fd = openSync(file, 'r')
  try {
    return await extractText(fd, name, type, request)
  } finally {
    closeSync(fd)
  }
}

async function count(file: string, type: 'pdf' | 'pptx') {
  const fd = openSync(file, 'r')
  try {
    return await countPages(fd, 'x', type)
  } finally {
    closeSync(fd)
  }
}

describe('DOCX', () => {
  it('gives headings, paragraphs, lists and tables as Markdown, and counts skipped images', async () => {
    const got = await extract(await onDisk('s.docx', makeDocx()), 's.docx', 'docx')
    expect(got.text).toContain('# Course syllabus')
    expect(got.text).toContain('## Grading')
    expect(got.text).toMatch(/- Homework is 40 percent\n- The exam is 60 percent/)
    expect(got.text).toContain('| Week | Topic |')
    expect(got.text).toContain('| 1 | Sets \\| maps |')
    expect(got.text).toContain('**sets and maps**')
    expect(got.text).toContain('1 image(s) skipped')
    expect(got.text).not.toContain('data:image')
  })

  it('refuses a zip bomb whose sizes are honest, before inflating it, naming the file', async () => {
    const bomb = await rezip(await makeDocx(), (entries) => [...entries, { name: 'word/media/zeros.bin', data: Buffer.alloc(64 * 1024 * 1024) }])
    await expect(extract(await onDisk('bomb.docx', bomb), 'bomb.docx', 'docx')).rejects.toThrow(/originals\/bomb\.docx: .*zip bomb/)
  })

  it('refuses a zip bomb whose central directory lies about its sizes (caught while inflating)', async () => {
    const bomb = await rezip(await makeDocx(), (entries) => [...entries, { name: 'word/media/zeros.bin', data: Buffer.alloc(64 * 1024 * 1024), declaredSize: 1024 }])
    await expect(extract(await onDisk('liar.docx', bomb), 'liar.docx', 'docx')).rejects.toThrow(/originals\/liar\.docx: .*(lies about its sizes|too many bytes)/)
  })

  it('refuses XML entities (billion laughs) in the document part', async () => {
    const laughs = await rezip(await makeDocx(), (entries) => entries.map((e) => (e.name === 'word/document.xml' ? { ...e, data: Buffer.from(BILLION_LAUGHS) } : e)))
    await expect(extract(await onDisk('laughs.docx', laughs), 'laughs.docx', 'docx')).rejects.toThrow(/originals\/laughs\.docx: part word\/document\.xml declares a DTD/)
  })

  it('refuses an archive with an entry whose name leaves it', async () => {
    const escaping = await rezip(await makeDocx(), (entries) => [...entries, { name: '../../outside.txt', data: Buffer.from('x') }])
    await expect(extract(await onDisk('escape.docx', escaping), 'escape.docx', 'docx')).rejects.toThrow(/originals\/escape\.docx: holds an entry whose name leaves the archive/)
  })

  it('says a file that is not a zip is not one', async () => {
    await expect(extract(await onDisk('fake.docx', Buffer.from('hello')), 'fake.docx', 'docx')).rejects.toThrow(/originals\/fake\.docx: not a readable zip archive/)
  })
})

describe('PPTX', () => {
  it('gives a section per slide: title, text as a list, speaker notes; pictures skipped and counted', async () => {
    const got = await extract(await onDisk('d.pptx', makePptx(3)), 'd.pptx', 'pptx')
    expect(got.text).toContain('PPTX · slides 1–3 of 3')
    expect(got.text).toContain('## Slide 1: Topic 1')
    expect(got.text).toMatch(/- Point A of slide 2\n {2}- Detail of slide 2/)
    expect(got.text).toContain('Notes:\n> Say hello to slide 3')
    expect(got.text).toContain('1 picture(s) skipped')
    expect(got.next).toBeUndefined()
  })

  it('from/to choose slides', async () => {
    const got = await extract(join(dir, 'd.pptx'), 'd.pptx', 'pptx', { from: 2, to: 2 })
    expect(got.text).toContain('## Slide 2: Topic 2')
    expect(got.text).not.toContain('Topic 1')
    expect(got.text).not.toContain('Topic 3')
  })

  it('a deck of 10,000 slides: counted from the directory, extracted one budget at a time with where to continue', { timeout: 600_000 }, async () => {
    const file = await cached('deck-10000.pptx', async (out) => writeFileSync(out, await makePptx(10_000, { notes: false })))
    expect(await count(file, 'pptx')).toEqual({ slides: 10_000 })
    const got = await extract(file, 'big.pptx', 'pptx', { from: 9_990 })
    expect(got.total).toBe(10_000)
    expect(got.text).toContain('## Slide 9990: Topic 9990')
    expect(got.text).toContain('## Slide 10000: Topic 10000')
    const first = await extract(file, 'big.pptx', 'pptx')
    expect(first.text.length).toBeLessThanOrEqual(EXTRACT_BUDGET)
    expect(first.next).toBeGreaterThan(10)
    expect(first.text).toContain(`call extract_text with from=${first.next}`)
  })

  it('refuses billion laughs in a slide', async () => {
    const laughs = await rezip(await makePptx(2), (entries) => entries.map((e) => (e.name === 'ppt/slides/slide1.xml' ? { ...e, data: Buffer.from(BILLION_LAUGHS) } : e)))
    await expect(extract(await onDisk('laughs.pptx', laughs), 'laughs.pptx', 'pptx')).rejects.toThrow(/originals\/laughs\.pptx: part ppt\/slides\/slide1\.xml declares a DTD/)
  })
})

describe('XLSX', () => {
  it('gives a table per sheet, dates as dates, at most 200 rows with the rest counted', async () => {
    const file = join(dir, 'p.xlsx')
    await writeXlsx(file, 450)
    const got = await extract(file, 'p.xlsx', 'xlsx')
    expect(got.text).toContain('## Sheet 1: Prices')
    expect(got.text).toContain('| Item | Price | Since | Note |')
    expect(got.text).toContain('| item 1 | 1.5 | 2024-01-02 | note 1 |')
    expect(got.text).toContain('| item 199 |')
    expect(got.text).not.toContain('| item 200 |')
    expect(got.text).toContain('(251 more rows not shown; 451 rows in all)')
    expect(got.text).toContain('a \\| pipe')
    expect(got.text).toContain('## Sheet 2: Notes')
  })

  it('a large workbook streams: the first rows shown, every row counted', { timeout: 600_000 }, async () => {
    const rows = Number(process.env.ORIGINALS_BIG_XLSX_ROWS ?? 400_000)
    const file = await cached(`prices-${rows}.xlsx`, (out) => writeXlsx(out, rows))
    const got = await extract(file, 'big.xlsx', 'xlsx')
    expect(got.text).toContain(`${rows + 1} rows in all`)
    expect(statSync(file).size).toBeGreaterThan(rows * 20)
  })

  it('refuses a zip bomb in a workbook', async () => {
    const file = join(dir, 'p.xlsx')
    const { readFileSync } = await import('node:fs')
    const bomb = await rezip(readFileSync(file), (entries) => [...entries, { name: 'xl/media/zeros.bin', data: Buffer.alloc(64 * 1024 * 1024) }])
    await expect(extract(await onDisk('bomb.xlsx', bomb), 'bomb.xlsx', 'xlsx')).rejects.toThrow(/originals\/bomb\.xlsx: .*zip bomb/)
  })
})

describe('PDF', () => {
  it('counts pages with and without object streams', async () => {
    expect(await count(await onDisk('plain.pdf', makePdf(3, false)), 'pdf')).toEqual({ pages: 3 })
    expect(await count(await onDisk('objstm.pdf', makePdf(5, true)), 'pdf')).toEqual({ pages: 5 })
  })

  it('gives the text of each page in a section, from/to choosing pages', async () => {
    const file = await onDisk(
      'notes.pdf',
      makePdf(4, true, (n) => [`Lecture ${n}: limits`, `Homework ${n} is due on Friday`]),
    )
    const got = await extract(file, 'notes.pdf', 'pdf')
    expect(got.text).toMatch(/^# originals\/notes\.pdf\nPDF · pages 1–4 of 4/)
    expect(got.text).toContain('## Page 1 of 4\n\npage 1\nLecture 1: limits\nHomework 1 is due on Friday')
    expect(got.text).toContain('## Page 4 of 4')
    const middle = await extract(file, 'notes.pdf', 'pdf', { from: 2, to: 3 })
    expect([middle.from, middle.to, middle.total, middle.next]).toEqual([2, 3, 4, undefined])
    expect(middle.text).toContain('Lecture 2: limits')
    expect(middle.text).toContain('Lecture 3: limits')
    expect(middle.text).not.toContain('Lecture 1')
    expect(middle.text).not.toContain('Lecture 4')
  })

  it('a PDF that lies about its page count: the pages it holds, the claim noted', async () => {
    const honest = (await makePdf(3, false, (n) => [`text of ${n}`])).toString('latin1')
    expect(honest).toMatch(/\/Count 3/)
    for (const claim of ['9999', '2147483647']) {
      const file = await onDisk(`liar-${claim}.pdf`, Buffer.from(honest.replace('/Count 3', `/Count ${claim}`), 'latin1'))
      expect(await count(file, 'pdf')).toEqual({ pages: 3, declaredPages: Number(claim) })
      const got = await extract(file, `liar-${claim}.pdf`, 'pdf')
      expect(got.text).toContain(`PDF · pages 1–3 of 3 · its page tree claims ${claim} pages`)
      expect(got.text).toContain('text of 3')
      expect(got.next).toBeUndefined()
    }
  })

  it('a document of 3,000 pages: one budget at a time, with where to continue', { timeout: 600_000 }, async () => {
    const words = (n: number) => [`Chapter ${n} ${'and so on '.repeat(8)}`, `Section ${n}.1 ${'more text '.repeat(8)}`]
    const file = await cached('pages-3000-v1.pdf', async (out) => writeFileSync(out, await makePdf(3000, true, words)))
    const first = await extract(file, 'big.pdf', 'pdf')
    expect(first.text.length).toBeLessThanOrEqual(EXTRACT_BUDGET)
    expect(first.total).toBe(3000)
    expect(first.next).toBeGreaterThan(10)
    expect(first.text).toContain(`(More follows: call extract_text with from=${first.next}.)`)
    const later = await extract(file, 'big.pdf', 'pdf', { from: 2998 })
    expect(later.text).toContain('## Page 3000 of 3000')
    expect(later.text).toContain('Chapter 3000')
    expect(later.next).toBeUndefined()
  })

  it('more page objects than pdf.js is given (10,000): refused with the count, naming the file', async () => {
    const honest = await makePdf(3, false)
    // Trailing comments after %%EOF: readers ignore them, the raw page counter (and so a hostile file's cost) does not.
    const padded = Buffer.concat([honest, Buffer.from('\n% << /Type /Page >>'.repeat(10_001))])
    await expect(extract(await onDisk('pages.pdf', padded), 'pages.pdf', 'pdf')).rejects.toThrow(
      /originals\/pages\.pdf: holds 10004 page objects; PDF text is read from documents of up to 10000 pages/,
    )
  })

  it('a file named .pdf that is not one, and a torn one: errors naming the file', async () => {
    await expect(count(await onDisk('no.pdf', Buffer.from('<html>')), 'pdf')).rejects.toThrow(/originals\/x: does not start with %PDF-/)
    await expect(extract(await onDisk('no2.pdf', Buffer.from('PK\u0003\u0004 a zip named pdf')), 'no2.pdf', 'pdf')).rejects.toThrow(/originals\/no2\.pdf: does not start with %PDF-/)
    const whole = await makePdf(3, false, (n) => [`text of ${n}`])
    await expect(extract(await onDisk('torn.pdf', whole.subarray(0, 900)), 'torn.pdf', 'pdf')).rejects.toThrow(/originals\/torn\.pdf: is not a readable PDF/)
  })
})

describe('paging text', () => {
  it('a long Markdown original is paged within the budget, each part at paragraph boundaries', async () => {
    const paragraphs = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30)}`)
    const file = await onDisk('long.md', Buffer.from(paragraphs.join('\n\n')))
    const first = await extract(file, 'long.md', 'markdown')
    expect(first.text.length).toBeLessThanOrEqual(EXTRACT_BUDGET)
    expect(first.next).toBe(2)
    const second = await extract(file, 'long.md', 'markdown', { from: first.next })
    expect(second.text).toContain('## Part 2 of')
    expect(second.text).not.toContain('Paragraph 0 ')
  })
})
