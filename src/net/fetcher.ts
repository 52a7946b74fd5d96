/**
 * The one way this bundle reaches the network, built so a sources.yml entry (or a page's redirect, or a sitemap)
 * cannot turn it against the machine or its network:
 * - every hop's host is resolved here and every address is checked; only global unicast is allowed (no loopback,
 *   RFC 1918, link-local incl. 169.254.169.254, CGNAT, reserved, unspecified, multicast, ULA, and every IPv6 form that
 *   embeds an IPv4 address is judged by that address); the socket then connects to exactly the checked address (a custom `lookup`), so DNS cannot
 *   answer differently between check and connect;
 * - redirects are followed by hand (at most 5), each target checked the same way;
 * - bodies over 2 MiB (declared or streamed, after decompression) are refused; connect and total timeouts;
 * - at least 0.5 s between requests to one host; no cookies, no credentials, nothing but a fixed set of headers.
 * `DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS` (tests only) exempts host literals exactly as written in a URL; each exempt fetch
 * is logged as a warning.
 * `download` streams a body to a consumer (the originals row writes it to disk) under its own, larger cap.
 * @module dsh-knowledge-sync/net/fetcher
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { Transform, type Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import ipaddr from 'ipaddr.js'

export const ALLOW_HOSTS_ENV = 'DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS'
export const MAX_BODY_BYTES = 2 * 1024 * 1024
export const MAX_REDIRECTS = 5
/** The most a streamed download may be (after decompression). */
export const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024
/** The least time between two requests to one host within a run. */
export const MIN_HOST_INTERVAL_MS = 500
export const DEFAULT_TIMEOUT_MS = 20_000
export const USER_AGENT = 'dsh-knowledge-sync/0.1 (knowledge sync; +https://www.npmjs.com/package/dsh-knowledge-sync)'

/** A fetch that did not give a usable answer: `status` is the per-source result it maps to. */
export class FetchFailure extends Error {
  constructor(
    readonly status: 'fetch-error' | 'too-large',
    message: string,
  ) {
    super(message)
    this.name = 'FetchFailure'
  }
}

export interface FetchResult {
  /** HTTP status of the last hop (200, 304, 404, …). */
  status: number
  /** The URL that answered (after redirects). */
  url: string
  headers: IncomingHttpHeaders
  body: Buffer
  /** How many network round trips were made (hops). */
  roundTrips: number
}

export interface FetcherLogger {
  warn(format: string, ...args: unknown[]): void
  debug(format: string, ...args: unknown[]): void
}

export interface FetcherOptions {
  /** Host literals exempt from the address guard (tests only). Default: from {@link ALLOW_HOSTS_ENV}. */
  allowHosts?: Iterable<string>
  logger?: FetcherLogger
  timeoutMs?: number
  maxBytes?: number
  /** Raised only: values below {@link MIN_HOST_INTERVAL_MS} are ignored. */
  minIntervalMs?: number
}

/** The exempt host literals named by the environment (comma list); empty when unset. */
export function allowHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[ALLOW_HOSTS_ENV] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
}

/** Why an address may not be fetched (its range), or undefined when it is global unicast. */
export function addressRefusal(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''))
  } catch {
    return 'not an IP address'
  }
  const range = parsed.range()
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6)
    if (embedded) {
      const inner = embedded.v4.range()
      if (inner !== 'unicast') return `${inner} (${embedded.form} address embedding ${embedded.v4.toString()})`
      if (embedded.form === 'ipv4Compatible') return 'ipv4Compatible'
    }
  }
  return range === 'unicast' ? undefined : range
}

/**
 * The IPv4 address an IPv6 address carries, by the forms that embed one: IPv4-compatible `::/96` (deprecated, but
 * `[::127.0.0.1]` is written and parsed), IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64
 * `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, and Teredo `2001::/32` (its client address, inverted).
 * Why: such an address can reach the IPv4 host inside it, so it is judged by that host, not by its IPv6 range.
 */
export function embeddedIPv4(address: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | undefined {
  const w = address.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0)
  if (zero(0, 6) && (w[6] !== 0 || w[7] > 1)) return { form: 'ipv4Compatible', v4: v4(w[6], w[7]) }
  if (zero(0, 5) && w[5] === 0xffff) return { form: 'ipv4Mapped', v4: v4(w[6], w[7]) }
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return { form: 'ipv4Translated', v4: v4(w[6], w[7]) }
  if (w[0] === 0x64 && w[1] === 0xff9b && (zero(2, 6) || w[2] === 1)) return { form: 'nat64', v4: v4(w[6], w[7]) }
  if (w[0] === 0x2002) return { form: '6to4', v4: v4(w[1], w[2]) }
  if (w[0] === 0x2001 && w[1] === 0) return { form: 'teredo', v4: v4(w[6] ^ 0xffff, w[7] ^ 0xffff) }
  return undefined
}

/**
 * The host of a URL exactly as written (lowercase, no userinfo or port), or undefined for a relative reference.
 * Why: the exemption names literals, and `http://0x7f.1/` normalizes to 127.0.0.1, which must not ride on it.
 */
