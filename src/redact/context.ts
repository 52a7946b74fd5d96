/**
 * Context rules: secrets recognisable by what surrounds them rather than by their own shape. The value is masked
 * and its context kept (`DB_PASSWORD=[REDACTED]`, `postgres://app:[REDACTED]@db`, `Authorization: Bearer [REDACTED]`,
 * `--password=[REDACTED]`). Covers URL userinfo, auth headers, CLI flags (long flags, `mysql -pX`, `sshpass -p`,
 * `redis-cli -a`, `curl -u`), signed-URL and Azure connection-string parts, `.netrc`, `.env`/`export` lines and
 * generic `name: value` / `"name": "value"` / `name = "value"` assignments to secret-like names.
 *
 * This file is the entry, and the URL, header, signed-parameter and `.netrc` rules; CLI flags are in
 * `context-flags.ts`, assignments in `assignments.ts` (names judged by `credential-names.ts`).
 * @module dsh-knowledge-sync/redact/context
 */
import { charClasses, isCodeReference, isPlaceholder, isStopword, isWordLike, looksRandom, shannon } from './allow.js'
import { lineEnd, PRIORITY, readValue, pushSpan, type Span } from './scan.js'
import { scanCommandFlags, scanLongFlags } from './context-flags.js'
import { scanAssignments, scanKeyValueAttributes } from './assignments.js'
import { scanJsonPairs, scanOracleThin, scanSecureStrings } from './pairs.js'

/** All context-rule spans in `text`. */
export function scanContext(text: string, mask: string, out: Span[]): void {
  if (text.includes('://')) scanUrlUserinfo(text, mask, out)
  scanHeaders(text, mask, out)
  if (text.includes('-')) {
    scanLongFlags(text, mask, out)
    scanCommandFlags(text, mask, out)
  }
  if (text.includes('=')) scanSignedParams(text, mask, out)
  if (text.includes('machine')) scanNetrc(text, mask, out)
  if (text.includes('value=')) scanKeyValueAttributes(text, mask, out)
  if (text.includes('value')) scanJsonPairs(text, mask, out)
  if (text.includes('jdbc:')) scanOracleThin(text, mask, out)
  if (text.includes('SecureString')) scanSecureStrings(text, mask, out)
  scanAssignments(text, mask, out)
}

// ---------------------------------------------------------------------------------------------------------------
// URL userinfo: scheme://user:password@host

