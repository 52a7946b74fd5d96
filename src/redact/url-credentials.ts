/**
 * Credentials a URL carries: userinfo (`https://user:pass@host/`) and query parameters that are credentials, judged
 * by the same principles as the rest of redaction: a parameter whose name announces a credential (the name
 * classifier: `token`, `access_token`, `api_key`, `X-Amz-Credential`, `password`), a URL-signing parameter (`sig`,
 * `signature`, `X-Amz-Signature`, `hmac`), or a value that is itself a known secret shape (a `ghp_…` token under any
 * name). A URL with one is not stored as written; the label form masks their values. Pure.
 * @module dsh-knowledge-sync/redact/url-credentials
 */
import { classify, nameWords } from './credential-names.js'
import { scanSpans } from './redactor.js'

/** Name words that sign a URL: whoever holds the URL holds the grant. */
const SIGNING_WORDS = new Set(['sig', 'signature', 'hmac', 'signed'])

/** Whether a query parameter named `name` with `value` is a credential. */
export function isCredentialParam(name: string, value: string): boolean {
  if (!value) return false
  const kind = classify(name)
  if (kind && kind.special !== 'bare') return true
  if (nameWords(name).some((w) => SIGNING_WORDS.has(w))) return true
  // A bare `key` (or any name) counts when its value is a secret by shape.
  return scanSpans(value).length > 0
}

/** What of a URL is a credential: userinfo, and the names of credential parameters (in order, repeated once each). */
export function urlCredentials(url: string): { userinfo: boolean; params: string[] } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { userinfo: false, params: [] }
  }
  const params = new Set<string>()
  for (const [name, value] of parsed.searchParams) if (isCredentialParam(name, value)) params.add(name)
  return { userinfo: Boolean(parsed.username || parsed.password), params: [...params] }
}

/** True when a URL carries any credential ({@link urlCredentials}). */
export function hasUrlCredentials(url: string): boolean {
  const found = urlCredentials(url)
  return found.userinfo || found.params.length > 0
}

/**
 * A URL to show or store as a label: userinfo dropped, each credential parameter's value replaced by `mask`, every
 * other byte as written. Not a URL to fetch. Text that is not a URL is returned as is.
 */
export function urlLabel(url: string, mask: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  let out = url
  if (parsed.username || parsed.password) out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1')
  const q = out.indexOf('?')
  if (q < 0) return out
  const hash = out.indexOf('#', q)
  const query = out.slice(q + 1, hash < 0 ? undefined : hash)
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq < 0) return pair
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '))
        } catch {
          return s
        }
      }
      return isCredentialParam(decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))) ? `${pair.slice(0, eq + 1)}${mask}` : pair
    })
    .join('&')
  return `${out.slice(0, q + 1)}${masked}${hash < 0 ? '' : out.slice(hash)}`
}