export function writtenHost(reference: string): string | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:)?\/\/([^/?#\\]*)/i.exec(reference.trim())
  if (!m) return undefined
  const authority = m[1].slice(m[1].lastIndexOf('@') + 1).toLowerCase()
  return authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.replace(/:\d*$/, '')
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** Where a streamed download's body goes, and its cap. */
interface Sink {
  consume: (body: Readable, headers: IncomingHttpHeaders) => Promise<void>
  limit: number
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A fetcher for one run: its per-host spacing holds across every fetch it makes. */
export class SafeFetcher {
  private readonly allow: Set<string>
  private readonly logger?: FetcherLogger
  readonly timeoutMs: number
  readonly maxBytes: number
  private readonly interval: number
  private readonly lastAt = new Map<string, number>()
  private readonly queue = new Map<string, Promise<unknown>>()
  /** Network round trips made, for tests and reports. */
  requests = 0

  constructor(options: FetcherOptions = {}) {
    this.allow = new Set([...(options.allowHosts ?? allowHostsFromEnv())].map((h) => h.toLowerCase()))
    this.logger = options.logger
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxBytes = Math.min(options.maxBytes ?? MAX_BODY_BYTES, MAX_BODY_BYTES)
    this.interval = Math.max(options.minIntervalMs ?? MIN_HOST_INTERVAL_MS, MIN_HOST_INTERVAL_MS)
  }

  /** GET `url`, following up to {@link MAX_REDIRECTS} redirects, each hop guarded. Throws {@link FetchFailure}. */
  async get(url: string, headers: Record<string, string> = {}): Promise<FetchResult> {
    return this.follow(url, headers)
  }

  /**
   * GET `url` like {@link get}, every hop guarded, but a 2xx body is streamed to `consume` (decompressed, cut at
   * `maxBytes` with a {@link FetchFailure} `too-large`) instead of buffered. A non-2xx answer is an error.
   */
  async download(
    url: string,
    consume: (body: Readable, headers: IncomingHttpHeaders) => Promise<void>,
    maxBytes = MAX_DOWNLOAD_BYTES,
  ): Promise<{ url: string; status: number; headers: IncomingHttpHeaders }> {
    const limit = Math.min(maxBytes, MAX_DOWNLOAD_BYTES)
    const got = await this.follow(url, {}, { consume, limit })
    if (got.status < 200 || got.status > 299) throw new FetchFailure('fetch-error', `${got.url} answered HTTP ${got.status}`)
    return { url: got.url, status: got.status, headers: got.headers }
  }

  private async follow(url: string, headers: Record<string, string>, sink?: Sink): Promise<FetchResult> {
    let current: URL
    try {
      current = new URL(url)
    } catch {
      throw new FetchFailure('fetch-error', `not a URL: ${url.slice(0, 200)}`)
    }
    let written = writtenHost(url)
    for (let hops = 0; ; hops++) {
      const answer = await this.hop(current, written, headers, sink)
      if (!REDIRECTS.has(answer.status) || !answer.location) return { ...answer, url: current.href, roundTrips: hops + 1 }
      if (hops >= MAX_REDIRECTS) throw new FetchFailure('fetch-error', `more than ${MAX_REDIRECTS} redirects (last to ${answer.location.slice(0, 200)})`)
      let next: URL
      try {
        next = new URL(answer.location, current)
      } catch {
        throw new FetchFailure('fetch-error', `redirect to an invalid URL ${answer.location.slice(0, 200)}`)
      }
      written = writtenHost(answer.location) ?? written
      current = next
    }
  }

  /** Resolves and checks the host, returning the one address to connect to. */
  private async resolve(url: URL, written: string | undefined): Promise<{ address: string; family: number }> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchFailure('fetch-error', `refused: ${url.protocol} URLs are not fetched`)
    if (url.username || url.password) throw new FetchFailure('fetch-error', 'refused: URLs with credentials are not fetched')
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const exempt = written !== undefined && this.allow.has(written) && written === url.hostname.toLowerCase()
    let candidates: Array<{ address: string; family: number }>
    if (isIP(host)) candidates = [{ address: host, family: isIP(host) }]
    else {
      try {
        candidates = await dnsLookup(host, { all: true, verbatim: true })
      } catch (error) {
        throw new FetchFailure('fetch-error', `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
      }
      if (!candidates.length) throw new FetchFailure('fetch-error', `cannot resolve ${host}: no address`)
    }
    if (exempt) {
      this.logger?.warn('knowledge-sync: fetching %s with the address guard OFF for host %s (%s is set; tests only)', url.href, written, ALLOW_HOSTS_ENV)
      return candidates[0]
    }
    // Every address must pass: a name with one public and one private address is refused, whichever the OS would pick.
    for (const candidate of candidates) {
      const why = addressRefusal(candidate.address)
      if (why) throw new FetchFailure('fetch-error', `refused: ${url.hostname} is ${candidate.address} (${why}), not a public address`)
    }
    return candidates[0]
  }

  /**
   * Waits until this host may be asked again, in call order, and returns the release to call when the request is
   * over: requests to one host are serialized, each starting at least the interval after the previous one ended.
   */
  private async slot(host: string): Promise<() => void> {
    const previous = this.queue.get(host) ?? Promise.resolve()
    let release!: () => void
    const done = new Promise<void>((resolve) => {
      release = () => {
        this.lastAt.set(host, Date.now())
        resolve()
      }
    })
    this.queue.set(
      host,
      previous.then(() => done),
    )
    await previous
    const wait = (this.lastAt.get(host) ?? -Infinity) + this.interval - Date.now()
    if (wait > 0) await sleep(wait)
    return release
  }

  /** One request. Its timeout starts after the host's spacing wait, so a queue of polite waits never times out. */
  private async hop(url: URL, written: string | undefined, extra: Record<string, string>, sink?: Sink): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; location?: string }> {
    const target = await this.resolve(url, written)
    const release = await this.slot(url.hostname.toLowerCase())
    try {
      return await this.request(url, target, extra, sink)
    } finally {
      release()
    }
  }

  private request(
    url: URL,
    target: { address: string; family: number },
    extra: Record<string, string>,
    sink?: Sink,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; location?: string }> {
    const maxBytes = sink?.limit ?? this.maxBytes
    const left = this.timeoutMs
    this.requests++
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target])
      else callback(null, target.address, target.family)
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'text/markdown, text/plain;q=0.9, text/html;q=0.8, application/xhtml+xml;q=0.8, application/xml;q=0.5, */*;q=0.1',
      'accept-encoding': 'gzip, deflate, br',
    }
    for (const [key, value] of Object.entries(extra)) if (/^(if-none-match|if-modified-since|accept)$/i.test(key)) headers[key.toLowerCase()] = value
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (error: Error) => {
        if (!settled) {
          settled = true
          clearTimeout(timer)
          req.destroy()
          reject(error)
        }
      }
      const timer = setTimeout(() => fail(new FetchFailure('fetch-error', `timed out after ${this.timeoutMs} ms`)), left)
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers,
        lookup,
        agent: false,
        timeout: Math.min(left, this.timeoutMs),
        ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
      })
      req.on('timeout', () => fail(new FetchFailure('fetch-error', `no answer from ${url.host} within ${this.timeoutMs} ms`)))
      req.on('error', (error) => fail(error instanceof FetchFailure ? error : new FetchFailure('fetch-error', `${url.host}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)))
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0
        if (REDIRECTS.has(status) || status === 304) {
          res.resume()
          settled = true
          clearTimeout(timer)
          return resolve({ status, headers: res.headers, body: Buffer.alloc(0), location: typeof res.headers.location === 'string' ? res.headers.location : undefined })
        }
        const declared = Number(res.headers['content-length'])
        if (Number.isFinite(declared) && declared > maxBytes) return fail(new FetchFailure('too-large', `${url.href} declares ${declared} bytes (limit ${maxBytes})`))
        const encoding = String(res.headers['content-encoding'] ?? 'identity')
          .toLowerCase()
          .trim()
        const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined
        if (!decoder && encoding !== 'identity' && encoding !== '') return fail(new FetchFailure('fetch-error', `unsupported content-encoding ${encoding}`))
        const stream = decoder ? res.pipe(decoder) : res
        if (sink && (status < 200 || status > 299)) {
          res.resume()
          settled = true
          clearTimeout(timer)
          return resolve({ status, headers: res.headers, body: Buffer.alloc(0) })
        }
        if (sink) {
          // Streamed: the consumer reads through a counter that fails past the cap; the timeout still holds.
          let seen = 0
          const counted = new Transform({
            transform(part: Buffer, _enc, done) {
              seen += part.length
              if (seen > maxBytes) return done(new FetchFailure('too-large', `${url.href} sent more than ${maxBytes} bytes`))
              done(null, part)
            },
          })
          stream.on('error', (error: Error) => counted.destroy(new FetchFailure('fetch-error', `${url.host}: ${error.message}`)))
          res.on('aborted', () => counted.destroy(new FetchFailure('fetch-error', `${url.host} closed the connection mid-body`)))
          sink.consume(stream.pipe(counted), res.headers).then(
            () => {
              if (!settled) {
                settled = true
                clearTimeout(timer)
                resolve({ status, headers: res.headers, body: Buffer.alloc(0) })
              }
            },
            (error: Error) => fail(error),
          )
          return
        }
        const parts: Buffer[] = []
        let size = 0
        stream.on('data', (part: Buffer) => {
          size += part.length
          if (size > maxBytes) {
            decoder?.destroy()
            fail(new FetchFailure('too-large', `${url.href} sent more than ${maxBytes} bytes`))
            return
          }
          parts.push(part)
        })
        stream.on('error', (error: Error) => fail(new FetchFailure('fetch-error', `${url.host}: ${error.message}`)))
        res.on('aborted', () => fail(new FetchFailure('fetch-error', `${url.host} closed the connection mid-body`)))
        stream.on('end', () => {
          if (!settled) {
            settled = true
            clearTimeout(timer)
            resolve({ status, headers: res.headers, body: Buffer.concat(parts) })
          }
        })
      })
      req.end()
    })
  }
}