const AUTHORITY_RE = /:\/\/([^\s/?"'<>\\]{1,400})/g
const URL_TAIL_RE = /[^\s"'<>\\]{0,256}?@/y

/**
 * `scheme://user:password@host`: the authority runs to the first `/` or `?` (a raw `#` is kept: typed passwords
 * hold one) and its userinfo ends at the LAST `@` (as WHATWG URL parsing does), so `p@ss` passwords are masked whole.
 * A password holding a raw `/` (invalid, but typed) is still caught when an `@` follows on the same token and the
 * part before `/` is not a port number. `abc:xyz@example.com` style illustrations are left alone.
 */
function scanUrlUserinfo(text: string, mask: string, out: Span[]): void {
  AUTHORITY_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let nextAt = -2 // cached index of the next '@' (many authorities without one must not rescan the text)
  while ((m = AUTHORITY_RE.exec(text)) !== null) {
    const authStart = m.index + 3
    const auth = m[1]
    const at = auth.lastIndexOf('@')
    let pwStart: number, pwEnd: number
    if (at > 0) {
      const colon = auth.indexOf(':')
      if (colon === -1 || colon > at) continue
      pwStart = authStart + colon + 1
      pwEnd = authStart + at
    } else {
      const colon = auth.indexOf(':')
      if (colon === -1) continue
      const afterAuth = authStart + auth.length
      const head = auth.slice(colon + 1)
      if (text[afterAuth] !== '/' || !head || /^[0-9]{1,5}$/.test(head)) continue
      if (nextAt === -2 || (nextAt !== -1 && nextAt < afterAuth)) nextAt = text.indexOf('@', afterAuth)
      if (nextAt === -1 || nextAt - afterAuth > 256) continue
      URL_TAIL_RE.lastIndex = afterAuth
      const t = URL_TAIL_RE.exec(text)
      if (!t) continue
      pwStart = authStart + colon + 1
      pwEnd = afterAuth + t[0].length - 1
    }
    const pw = text.slice(pwStart, pwEnd)
    if (!pw || pw.length < 3 || isUrlPlaceholder(pw, mask)) continue
    // Documentation hosts (RFC 2606): `https://abc:xyz@example.com` is an illustration, unless the password
    // itself looks generated (a real one pasted with an anonymised host must still be masked).
    const host = /^[^\s/?#:"'<>\\]{1,253}/.exec(text.slice(pwEnd + 1, pwEnd + 260))?.[0] ?? ''
    if (/(?:^|\.)example\.(?:com|org|net)$|\.(?:example|test|invalid)$/i.test(host) && !(pw.length >= 8 && /[0-9]/.test(pw))) continue
    pushSpan(out, pwStart, pwEnd, 'url-password', PRIORITY.context)
  }
}

function isUrlPlaceholder(pw: string, mask: string): boolean {
  if (isPlaceholder(pw, mask)) return true
  return /^(?:pass(?:word)?|pwd|pw|secret|token|user|username|x-oauth-basic|x-access-token|xyz|abc|123|1234|12345|test|demo)$/i.test(pw)
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP auth headers and bare bearer tokens

const HEADER_RE =
  /(?:authorization|proxy-authorization|x-api-key|x-apikey|api-key|x-auth-token|x-access-token|x-token|private-token|job-token|deploy-token|x-goog-api-key|circle-token|x-vault-token|x-figma-token|x-shopify-access-token|ocp-apim-subscription-key|x-functions-key|x-rapidapi-key|x-algolia-api-key|x-gitlab-token|x-dsh-token)\\{0,3}["']?\]?[ \t]{0,4}[:=,][ \t]{0,4}/gi
const SCHEME_RE = /(bearer|basic|token|bot|digest|apikey|api-key|key|sso-key|otoken|negotiate|ntlm|hmac|aws4-hmac-sha256|dsn|ssws|splunk)[ \t]{1,4}/iy
const BEARER_RE = /[Bb]earer[ \t]{1,4}([A-Za-z0-9._~+/-]{12,8192}=*)/g
const HEADER_VALUE_RE = /[^\s"'\\,;]{1,8192}/y

/** A header value that reads like a credential, not a word of prose ("Authorization: Bearer header"). */
function credentialish(v: string): boolean {
  if (v.length < 6 || isStopword(v) || (isWordLike(v) && v.length < 20)) return false
  const c = charClasses(v)
  return c.digit || c.symbol || (c.lower && c.upper) || v.length >= 20
}

/** `Authorization: Bearer x`, `X-Api-Key: x`, `-H "Private-Token: x"`, `{"Authorization": "Basic x"}`, `Bearer x`. */
function scanHeaders(text: string, mask: string, out: Span[]): void {
  HEADER_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = HEADER_RE.exec(text)) !== null) {
    // Left boundary in code: a leading lookbehind would slow the scan of every position of the text.
    if (m.index > 0 && /[A-Za-z0-9_-]/.test(text[m.index - 1])) {
      HEADER_RE.lastIndex = m.index + 1
      continue
    }
    let i = m.index + m[0].length
    // An opening quote of the value (possibly escaped).
    let k = 0
    while (k < 4 && text[i + k] === '\\') k++
    const quoted = text[i + k] === '"' || text[i + k] === "'"
    if (quoted) i += k + 1
    SCHEME_RE.lastIndex = i
    const sm = SCHEME_RE.exec(text)
    let scheme = ''
    if (sm) {
      scheme = sm[1].toLowerCase()
      i += sm[0].length
    }
    const sepChar = m[0].trimEnd().slice(-1)
    let start = i,
      end: number
    if (/^(?:digest|negotiate|ntlm|aws4-hmac-sha256|hmac)$/.test(scheme)) {
      // Multi-part schemes: mask to the end of the quoted value or line.
      end = lineEnd(text, i, 8192)
      for (let j = i; j < end; j++)
        if (text[j] === '"' || text[j] === "'") {
          end = j
          break
        }
      while (end > start && text[end - 1] === '\\') end--
    } else {
      HEADER_VALUE_RE.lastIndex = i
      const v = HEADER_VALUE_RE.exec(text)
      if (!v) continue
      end = i + v[0].length
    }
    const value = text.slice(start, end)
    if (!value || !credentialish(value) || isPlaceholder(value, mask)) continue
    // `headers["Authorization"] = build_header(…)`: in code, an unquoted value without a scheme is an expression.
    if (!quoted && !scheme && (sepChar === '=' || sepChar === ',') && (isCodeReference(value, '') || /[()[\]]/.test(text.slice(end, end + 1)))) continue
    pushSpan(out, start, end, 'auth-header', PRIORITY.context)
    HEADER_RE.lastIndex = Math.max(HEADER_RE.lastIndex, end)
  }
  if (!text.includes('earer')) return
  BEARER_RE.lastIndex = 0
  while ((m = BEARER_RE.exec(text)) !== null) {
    // Left boundary checked here, not as a leading lookbehind (which slows the scan of every position).
    if (m.index > 0 && /[A-Za-z0-9_-]/.test(text[m.index - 1])) {
      BEARER_RE.lastIndex = m.index + 1
      continue
    }
    const v = m[1]
    if (isPlaceholder(v, mask) || !looksRandom(v, 12)) continue
    const s = m.index + m[0].length - v.length
    pushSpan(out, s, s + v.length, 'auth-header', PRIORITY.context)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Connection-string and signed-URL parameters

const PARAM_RE = /(AccountKey|SharedAccessKey|SharedSecretValue|SharedAccessSignature|sig|X-Amz-Signature|X-Amz-Security-Token|X-Goog-Signature|Signature)=/gi
const PARAM_VALUE_RE = /[A-Za-z0-9%+/=._~-]{16,4096}(?![^\s;&"'<>\\,)])/y
const PARAM_FAMILY: Record<string, string> = {
  accountkey: 'azure',
  sharedaccesskey: 'azure',
  sharedsecretvalue: 'azure',
  sharedaccesssignature: 'azure',
  sig: 'azure',
  'x-amz-signature': 'aws',
  'x-amz-security-token': 'aws',
  'x-goog-signature': 'signed-url',
  signature: 'signed-url',
}

/** `AccountKey=…;` (Azure storage), `SharedAccessKey=…` (Service Bus), `?sig=…` (SAS), `X-Amz-Signature=…`. */
function scanSignedParams(text: string, mask: string, out: Span[]): void {
  PARAM_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PARAM_RE.exec(text)) !== null) {
    if (m.index > 0 && !/[?&;,\s"']/.test(text[m.index - 1])) {
      PARAM_RE.lastIndex = m.index + 1
      continue
    }
    const i = m.index + m[0].length
    PARAM_VALUE_RE.lastIndex = i
    const v = PARAM_VALUE_RE.exec(text)
    if (!v || isPlaceholder(v[0], mask) || shannon(v[0]) < 3) continue
    pushSpan(out, i, i + v[0].length, PARAM_FAMILY[m[1].toLowerCase()] ?? 'azure', PRIORITY.context)
  }
}

const NETRC_RE = /(?<![A-Za-z0-9_-])password[ \t]+(?=[^\s])/g

/** `.netrc`: `machine host login me password s3cret` (same line or following lines). */
function scanNetrc(text: string, mask: string, out: Span[]): void {
  NETRC_RE.lastIndex = 0
  let m: RegExpExecArray | null
  // The last `machine` keyword before each hit, found by one forward walk (not a look-back per hit).
  let lastMachine = -1
  let nextMachine = text.indexOf('machine')
  while ((m = NETRC_RE.exec(text)) !== null) {
    while (nextMachine !== -1 && nextMachine < m.index) {
      if (!/[A-Za-z0-9_]/.test(text[nextMachine - 1] ?? ' ') && /\s/.test(text[nextMachine + 7] ?? '')) lastMachine = nextMachine
      nextMachine = text.indexOf('machine', nextMachine + 7)
    }
    if (lastMachine === -1 || m.index - lastMachine > 300) continue
    const v = readValue(text, m.index + m[0].length, 'shell', 1024)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    if (isPlaceholder(value, mask)) continue
    pushSpan(out, v.start, v.end, 'generic-secret', PRIORITY.generic)
  }
}
