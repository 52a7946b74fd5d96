/**
 * The routes have no authentication of their own, so they answer only loopback peers that name a loopback (or
 * explicitly trusted) host: a page on another origin cannot reach them through DNS rebinding.
 * @module dsh-knowledge-sync/http/loopback
 */
import type { IncomingMessage } from 'node:http'

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])
/** An IPv4 literal in 127.0.0.0/8 — a name like `127.0.0.1.evil.example` is not one. */
const LOOPBACK_V4 = /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/

/** The Host header's host part, lowercased, without the port. */
export function hostName(header: string | undefined): string {
  if (!header) return ''
  const value = header.trim().toLowerCase()
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1)
  return value.replace(/:\d+$/, '')
}

/** Why a request is refused, or undefined when it may proceed. */
export function refusal(req: IncomingMessage, trustedHosts: readonly string[]): string | undefined {
  const peer = req.socket.remoteAddress ?? ''
  if (!LOOPBACK_PEERS.has(peer) && !LOOPBACK_V4.test(peer.replace(/^::ffff:/, ''))) return `peer ${peer || 'unknown'} is not loopback`
  const host = hostName(req.headers.host)
  if (!LOOPBACK_HOSTS.has(host) && !LOOPBACK_V4.test(host) && !trustedHosts.map((h) => h.toLowerCase()).includes(host)) {
    return `host ${JSON.stringify(host)} is not loopback or trusted`
  }
  return undefined
}
