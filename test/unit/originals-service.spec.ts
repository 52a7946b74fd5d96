/**
 * The originals row's operations over a real store: the store leaves the originals folder alone, extraction is
 * redacted, summaries are found from their front matter and flagged stale exactly, downloads go through the guarded
 * fetcher (streamed, capped, a page's main content saved as redacted Markdown), and copies stay inside the run's folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OriginalsFolder, typeOf } from '../../src/knowledge/originals/index.js'
import { SafeFetcher } from '../../src/net/fetcher.js'
import { countPages } from '../../src/originals/extract/index.js'
import { OriginalsService, listedJson } from '../../src/originals/service.js'
import { SummaryLinks } from '../../src/originals/summaries.js'
import { provideStaleSummaries, Wiki } from '../../src/knowledge/wiki/wiki.js'
import { makeDocx, makePdf, makePptx } from '../harness/office-files.js'
import { storeFixture } from '../harness/stores.js'

const stores = storeFixture('originals')
const SECRET = 'ghp_R3alLooking0Token1234567890abcdefABCD'

async function setup(allowHosts: string[] = []) {
  const root = stores.tmpRoot()
  mkdirSync(root, { recursive: true })
  const store = stores.open(root)
  let t = Date.parse('2026-03-01T00:00:00Z')
  const folder = new OriginalsFolder({ root, countPages: (fd, path) => countPages(fd, path, typeOf(path)), now: () => new Date((t += 60_000)) }).open()
  await store.start()
  const links = new SummaryLinks(store, folder)
  const service = new OriginalsService(store, folder, () => new SafeFetcher({ allowHosts }), links)
  return { root, store, folder, service, links, run: mkdtempSync(join(tmpdir(), 'originals-run-')) }
}

describe('the store and the originals folder', () => {
  it("the store's scan does not take the person's Markdown in originals/ for documents", async () => {
    const root = stores.tmpRoot()
    mkdirSync(join(root, 'originals/.manifest'), { recursive: true })
    writeFileSync(join(root, 'originals/page.md'), '# A downloaded page\n\nno front matter here')
    writeFileSync(join(root, 'note.md'), '---\ntitle: A note\n---\nbody')
    const store = stores.open(root)
    await store.start()
    expect(store.list({}).items.map((i) => i.path)).toEqual(['note.md'])
    expect([...store.invalid.keys()].filter((k) => k.startsWith('originals'))).toEqual([])
  })
})

describe('extraction through the service', () => {
  it('redacts the text before it is returned; the file on disk keeps its bytes', async () => {
    const { service, run, folder } = await setup()
    writeFileSync(join(run, 'lab.docx'), await makeDocx(SECRET))
    await service.save('lab.docx', 'course/lab.docx', { kind: 'run' }, { within: run, cwd: run })
    const got = await service.extract('originals/course/lab.docx')
    expect(got.text).toContain('The lab server password: [REDACTED]')
    expect(got.text).not.toContain(SECRET)
    expect(readFileSync(folder.fullPath('course/lab.docx')).equals(readFileSync(join(run, 'lab.docx')))).toBe(true)
  })

  it("a PDF's text per page, redacted; a broken PDF is an error naming it and stays as it was", async () => {
    const { service, run, folder } = await setup()
    writeFileSync(join(run, 'lab.pdf'), await makePdf(2, true, (n) => (n === 2 ? [`The lab server password: ${SECRET}`] : ['Welcome'])))
    await service.save('lab.pdf', 'course/lab.pdf', { kind: 'run' }, { within: run, cwd: run })
    const got = await service.extract('originals/course/lab.pdf', 2)
    expect(got.text).toContain('## Page 2 of 2')
    expect(got.text).toContain('The lab server password: [REDACTED]')
    expect(got.text).not.toContain(SECRET)
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 7)])
    writeFileSync(join(run, 'broken.pdf'), broken)
    await service.save('broken.pdf', 'course/broken.pdf', { kind: 'run' }, { within: run, cwd: run })
    await expect(service.extract('course/broken.pdf')).rejects.toThrow(/originals\/course\/broken\.pdf: is not a readable PDF/)
    expect(readFileSync(folder.fullPath('course/broken.pdf')).equals(broken)).toBe(true)
    expect((await folder.list()).map((o) => [o.path, o.status])).toEqual([
      ['course/broken.pdf', 'present'],
      ['course/lab.pdf', 'present'],
    ])
  })

  it('a missing or retired original is a clear error naming it', async () => {
    const { service } = await setup()
    await expect(service.extract('nothing.docx')).rejects.toThrow(/originals\/nothing\.docx is not an original/)
  })
})

describe('copies', () => {
  it("save_to_sources takes files from the run's folder only, tolerant of the name's normalisation", async () => {
    const { service, run } = await setup()
    const outside = mkdtempSync(join(tmpdir(), 'originals-outside-'))
    writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY')
    await expect(service.save(join(outside, 'id_rsa'), 'k.txt', { kind: 'run' }, { within: run, cwd: run })).rejects.toThrow(/is outside the run's folder/)
    await expect(service.save('../' + outside.split('/').pop() + '/id_rsa', 'k.txt', { kind: 'run' }, { within: run, cwd: run })).rejects.toThrow(/outside the run's folder/)
    writeFileSync(join(run, 'Re\u0301sume\u0301.txt'.normalize('NFD')), 'cv')
    expect(await service.save('Résumé.txt'.normalize('NFC'), 'docs/', { kind: 'run' }, { within: run, cwd: run })).toEqual({ path: 'docs/Résumé.txt'.normalize('NFC'), existing: false })
  })
})

describe('summaries and staleness', () => {
  const summary = (file: string, ingested: string) => `---\ntitle: Summary of ${file}\ntype: summary\nfile: ${file}\ningested: ${ingested}\n---\nWhat it says.\n`

  it('lists the summaries that name an original and flags them stale when the original changed after their ingest', async () => {
    const { service, root, run, folder } = await setup()
    writeFileSync(join(run, 'deck.pptx'), await makePptx(4))
    await service.save('deck.pptx', 'deck.pptx', { kind: 'run' }, { within: run, cwd: run })
    const added = (await folder.entries())[0]
    mkdirSync(join(root, 'wiki'), { recursive: true })
    writeFileSync(join(root, 'wiki/deck-summary.md'), summary('deck.pptx', new Date(Date.parse(added.changedAt) + 1000).toISOString()))
    writeFileSync(join(root, 'wiki/old-summary.md'), summary('originals/deck.pptx', '2020-01-01T00:00:00Z'))
    writeFileSync(join(root, 'wiki/dot-summary.md'), summary('./originals/deck.pptx', '2020-01-01T00:00:00Z'))
    await stores.closeAll()
    // The same root reopened, as a new process would: the summaries are found from their front matter.
    const store = stores.open(root)
    await store.start()
    const folder2 = new OriginalsFolder({ root, countPages: (fd, path) => countPages(fd, path, typeOf(path)) }).open()
    const service2 = new OriginalsService(store, folder2, () => new SafeFetcher(), new SummaryLinks(store, folder2))
    let [deck] = await service2.list()
    expect(deck).toMatchObject({ path: 'deck.pptx', slides: 4, summaries: expect.arrayContaining(['deck-summary', 'old-summary', 'dot-summary']) })
    expect(deck.staleSummaries?.sort()).toEqual(['dot-summary', 'old-summary'])
    expect(JSON.parse(readFileSync(join(root, 'originals/.manifest/manifest.json'), 'utf8')).originals[0].ingests['deck-summary'].sha256).toBe(added.sha256)
    // The original changes: the summary whose hash was recorded is stale now, exactly.
    writeFileSync(join(root, 'originals/deck.pptx'), await makePptx(5))
    ;[deck] = await service2.list()
    expect(deck.slides).toBe(5)
    expect(deck.staleSummaries?.sort()).toEqual(['deck-summary', 'dot-summary', 'old-summary'])
    const json = listedJson(deck)
    expect(Object.keys(json).slice(0, 10)).toEqual(['path', 'status', 'changedAt', 'type', 'size', 'provenance', 'slides', 'staleSummaries', 'addedAt', 'summaries'])
    expect(JSON.stringify(json)).not.toMatch(/[0-9a-f]{64}/)
  })
})

describe('downloads', () => {
  let server: Server
  let base = ''
  const article = `<html><head><title>Pricing 2026</title></head><body><nav>Home | About | Login</nav><main><article><h1>Pricing 2026</h1>${'<p>The basic plan costs 10 euros a month and includes every feature a small team needs to start.</p>'.repeat(8)}<p>Support key: ${SECRET}</p><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>10</td></tr></table></article></main><footer>© footer links</footer></body></html>`
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/pricing') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article)
      if (req.url === '/hop') return res.writeHead(302, { location: '/pricing' }).end()
      if (req.url === '/declares-huge') return res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(60 * 1024 * 1024) }).end()
      if (req.url === '/streams-huge') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        const chunk = Buffer.alloc(1024 * 1024, 7)
        let sent = 0
        const more = () => {
          while (sent < 52 && res.write(chunk)) sent++
          if (sent >= 52) res.end()
          else res.once('drain', more)
        }
        return more()
      }
      res.writeHead(404).end('no')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('saves the page as obtained and its main content as redacted Markdown beside it, following a redirect', async () => {
    const { service, folder } = await setup(['127.0.0.1'])
    const got = await service.download(`${base}/hop`, 'web/pricing.html')
    expect(got).toMatchObject({ path: 'web/pricing.html', existing: false, contentType: 'text/html', markdown: { path: 'web/pricing.md' } })
    expect(readFileSync(folder.fullPath('web/pricing.html'), 'utf8')).toBe(article)
    const md = readFileSync(folder.fullPath('web/pricing.md'), 'utf8')
    expect(md).toContain('# Pricing 2026')
    expect(md).toContain(`Source: <${base}/pricing>`)
    expect(md).toContain('| Basic | 10 |')
    expect(md).toContain('Support key: [REDACTED]')
    expect(md).not.toContain('Login')
    expect((await service.list()).find((l) => l.path === 'web/pricing.html')?.provenance).toEqual({ kind: 'url', url: `${base}/hop` })
    expect(await service.download(`${base}/pricing`, 'web/again.html')).toMatchObject({ path: 'web/pricing.html', existing: true })
  })

  it('refuses a private address without the test exemption, and bodies over 50 MB, declared or streamed; nothing is left', async () => {
    const closed = await setup()
    await expect(closed.service.download(`${base}/pricing`, 'x.html')).rejects.toThrow(/refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback\)/)
    const { service, folder } = await setup(['127.0.0.1'])
    await expect(service.download(`${base}/declares-huge`, 'huge.pdf')).rejects.toThrow(/declares 62914560 bytes/)
    await expect(service.download(`${base}/streams-huge`, 'huge.bin')).rejects.toThrow(/more than 52428800 bytes|larger than 50 MB/)
    await expect(service.download(`${base}/missing`, 'm.html')).rejects.toThrow(/answered HTTP 404/)
    expect(await service.list()).toEqual([])
    expect(existsSync(folder.fullPath('huge.bin'))).toBe(false)
  })
})

describe('the wiki index and stale summaries', () => {
  it('knowledge_index marks a summary page STALE once its original changes, and names it in its head', async () => {
    const { store, folder, links, run, service } = await setup()
    writeFileSync(join(run, 'deck.pptx'), await makePptx(3))
    await service.save('deck.pptx', 'deck.pptx', { kind: 'run' }, { within: run, cwd: run })
    const wiki = new Wiki(store)
    const caller = { actor: 'tool', scope: undefined }
    await wiki.create([{ type: 'summary', slug: 'deck', title: 'The deck', content: 'What the deck says.', fields: [{ name: 'file', value: 'originals/deck.pptx' }] }], caller)
    const off = provideStaleSummaries(store, () => links.staleIds())
    const before = await wiki.indexText(undefined, 8000)
    expect(before).toContain('summary/deck')
    expect(before).not.toMatch(/STALE|Stale summaries/)
    // The original changes after the summary was written (the row's watcher rescans; here the scan is called).
    writeFileSync(folder.fullPath('deck.pptx'), await makePptx(4))
    await folder.scan()
    const after = await wiki.indexText(undefined, 8000)
    expect(after).toMatch(/^- The deck — summary\/deck.* — STALE: its original changed after it was written/m)
    expect(after).toContain('Stale summaries (their originals changed since): summary/deck.')
    // The generated index.md stays a function of the pages: no stale marks there.
    await wiki.regenerateIndex()
    expect(readFileSync(join(store.root, 'index.md'), 'utf8')).not.toContain('STALE')
    // Without the originals row (unregistered), nothing is marked.
    off()
    expect(await wiki.indexText(undefined, 8000)).not.toContain('STALE')
    wiki.close()
  })
})
