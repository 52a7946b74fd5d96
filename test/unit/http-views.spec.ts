/**
 * The Originals, Wiki and in-place edit routes over a real store, a real originals folder and a real wiki, on a real
 * node:http server on 127.0.0.1, attacked: cross-origin and token-less POSTs, a wrong Host, an original named with
 * `..`, a link swapped into the originals folder, a huge original, a hostile HTML original, a concurrent edit, an
 * edit of a captured round. Errors are in people's words (no tool names).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { OriginalsFolder, typeOf } from '../../src/knowledge/originals/index.js'
import { Wiki } from '../../src/knowledge/wiki/wiki.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { SafeFetcher } from '../../src/net/fetcher.js'
import { countPages } from '../../src/originals/extract/index.js'
import { OriginalsService } from '../../src/originals/service.js'
import { SummaryLinks } from '../../src/originals/summaries.js'
import { createHandler } from '../../src/http/routes.js'
import { statusMutations } from '../../src/http/mutations.js'
import { originalRoutes } from '../../src/http/originals.js'
import { wikiRoutes } from '../../src/http/wiki.js'
import { peopleWords } from '../../src/http/words.js'

const SECRET = 'ghp_R3alLooking0Token1234567890abcdefABCD'
/** The huge original: larger than anything a route may hold in memory at once. */
const HUGE_BYTES = 48 * 1024 * 1024

let server: Server
let port = 0
let root = ''
let outside = ''
let store: KnowledgeStore
let wiki: Wiki
let links: SummaryLinks
let noteId = ''
let roundId = ''

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  body: any
  bytes: number
}

function call(path: string, options: { method?: string; host?: string; headers?: Record<string, string>; body?: string; keep?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const parts: Buffer[] = []
      let bytes = 0
      res.on('data', (d: Buffer) => {
        bytes += d.length
        if (options.keep !== false) parts.push(d)
      })
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, bytes })
      })
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const origin = () => `http://127.0.0.1:${port}`
async function token(): Promise<string> {
  const got = await call('/knowledge/token', { method: 'POST', headers: { origin: origin(), 'content-type': 'application/json' }, body: '{}' })
  return got.body.token
}
async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(path, { method: 'POST', headers: { origin: origin(), 'content-type': 'application/json', 'x-knowledge-token': await token(), ...headers }, body: JSON.stringify(body) })
}

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), 'dsh-ks-http-views-'))
  root = join(base, 'kb')
  outside = join(base, 'secret.txt')
  writeFileSync(outside, `outside the root: ${SECRET}\n`)
  mkdirSync(join(root, 'originals', 'course'), { recursive: true })
  writeFileSync(join(root, 'originals', 'course', 'syllabus.md'), `# Syllabus\n\nWeek 1: tides. The lab key is ${SECRET}.\n`)
  writeFileSync(join(root, 'originals', 'page.html'), '<html><body><script>alert(document.cookie)</script><p>Tide tables</p></body></html>')
  writeFileSync(join(root, 'originals', 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]))
  // The huge one: written in chunks, never held whole.
  const fd = openSync(join(root, 'originals', 'huge.txt'), 'w')
  const line = Buffer.from(`${'tide table row '.repeat(60)}\n\n`)
  for (let written = 0; written < HUGE_BYTES; written += line.length) writeSync(fd, line)
  closeSync(fd)
  // A link swapped into the folder, pointing outside the root.
  symlinkSync(outside, join(root, 'originals', 'linked.md'))
  store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
  await store.start()
  const folder = new OriginalsFolder({ root, countPages: (fd, path) => countPages(fd, path, typeOf(path)) }).open()
  await folder.scan()
  links = new SummaryLinks(store, folder)
  const service = new OriginalsService(store, folder, () => new SafeFetcher({}), links)
  wiki = new Wiki(store)
  const note = await store.write({ kind: 'note', title: 'Cache key', cwd: '/ws', session: 'notes', suffix: 'n1', sections: [{ heading: 'Note', text: 'The cache key includes the lockfile hash.' }] })
  noteId = note.id
  const round = await store.write({
    kind: 'raw',
    title: 'Why does CI miss?',
    cwd: '/ws',
    session: 'session-aaaa1111-0000-4000-8000-000000000000',
    turn: 1,
    sections: [{ heading: 'Answer', text: 'The key.' }],
  })
  roundId = round.id
  await wiki.create([{ type: 'summary', slug: 'syllabus', title: 'Syllabus summary', content: 'Week 1 is tides.', fields: [{ name: 'file', value: 'course/syllabus.md' }] }], {
    actor: 'tool',
    scope: undefined,
  })
  await wiki.create([{ type: 'concept', slug: 'spring-tides', title: 'Spring tides', content: 'High tides at new and full moon. See [the summary](summary/syllabus).', fields: [] }], {
    actor: 'tool',
    scope: undefined,
  })
  await wiki.log('ingest', 'Ingested the syllabus', ['summary/syllabus'], { actor: 'tool', scope: undefined })
  await wiki.rewrite('overview', 'The wiki covers tides.', [], { actor: 'tool', scope: undefined })
  await links.load()
  const originals = originalRoutes(store, () => service)
  const wikis = wikiRoutes(
    store,
    () => wiki,
    () => wiki,
  )
  const handler = createHandler(store, {
    path: '/knowledge',
    trustedHosts: [],
    pageSize: 50,
    mutations: [...statusMutations(store), ...originals.mutations, ...wikis.mutations],
    reads: { ...originals.reads, ...wikis.reads },
  })
  server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
}, 120_000)

