/**
 * The safe fetcher against real servers on 127.0.0.1. The address guard is tested with the exemption UNSET (no
 * environment variable, no allowHosts): nothing internal is reachable directly, and a redirect from an exempt host
 * to an internal address is refused too. Limits: redirects, size (declared, streamed, decompressed), time, spacing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { gzipSync } from 'node:zlib'
import { format } from 'node:util'
import { addressRefusal, ALLOW_HOSTS_ENV, allowHostsFromEnv, FetchFailure, MAX_BODY_BYTES, SafeFetcher, writtenHost } from '../../src/sync/fetcher.js'
import { redirect, startWebServer, text, type WebServer } from '../harness/web-server.ts'

let server: WebServer
const saved = process.env[ALLOW_HOSTS_ENV]
beforeAll(async () => {
  delete process.env[ALLOW_HOSTS_ENV]
  server = await startWebServer()
})
afterAll(async () => {
  await server.close()
  if (saved !== undefined) process.env[ALLOW_HOSTS_ENV] = saved
})
afterEach(() => {
  server.seen.length = 0
  server.routes.clear()
})

const failure = async (promise: Promise<unknown>): Promise<FetchFailure> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof FetchFailure) return error
    throw error
  }
  throw new Error('expected a FetchFailure')
}

/** Internal targets, each written the way an attacker might. */
const internal = (port: number) => [
  `http://127.0.0.1:${port}/ok`,
  `http://localhost:${port}/ok`,
  'http://169.254.169.254/latest/meta-data/',
  `http://[::1]:${port}/ok`,
  `http://0x7f.1:${port}/ok`,
  `http://2130706433:${port}/ok`,
  `http://0177.0.0.1:${port}/ok`,
  `http://127.1:${port}/ok`,
  `http://0.0.0.0:${port}/ok`,
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  `http://[::ffff:127.0.0.1]:${port}/ok`,
  'http://[::ffff:169.254.169.254]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://240.0.0.1/',
  'http://224.0.0.1/',
]

describe('the address guard, exemption unset', () => {
  it('is off by default: no environment variable, no exempt host', () => {
    expect(process.env[ALLOW_HOSTS_ENV]).toBeUndefined()
    expect(allowHostsFromEnv()).toEqual([])
    expect(allowHostsFromEnv({ [ALLOW_HOSTS_ENV]: ' 127.0.0.1, [::1] ' })).toEqual(['127.0.0.1', '[::1]'])
  })

  it('refuses loopback, metadata, private, CGNAT, reserved, ULA, link-local and mapped addresses before any connection', async () => {
    server.routes.set('/ok', text('secret internal page'))
    const fetcher = new SafeFetcher()
    for (const url of internal(server.port)) {
      const error = await failure(fetcher.get(url))
      expect(error.status, url).toBe('fetch-error')
      expect(error.message, url).toMatch(/^refused: /)
    }
    expect(server.seen).toEqual([])
    expect(fetcher.requests).toBe(0)
  })

  it('classifies addresses: only global unicast passes', () => {
    expect(addressRefusal('8.8.8.8')).toBeUndefined()
    expect(addressRefusal('2606:4700::1')).toBeUndefined()
    expect(addressRefusal('169.254.169.254')).toBe('linkLocal')
    expect(addressRefusal('::ffff:8.8.8.8')).toBe('ipv4Mapped')
    expect(addressRefusal('100.64.0.1')).toBe('carrierGradeNat')
  })

  it('judges an IPv6 address that embeds an IPv4 address by that IPv4 address, in every embedding form', () => {
    // Each form carries 127.0.0.1 or 169.254.169.254; written as the URL parser normalizes them, too.
    const embedding = [
      '::127.0.0.1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a9fe:a9fe',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ]
    for (const address of embedding) expect(addressRefusal(address), address).toMatch(/loopback|linkLocal|ipv4Compatible|rfc6145|rfc6052|6to4|teredo/)
    expect(addressRefusal('::7f00:1')).toMatch(/^loopback \(ipv4Compatible address embedding 127\.0\.0\.1\)$/)
    expect(addressRefusal('2002:a9fe:a9fe::1')).toMatch(/^linkLocal/)
    expect(addressRefusal('::808:808')).toBe('ipv4Compatible')
  })

  it('refuses http://[::127.0.0.1]/ even when 127.0.0.1 is exempt as written', async () => {
    const fetcher = new SafeFetcher({ allowHosts: ['127.0.0.1'] })
    server.routes.set('/ok', text('secret'))
    expect((await failure(fetcher.get(`http://[::127.0.0.1]:${server.port}/ok`))).message).toMatch(/loopback/)
    expect(server.seen).toEqual([])
  })

  it('refuses credentials in URLs and non-http schemes', async () => {
    const fetcher = new SafeFetcher({ allowHosts: ['127.0.0.1'] })
    expect((await failure(fetcher.get(`http://user:pw@127.0.0.1:${server.port}/`))).message).toMatch(/credentials/)
    expect((await failure(fetcher.get('file:///etc/passwd'))).message).toMatch(/file: URLs/)
    expect(server.seen).toEqual([])
  })
})

