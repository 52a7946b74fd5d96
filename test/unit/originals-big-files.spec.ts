/**
 * Big originals, extracted in a process of their own (test/harness/extract-memory.ts over the built lib/) so that the
 * memory an extraction needs is measured where nothing else runs: the kernel's peak-RSS mark of that process, reset
 * before the extraction, against its baseline. No clock is asserted. Needs `pnpm run build` first.
 *
 * The 100 MB workbook is a real one, streamed to disk by exceljs's WorkbookWriter (never held in memory by the
 * writer either): each row carries 3,000 random bytes as base64, so the file is as large on disk as the hostile list
 * says (≥ 100 MB) and its sheet inflates to more (≈ 135 MB of XML). A highly compressible sheet would be small on disk
 * and be refused by the zip-bomb ratio check before any streaming happens; the incompressible one is the case where
 * the reader must stream. Made once per run in the temp folder (cached by name).
 *
 * PDF text is read by pdf.js, which needs the whole file in memory and opens a document at about 9 KB a page
 * (docs/originals.md): a document of 3,000 pages is measured against a budget twice the workbook's.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXTRACT_BUDGET } from '../../src/originals/extract/index.js'
import { cached, makePdf, writeBigXlsx } from '../harness/office-files.js'
import { spawnCollect } from '../harness/spawn.ts'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const MB = 1024 * 1024
/** What one extraction may add to its process's peak memory, whatever the file's size. */
const MEMORY_BUDGET = 64 * MB

interface Measured {
  result: { text?: string; error?: string; total?: number; next?: number }
  baseline: number
  peak: number
  growth: number
  how: string
}

async function measure(file: string, name: string, type: string, ...range: number[]): Promise<Measured> {
  const run = await spawnCollect(process.execPath, [
    '--expose-gc',
    '--disable-warning=ExperimentalWarning',
    join(PROJECT_ROOT, 'test/harness/extract-memory.ts'),
    file,
    name,
    type,
    ...range.map(String),
  ])
  expect(run.stderr).toBe('')
  return JSON.parse(run.stdout)
}

describe('a 100 MB workbook', () => {
  let file = ''
  let rows = 0
  beforeAll(async () => {
    rows = Math.ceil((100 * MB) / 2900)
    file = await cached(`log-100mb-v1.xlsx`, async (out) => {
      await writeBigXlsx(out, 100 * MB)
    })
  }, 300_000)

  it('is at least 100 MB on disk', () => {
    expect(statSync(file).size).toBeGreaterThanOrEqual(100 * MB)
  })

  it('gives the first sheet bounded (the count first, rows cut at the budget, where to continue) within a memory budget', async () => {
    const got = await measure(file, 'log.xlsx', 'xlsx')
    const text = got.result.text ?? ''
    expect(got.result.error).toBeUndefined()
    expect(text.length).toBeLessThanOrEqual(EXTRACT_BUDGET)
    expect(text).toContain('## Sheet 1: Log')
    expect(text).toMatch(/\(\d+ more rows not shown; (\d+) rows in all\)/)
    const all = Number(/; (\d+) rows in all/.exec(text)?.[1])
    expect(all).toBeGreaterThanOrEqual(rows - 10)
    expect(text).toContain('| 1 | ')
    expect(text).not.toContain('| 201 | ')
    expect(text).toContain('is cut here')
    expect(got.result.next).toBe(2)
    expect(got.growth, `peak ${Math.round(got.peak / MB)} MB over a baseline of ${Math.round(got.baseline / MB)} MB (${got.how})`).toBeLessThan(MEMORY_BUDGET)
  })

  it('reaches the sheet after it without keeping the big one', async () => {
    const got = await measure(file, 'log.xlsx', 'xlsx', 2)
    expect(got.result.text).toContain('## Sheet 2: Summary')
    expect(got.result.text).toMatch(/\| Rows \| \d+ \|/)
    expect(got.growth).toBeLessThan(MEMORY_BUDGET)
  })
})

describe('a PDF of many pages', () => {
  it('3,000 pages: one call reads the pages that fit, within a memory budget', async () => {
    const words = (n: number) => [`Chapter ${n} ${'and so on '.repeat(8)}`, `Section ${n}.1 ${'more text '.repeat(8)}`]
    const big = await cached('pages-3000-v1.pdf', async (out) => writeFileSync(out, await makePdf(3000, true, words)))
    const got = await measure(big, 'big.pdf', 'pdf')
    expect(got.result.text).toContain('PDF · pages 1–')
    expect(got.result.next).toBeGreaterThan(50)
    // pdf.js opens a document at about 9 KB a page (≈ 27 MB here) and reads the pages that fit (≈ 25 MB).
    expect(got.growth, `peak ${Math.round(got.peak / MB)} MB over a baseline of ${Math.round(got.baseline / MB)} MB (${got.how})`).toBeLessThan(2 * MEMORY_BUDGET)
  })
})