afterAll(async () => {
  server?.close()
  wiki?.close()
  await store?.close()
})

describe('the Originals routes', () => {
  it('list every original with its manifest entry, the summaries built from it and its extraction state; no hash', async () => {
    const got = await call('/knowledge/originals')
    expect(got.status).toBe(200)
    expect(got.body.available).toBe(true)
    const byPath = Object.fromEntries(got.body.originals.map((o: any) => [o.path, o]))
    expect(byPath['course/syllabus.md']).toMatchObject({ status: 'present', type: 'markdown', provenance: { kind: 'manual' }, extraction: 'text' })
    expect(byPath['course/syllabus.md'].summaries).toEqual([{ id: 'summary/syllabus', title: 'Syllabus summary', stale: false, status: 'active' }])
    expect(byPath['photo.png'].extraction).toBe('none')
    expect(byPath['huge.txt'].size).toBe(readFileSync(join(root, 'originals', 'huge.txt')).length)
    expect(got.text).not.toMatch(/[0-9a-f]{64}/)
    expect(got.text).not.toContain(SECRET)
  })

  it("serves an original's extracted text redacted, as JSON, never as HTML", async () => {
    const got = await call('/knowledge/originals/text?path=course/syllabus.md')
    expect(got.status).toBe(200)
    expect(got.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(got.body.text).toContain('Week 1: tides')
    expect(got.body.text).toContain('[REDACTED]')
    expect(got.text).not.toContain(SECRET)
    const html = await call('/knowledge/originals/text?path=page.html')
    expect(html.body.text).toContain('Tide tables')
    expect(html.body.text).not.toContain('<script')
  })

  it('a download is an attachment of octet-stream with nosniff and a sandbox, whatever the original is', async () => {
    const got = await call('/knowledge/originals/file?path=page.html')
    expect(got.status).toBe(200)
    expect(got.headers['content-type']).toBe('application/octet-stream')
    expect(got.headers['content-disposition']).toMatch(/^attachment; filename="page\.html"/)
    expect(got.headers['x-content-type-options']).toBe('nosniff')
    expect(got.headers['content-security-policy']).toContain('sandbox')
    expect(got.text).toContain('<script>')
  })

  it('refuses a name with `..` (plain and encoded) and reveals nothing outside the folder', async () => {
    for (const path of ['../secret.txt', '..%2F..%2Fsecret.txt', 'course/../../../secret.txt', '.manifest/manifest.json']) {
      for (const route of ['text', 'file']) {
        const got = await call(`/knowledge/originals/${route}?path=${path}`)
        expect(got.status, `${route} ${path}`).toBeGreaterThanOrEqual(400)
        expect(got.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(got.text).not.toContain(SECRET)
        expect(got.text).not.toMatch(/[0-9a-f]{64}/)
      }
    }
  })

  it('never follows a link inside the originals folder', async () => {
    for (const route of ['text', 'file']) {
      const got = await call(`/knowledge/originals/${route}?path=linked.md`)
      expect(got.status).toBeGreaterThanOrEqual(400)
      expect(got.text).not.toContain(SECRET)
    }
    const list = await call('/knowledge/originals')
    expect(list.text).not.toContain(SECRET)
  })

  it('a huge original: the text is one bounded page with where to go on; the download streams every byte', async () => {
    const text = await call('/knowledge/originals/text?path=huge.txt')
    expect(text.status).toBe(200)
    expect(text.body.text.length).toBeLessThan(64 * 1024)
    expect(text.body.next).toBe(text.body.to + 1)
    expect(text.body.total).toBeGreaterThan(text.body.to)
    expect(text.body.text).not.toMatch(/extract_text|knowledge_/)
    const file = await call('/knowledge/originals/file?path=huge.txt', { keep: false })
    expect(Number(file.headers['content-length'])).toBe(file.bytes)
    expect(file.bytes).toBeGreaterThanOrEqual(HUGE_BYTES)
  })

  it('a read route does not answer another Host (DNS rebinding)', async () => {
    const got = await call('/knowledge/originals/text?path=course/syllabus.md', { host: 'evil.example' })
    expect(got.status).toBe(403)
    expect(got.text).not.toContain('tides')
  })

  it('retire is a guarded POST: cross-origin, token-less, GET and wrong Host change nothing', async () => {
    const body = JSON.stringify({ path: 'photo.png', why: 'wrong', reason: 'not ours' })
    const refusedBy = [
      await call('/knowledge/originals/retire', { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json', 'x-knowledge-token': await token() }, body }),
      await call('/knowledge/originals/retire', { method: 'POST', headers: { origin: origin(), 'content-type': 'application/json' }, body }),
      await call('/knowledge/originals/retire', {
        method: 'POST',
        host: 'evil.example',
        headers: { origin: 'http://evil.example', 'content-type': 'application/json', 'x-knowledge-token': await token() },
        body,
      }),
      await call('/knowledge/originals/retire', { method: 'POST', headers: { origin: origin(), 'content-type': 'text/plain', 'x-knowledge-token': await token() }, body }),
    ]
    expect(refusedBy.map((r) => r.status)).toEqual([403, 403, 403, 403])
    expect((await call('/knowledge/originals/retire')).status).toBe(404)
    const list = await call('/knowledge/originals')
    expect(list.body.originals.find((o: any) => o.path === 'photo.png').status).toBe('present')
    const done = await post('/knowledge/originals/retire', { path: 'photo.png', why: 'wrong', reason: `leaked ${SECRET}` })
    expect(done.status).toBe(200)
    const after = (await call('/knowledge/originals')).body.originals.find((o: any) => o.path === 'photo.png')
    expect(after.status).toBe('retired')
    expect(after.retired.reason).toContain('[REDACTED]')
    expect(after.extraction).toBe('retired')
  })
})

describe('the Wiki routes', () => {
  it('the index groups pages by type, with the overview and the log', async () => {
    const got = await call('/knowledge/wiki')
    expect(got.status).toBe(200)
    expect(got.body.available).toBe(true)
    expect(got.body.sections.map((s: any) => s.type)).toEqual(['summary', 'concept'])
    expect(got.body.sections[1].entries[0]).toMatchObject({ id: 'concept/spring-tides', title: 'Spring tides', summary: 'High tides at new and full moon.' })
    expect(got.body.overview.content).toContain('The wiki covers tides.')
    expect(got.body.log[0]).toMatchObject({ operation: 'ingest', what: 'Ingested the syllabus', pages: ['summary/syllabus'] })
    expect(got.body.others.note).toBe(1)
  })
})

describe('editing in place', () => {
  it('edits a note: redacted on disk, revision bumped, ledgered with actor page', async () => {
    const before = await call(`/knowledge/editable?id=${noteId}`)
    expect(before.body).toMatchObject({ id: noteId, as: 'note', title: 'Cache key' })
    expect(before.body.content).toContain('lockfile hash')
    const got = await post(`/knowledge/documents/${noteId}/edit`, {
      version: before.body.version,
      title: 'Cache key',
      content: `The cache key includes the lockfile hash and the Node version. Token ${SECRET}.`,
    })
    expect(got.status).toBe(200)
    expect(got.body.version).toBe(before.body.version + 1)
    const file = readFileSync(join(root, store.get(noteId)!.path), 'utf8')
    expect(file).toContain('and the Node version')
    expect(file).not.toContain(SECRET)
    expect(readFileSync(join(root, '.knowledge', 'ledger.jsonl'), 'utf8')).toMatch(new RegExp(`"type":"edited","id":"${noteId}".*"actor":"page"`))
  })

  it('refuses an edit made on an older revision: the newer text stays', async () => {
    const opened = (await call(`/knowledge/editable?id=${noteId}`)).body
    const first = await post(`/knowledge/documents/${noteId}/edit`, { version: opened.version, title: 'Cache key', content: 'Edit from the first tab.' })
    expect(first.status).toBe(200)
    const second = await post(`/knowledge/documents/${noteId}/edit`, { version: opened.version, title: 'Cache key', content: 'Edit from the second tab.' })
    expect(second.status).toBe(409)
    expect(second.body.code).toBe('conflict')
    expect(readFileSync(join(root, store.get(noteId)!.path), 'utf8')).toContain('Edit from the first tab.')
  })

  it('a hand edit on disk that no watcher has seen yet is counted: the older revision is refused', async () => {
    const opened = (await call(`/knowledge/editable?id=${noteId}`)).body
    const file = join(root, store.get(noteId)!.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('Edit from the first tab.', 'Edited by hand in an editor.'))
    const got = await post(`/knowledge/documents/${noteId}/edit`, { version: opened.version, title: 'Cache key', content: 'Edit from the page.' })
    expect(got.status).toBe(409)
    expect(readFileSync(file, 'utf8')).toContain('Edited by hand in an editor.')
  })

  it("edits a wiki page through the wiki's rewrite; a stale revision is refused", async () => {
    const opened = (await call('/knowledge/editable?id=concept/spring-tides')).body
    expect(opened.as).toBe('page')
    expect(opened.content).toContain('[the summary](summary/syllabus)')
    const got = await post('/knowledge/documents/concept%2Fspring-tides/edit', { version: opened.version, title: 'Spring tides', content: `${opened.content}\nAlso at perigee. ${SECRET}` })
    expect(got.status).toBe(200)
    const file = readFileSync(join(root, 'concepts', 'spring-tides.md'), 'utf8')
    expect(file).toContain('Also at perigee.')
    expect(file).toContain('](../summaries/syllabus.md)')
    expect(file).not.toContain(SECRET)
    const stale = await post('/knowledge/documents/concept%2Fspring-tides/edit', { version: opened.version, title: 'Spring tides', content: 'Overwrite.' })
    expect(stale.status).toBe(409)
    expect(readFileSync(join(root, 'concepts', 'spring-tides.md'), 'utf8')).toContain('Also at perigee.')
  })

  it('never edits a captured round', async () => {
    expect((await call(`/knowledge/editable?id=${roundId}`)).status).toBe(409)
    const version = store.versionOf(roundId)
    const got = await post(`/knowledge/documents/${roundId}/edit`, { version, title: 'x', content: 'rewritten history' })
    expect(got.status).toBe(409)
    expect(readFileSync(join(root, store.get(roundId)!.path), 'utf8')).not.toContain('rewritten history')
  })

  it('an edit is a guarded POST: cross-origin or token-less changes nothing', async () => {
    const opened = (await call(`/knowledge/editable?id=${noteId}`)).body
    const body = JSON.stringify({ version: opened.version, title: 'Cache key', content: 'hijacked' })
    const cross = await call(`/knowledge/documents/${noteId}/edit`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json', 'x-knowledge-token': await token() },
      body,
    })
    const bare = await call(`/knowledge/documents/${noteId}/edit`, { method: 'POST', headers: { origin: origin(), 'content-type': 'application/json' }, body })
    const rebound = await call(`/knowledge/documents/${noteId}/edit`, { method: 'POST', host: 'evil.example', headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body })
    expect([cross.status, bare.status, rebound.status]).toEqual([403, 403, 403])
    expect(readFileSync(join(root, store.get(noteId)!.path), 'utf8')).not.toContain('hijacked')
  })
})

describe("errors in people's words", () => {
  it('a missing document answers 404 without naming a tool', async () => {
    const got = await call('/knowledge/documents/nope-t1')
    expect(got.status).toBe(404)
    expect(got.body.code).toBe('not-found')
    expect(got.body.error).toContain('no document nope-t1')
    expect(got.body.error).not.toMatch(/knowledge_|list_sources/)
    const original = await call('/knowledge/originals/text?path=nothing.docx')
    expect(original.status).toBe(404)
    expect(original.body.error).not.toMatch(/knowledge_|list_sources/)
  })

  it('drops advice addressed to the model and names what a tool does', () => {
    expect(peopleWords('no document x-t1; use knowledge_search to find ids')).toBe('no document x-t1')
    expect(peopleWords('originals/a.docx is not an original (list_sources lists them)')).toBe('originals/a.docx is not an original')
    expect(peopleWords('"id" must be a document id from knowledge_search, like "abc12345-t3"')).toBe('"id" must be a document id from a search, like "abc12345-t3"')
    expect(peopleWords('the title must not be empty')).toBe('the title must not be empty')
  })
})
