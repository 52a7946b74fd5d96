/**
 * `dsh-knowledge originals …` of the built CLI (`lib/cli/bin.js`) in a subprocess against real files: add, list
 * (text and the JSON shape), extract with --from/--to, a name that is taken, stale summaries in `index` (also in a folder
 * named by --folder or a profile), download from a local server (only with the tests' exemption), retire and the list
 * afterwards. Build first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { spawnCollect } from '../harness/spawn.ts'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'
import { makeDocx, makePdf, makePptx } from '../harness/office-files.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const TOKEN = 'ghp_R3alLooking0Token1234567890abcdefABCD'
let base = ''
let root = ''
let server: WebServer

function cli(args: string[], env: Record<string, string> = {}) {
  const full: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', DSH_KNOWLEDGE_ROOT: root, ...env }
  if (!env.DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS) delete full.DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS
  return spawnCollect(process.execPath, [BIN, ...args], { cwd: base, env: full })
}

beforeAll(async () => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  base = mkdtempSync(join(tmpdir(), 'originals-cli-'))
  root = join(base, 'kb')
  mkdirSync(root)
  writeFileSync(join(base, 'syllabus.docx'), await makeDocx())
  writeFileSync(join(base, 'slides.pptx'), await makePptx(6))
  writeFileSync(join(base, 'lecture.pdf'), await makePdf(4, true, (n) => [`Lecture ${n}`, n === 3 ? `the lab token ${TOKEN}` : 'no secret']))
  server = await startWebServer({
    '/menu': text(
      `<html><head><title>Menu</title></head><body><article><h1>Menu</h1>${'<p>Soup of the day with bread and a glass of water, served from noon until late.</p>'.repeat(6)}</article></body></html>`,
      'text/html',
    ),
  })
})
afterAll(() => server?.close())

describe('dsh-knowledge originals', () => {
  it('add, list (JSON shape), extract with --from/--to, and a taken name', async () => {
    expect((await cli(['originals', 'add', 'syllabus.docx', '--as', 'course/syllabus.docx'])).stdout).toContain('added originals/course/syllabus.docx')
    expect((await cli(['originals', 'add', 'slides.pptx', '--as', 'course/slides.pptx'])).code).toBe(0)
    const taken = await cli(['originals', 'add', 'slides.pptx', '--as', 'course/syllabus.docx'])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain('originals/course/syllabus.docx already exists')
    const list = JSON.parse((await cli(['originals', 'list', '--json'])).stdout)
    expect(list).toEqual([
      expect.objectContaining({ path: 'course/slides.pptx', status: 'present', type: 'pptx', slides: 6, provenance: { kind: 'person' }, staleSummaries: [] }),
      expect.objectContaining({ path: 'course/syllabus.docx', status: 'present', type: 'docx', provenance: { kind: 'person' }, staleSummaries: [] }),
    ])
    expect(typeof list[0].changedAt).toBe('string')
    expect(typeof list[0].size).toBe('number')
    const slides = await cli(['originals', 'extract', 'course/slides.pptx', '--from', '2', '--to', '3'])
    expect(slides.stdout).toContain('## Slide 2: Topic 2')
    expect(slides.stdout).toContain('## Slide 3: Topic 3')
    expect(slides.stdout).not.toContain('Topic 4')
    const doc = JSON.parse((await cli(['originals', 'extract', 'originals/course/syllabus.docx', '--json'])).stdout)
    expect(doc.text).toContain('# Course syllabus')
    expect((await cli(['originals', 'add', 'lecture.pdf', '--as', 'course/lecture.pdf'])).code).toBe(0)
    const pdf = await cli(['originals', 'extract', 'course/lecture.pdf', '--from', '2', '--to', '3'])
    expect(pdf.stdout).toContain('PDF · pages 2–3 of 4')
    expect(pdf.stdout).toContain('## Page 3 of 4')
    expect(pdf.stdout).toContain('the lab token [REDACTED]')
    expect(pdf.stdout).not.toContain(TOKEN)
    expect(pdf.stdout).not.toContain('Lecture 4')
  })

  it('index marks a summary page STALE once its original changed on disk', async () => {
    writeFileSync(join(base, 'slides-summary.md'), 'What the six slides say.\n')
    const made = await cli(['create', 'summary', 'slides', '--title', 'The slides', '--field', 'file=originals/course/slides.pptx', '--content-file', 'slides-summary.md'])
    expect(made.code, made.stderr).toBe(0)
    expect((await cli(['index'])).stdout).not.toContain('STALE')
    writeFileSync(join(root, 'originals/course/slides.pptx'), await makePptx(7))
    const index = await cli(['index'])
    expect(index.stdout).toMatch(/^- The slides — summary\/slides.* — STALE: its original changed/m)
    const list = JSON.parse((await cli(['originals', 'list', '--json'])).stdout)
    expect(list.find((o: { path: string }) => o.path === 'course/slides.pptx').staleSummaries).toEqual(['summary/slides'])
  })

  it('index marks a summary STALE in the originals folder of --folder, or of the folder a --profile sets', async () => {
    expect((await cli(['originals', 'add', 'slides.pptx', '--as', 'talks/deck.pptx', '--folder', 'sources'])).stdout).toContain('added sources/talks/deck.pptx')
    writeFileSync(join(base, 'deck-summary.md'), 'What the deck says.\n')
    const made = await cli(['create', 'summary', 'deck', '--title', 'The deck', '--field', 'file=talks/deck.pptx', '--content-file', 'deck-summary.md'])
    expect(made.code, made.stderr).toBe(0)
    const stale = /^- The deck — summary\/deck.* — STALE: its original changed/m
    const listed = /^- The deck — summary\/deck/m
    const fresh = (await cli(['index', '--folder', 'sources'])).stdout
    expect(fresh).toMatch(listed)
    expect(fresh).not.toMatch(stale)
    writeFileSync(join(root, 'sources/talks/deck.pptx'), await makePptx(8))
    // The default folder holds no talks/deck.pptx: without being told the folder, nothing is marked.
    const untold = (await cli(['index'])).stdout
    expect(untold).toMatch(listed)
    expect(untold).not.toMatch(stale)
    expect((await cli(['index', '--folder', 'sources'])).stdout).toMatch(stale)
    // The folder a dsh profile gives the originals row, read as dsh composes it (the home's patch file comes last).
    const home = join(base, 'dsh-home')
    mkdirSync(join(home, 'profiles', 'team'), { recursive: true })
    writeFileSync(join(home, 'profiles', 'team', 'cordis.patch.yml'), '- id: knowledge-originals\n  config: { folder: elsewhere }\n')
    writeFileSync(join(home, 'cordis.patch.yml'), '- id: knowledge-originals\n  config: { folder: sources, guard: true }\n')
    expect((await cli(['index', '--profile', 'team', '--dsh-home', home])).stdout).toMatch(stale)
    const outside = await cli(['index', '--folder', '../elsewhere'])
    expect(outside.code).toBe(1)
    expect(outside.stderr).toContain('must be relative to the root')
  })

  it('download needs the exemption to reach 127.0.0.1; with it, the page and its Markdown are saved', async () => {
    const refused = await cli(['originals', 'download', `${server.url}/menu`, '--as', 'web/menu.html'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/refused: 127\.0\.0\.1/)
    const got = await cli(['originals', 'download', `${server.url}/menu`, '--as', 'web/menu.html'], { DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS: '127.0.0.1' })
    expect(got.stdout).toContain('downloaded originals/web/menu.html')
    expect(readFileSync(join(root, 'originals/web/menu.md'), 'utf8')).toContain('# Menu')
  })

  it('retire moves the file to the hidden retired folder; list shows it retired', async () => {
    const bad = await cli(['originals', 'retire', 'course/slides.pptx', '--why', 'outdated', '--reason', 'x'])
    expect(bad.stderr).toContain('why must be "wrong" or "replaced"')
    const done = await cli(['originals', 'retire', 'course/slides.pptx', '--why', 'wrong', '--reason', 'last year deck'])
    expect(done.stdout).toContain('originals/course/slides.pptx is retired')
    expect(existsSync(join(root, 'originals/.retired/course/slides.pptx'))).toBe(true)
    const list = JSON.parse((await cli(['originals', 'list', '--json'])).stdout)
    expect(list.find((l: { path: string }) => l.path === 'course/slides.pptx')).toMatchObject({ status: 'retired', retired: { why: 'wrong', reason: 'last year deck' } })
  })
})
