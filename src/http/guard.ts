/**
 * Who may reach the routes. They have no authentication of their own, so every request must come from a loopback peer
 * and name a loopback (or explicitly trusted) host, parsed strictly: a page on another origin cannot reach them through
 * DNS rebinding. State-changing requests must also be POST, same-origin, JSON, and carry a per-page token that only a
 * same-origin page can read.
 * @module dsh-knowledge-sync/http/guard
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])
const LOOPBACK_NAMES = new Set(['localhost', '[::1]'])
/** An IPv4 literal in 127.0.0.0/8 — a name like `127.0.0.1.evil.example` is not one. */
const LOOPBACK_V4 = /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/
/** A whole Host value: a bracketed IPv6 literal or a name, then an optional port, and nothing else. */
const HOST_VALUE = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?$/

/** The header that carries the per-page token of a state-changing request. */
export const TOKEN_HEADER = 'x-knowledge-token'

/** A Host header split into host and port, or undefined when it is not exactly `host[:port]`. */
export function parseHost(header: string | undefined): { host: string; port?: string } | undefined {
  if (!header) return undefined
  const match = HOST_VALUE.exec(header.trim().toLowerCase())
  if (!match) return undefined
  if (match[2] !== undefined && Number(match[2]) > 65535) return undefined
  return { host: match[1], port: match[2] }
}

function trustedHost(host: string, trustedHosts: readonly string[]): boolean {
  return LOOPBACK_NAMES.has(host) || LOOPBACK_V4.test(host) || trustedHosts.some((h) => h.toLowerCase() === host)
}

/** Why a request is refused, or undefined when it may be read. */
export function refusal(req: IncomingMessage, trustedHosts: readonly string[]): string | undefined {
  const peer = req.socket.remoteAddress ?? ''
  if (!LOOPBACK_PEERS.has(peer) && !LOOPBACK_V4.test(peer.replace(/^::ffff:/, ''))) return `peer ${peer || 'unknown'} is not loopback`
  const parsed = parseHost(req.headers.host)
  if (!parsed) return `host ${JSON.stringify(String(req.headers.host ?? '').slice(0, 100))} is not a host name`
  if (!trustedHost(parsed.host, trustedHosts)) return `host ${JSON.stringify(parsed.host)} is not loopback or trusted`
  // An absolute-form target (`GET http://evil.example/…`) must name the same host as the Host header.
  const target = req.url ?? '/'
  if (!target.startsWith('/')) {
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return 'the request target is not a path'
    }
    if (url.host.toLowerCase() !== `${parsed.host}${parsed.port ? `:${parsed.port}` : ''}`) return `the request target names another host (${url.host})`
  }
  return undefined
}

/** RFC 9110 `type "/" subtype` (tokens), then nothing or `;` parameters. */
const MEDIA_TYPE = /^[ \t]*([!#$%&'*+.^_`|~0-9a-z-]+)\/([!#$%&'*+.^_`|~0-9a-z-]+)[ \t]*(?:;|$)/i

/**
 * The media type of a Content-Type value (`type/subtype`, lowercase), or undefined when it is not one. Why parsed:
 * a prefix test lets `application/jsonx` or `application/json-seq` pass as JSON.
 */
export function mediaTypeOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined
  const match = MEDIA_TYPE.exec(header)
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined
}

/** A token's length in bytes: 24 random bytes in base64url. */
const TOKEN_BYTES = 32

/**
 * Tokens handed to pages: a bounded set, each valid for a day. Minting one is a state change (it may evict the
 * oldest), so it is a same-origin POST ({@link sameOriginRefusal}): a page on another origin can fire GETs at will
 * but cannot mint. A token that is used moves to the back, so the least recently used one is evicted, never the
 * live page's before the tokens minted after it.
 */
export class PageTokens {
  private readonly tokens = new Map<string, number>()
  constructor(
    private readonly max = 64,
    private readonly ttlMs = 24 * 60 * 60 * 1000,
  ) {}

  /** A new token for one page load. */
  issue(now = Date.now()): string {
    const token = randomBytes(24).toString('base64url')
    this.tokens.set(token, now + this.ttlMs)
    while (this.tokens.size > this.max) this.tokens.delete(this.tokens.keys().next().value as string)
    return token
  }

  valid(token: unknown, now = Date.now()): boolean {
    if (typeof token !== 'string') return false
    // Byte lengths, not string lengths: 32 latin-1 characters encode to more than 32 bytes, and timingSafeEqual
    // throws on buffers of different lengths.
    const given = Buffer.from(token, 'utf8')
    if (given.length !== TOKEN_BYTES) return false
    for (const [known, expires] of this.tokens) {
      if (expires < now) {
        this.tokens.delete(known)
        continue
      }
      const expected = Buffer.from(known, 'utf8')
      if (expected.length === given.length && timingSafeEqual(expected, given)) {
        this.tokens.delete(known)
        this.tokens.set(known, expires)
        return true
      }
    }
    return false
  }
}

/**
 * Why a same-origin POST is refused, or undefined when it may proceed: POST only, the read checks, an `Origin` naming
 * exactly this host (a cross-origin form post or a page on another origin fails here; browsers send Origin on every
 * POST), and a JSON body (which a cross-origin page cannot send without a preflight this server never answers).
 */
export function sameOriginRefusal(req: IncomingMessage, trustedHosts: readonly string[]): string | undefined {
  if (req.method !== 'POST') return 'state changes are POST only'
  const basic = refusal(req, trustedHosts)
  if (basic) return basic
  const origin = req.headers.origin
  if (!origin) return 'a state change needs an Origin header'
  const host = String(req.headers.host).trim().toLowerCase()
  if (origin.toLowerCase() !== `http://${host}`) return `origin ${JSON.stringify(origin.slice(0, 100))} is not this page's origin`
  const fetchSite = req.headers['sec-fetch-site']
  if (fetchSite !== undefined && fetchSite !== 'same-origin') return `a ${fetchSite} request cannot change state`
  if (mediaTypeOf(req.headers['content-type']) !== 'application/json') return 'a state change must send application/json'
  return undefined
}

/** Why a state-changing request is refused, or undefined when it may proceed: {@link sameOriginRefusal} and a valid per-page token. */
export function mutationRefusal(req: IncomingMessage, trustedHosts: readonly string[], tokens: PageTokens): string | undefined {
  const refused = sameOriginRefusal(req, trustedHosts)
  if (refused) return refused
  if (!tokens.valid(req.headers[TOKEN_HEADER])) return 'missing or expired page token; reload the page'
  return undefined
}