describe('an exempt host (tests only)', () => {
  it('is exempt only as the literal written; each exempt fetch is logged', async () => {
    server.routes.set('/ok', text('hello'))
    const warnings: string[] = []
    const fetcher = new SafeFetcher({ allowHosts: ['127.0.0.1'], logger: { warn: (f, ...a) => warnings.push(format(f, ...a)), debug() {} } })
    const answer = await fetcher.get(`${server.url}/ok`)
    expect(answer.body.toString()).toBe('hello')
    expect(warnings.join('\n')).toMatch(/address guard OFF for host 127\.0\.0\.1/)
    expect(writtenHost('http://0x7f.1:80/')).toBe('0x7f.1')
    expect((await failure(fetcher.get(`http://0x7f.1:${server.port}/ok`))).message).toMatch(/refused/)
  })

  it('cannot redirect to an internal address: every hop is checked', async () => {
    server.routes.set('/ok', text('secret'))
    for (const target of internal(server.port).slice(1)) {
      const fetcher = new SafeFetcher({ allowHosts: ['127.0.0.1'] })
      server.seen.length = 0
      server.routes.set('/hop', redirect(target))
      const error = await failure(fetcher.get(`${server.url}/hop`))
      expect(error.message, target).toMatch(/^refused: /)
      expect(
        server.seen.map((s) => s.path),
        target,
      ).toEqual(['/hop'])
    }
  }, 180_000)
})

describe('limits', () => {
  const fetcher = () => new SafeFetcher({ allowHosts: ['127.0.0.1'], timeoutMs: 1500 })

  it('follows up to 5 redirects by hand and refuses the sixth', async () => {
    for (let k = 0; k < 6; k++) server.routes.set(`/r${k}`, redirect(`/r${k + 1}`))
    server.routes.set('/r6', text('end'))
    server.routes.set('/s1', redirect('/r2', 301))
    const ok = await fetcher().get(`${server.url}/s1`)
    expect(ok.body.toString()).toBe('end')
    expect(ok.url).toBe(`${server.url}/r6`)
    expect(ok.roundTrips).toBe(6)
    expect((await failure(fetcher().get(`${server.url}/r0`))).message).toMatch(/more than 5 redirects/)
  }, 180_000)

  it('refuses a declared, a streamed and a decompressed body over 2 MiB', async () => {
    const big = 'x'.repeat(MAX_BODY_BYTES + 1)
    server.routes.set('/declared', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(MAX_BODY_BYTES + 1) })
      res.end(big)
    })
    server.routes.set('/streamed', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      for (let k = 0; k < 40; k++) res.write('y'.repeat(64 * 1024))
      res.end()
    })
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024))
    server.routes.set('/bomb', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': bomb.length })
      res.end(bomb)
    })
    const f = fetcher()
    for (const path of ['/declared', '/streamed', '/bomb']) {
      const error = await failure(f.get(`${server.url}${path}`))
      expect(error.status, path).toBe('too-large')
    }
    expect(bomb.length).toBeLessThan(MAX_BODY_BYTES)
  })

  it('times out a server that never answers, and one that stalls mid-body', async () => {
    server.routes.set('/silent', () => {})
    server.routes.set('/stall', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
    })
    const started = Date.now()
    expect((await failure(fetcher().get(`${server.url}/silent`))).message).toMatch(/timed out|no answer/)
    expect((await failure(fetcher().get(`${server.url}/stall`))).message).toMatch(/timed out|no answer/)
    expect(Date.now() - started).toBeLessThan(6000)
  })

  it('spaces requests to one host by at least 0.5 s and sends no cookies or credentials', async () => {
    server.routes.set('/c', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'session=abc; Path=/' })
      res.end('c')
    })
    const f = fetcher()
    await Promise.all([f.get(`${server.url}/c`), f.get(`${server.url}/c`), f.get(`${server.url}/c`)])
    const times = server.seen.map((s) => s.at)
    expect(times).toHaveLength(3)
    for (let k = 1; k < times.length; k++) expect(times[k] - times[k - 1]).toBeGreaterThanOrEqual(495)
    for (const seen of server.seen) {
      expect(seen.headers.cookie).toBeUndefined()
      expect(seen.headers.authorization).toBeUndefined()
    }
  })
})
