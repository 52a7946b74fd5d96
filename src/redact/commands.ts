/**
 * Credentials on command lines and in credential API calls: `-p` in a command that also names a user, `set`/`config`
 * commands with a credential name, `echo … | … --password-stdin`, `htpasswd -b`, passphrase options of key tools,
 * and the secret slot of calls such as `auth=("user", "…")`, `HTTPBasicAuth(u, "…")`, `smtp.login(u, "…")`.
 * @module dsh-knowledge-sync/redact/commands
 */
import { isPathLike, isPlaceholder } from './allow.js'
import type { Span } from './scan.js'
import { keyShaped, passwordShaped, push, readLoose } from './shape.js'

// ---------------------------------------------------------------------------------------------------------------
// Command lines

const USER_FLAG_RE = /(?:^|\s)(?:-u|-U|--user(?:name)?|-l|--login)(?:\s+|=)(?!-)\S+/
const PASS_FLAG_RE = /(?:-p|--pass)(?:\s+|=)(?!-)/g
const SET_RE = /\b(?:set|config(?:\s+--[\w-]+)*|user-secrets\s+set|secret\s+set)\s+(["']?)([\w.:/@-]{0,80}?(?:password|passwd|secret|token|key|auth)[\w.-]{0,40})\1\s+(["']?)([^\s"']{3,300})\3/gi
const ECHO_RE = /\b(?:echo|printf)\s+(?:-[neE]+\s+)?(["']?)([^\s"'|$][^\s"'|]{0,300})\1\s*\|\s*[^|\n]{0,200}?(?:--password-stdin|passwd\s+--stdin|chpasswd|sudo\s+-S\b|--stdin\b)/g
const HTPASSWD_RE = /\bhtpasswd\s+((?:-[A-Za-z]+\s+){0,4})(\S+)\s+(\S+)(?:\s+(\S+))?/g
const KEYGEN_TOOL_RE = /\b(?:ssh-keygen|openssl|gpg|keytool)\b/g
const KEYGEN_FLAG_RE = /\s-(?:P|N|k|passphrase|-passphrase|storepass|keypass)\s+(["']?)([^"'\s]+)\1/g
const SEPARATOR_RE = /[\n|;]/g

export function scanCommandLines(text: string, mask: string, out: Span[]): void {
  if (text.includes('-p') || text.includes('--pass')) {
    // Each `-p` finds its command segment (between `\n`, `|`, `;`, `&`); a segment is examined once for a user flag.
    PASS_FLAG_RE.lastIndex = 0
    let segEnd = -1
    let hasUser = false
    let f: RegExpExecArray | null
    while ((f = PASS_FLAG_RE.exec(text)) !== null) {
      if (f.index > 0 && !/\s/.test(text[f.index - 1])) continue
      if (f.index >= segEnd) {
        let a = f.index
        while (a > 0 && f.index - a < 2000 && !/[\n|;&]/.test(text[a - 1])) a--
        let b = f.index
        while (b < text.length && b - f.index < 2000 && !/[\n|;&]/.test(text[b])) b++
        segEnd = b
        hasUser = USER_FLAG_RE.test(text.slice(a, b))
      }
      if (!hasUser) continue
      const v = readLoose(text, f.index + f[0].length)
      if (!v || v.end > segEnd) continue
      const value = text.slice(v.start, v.end)
      // `-p 8080:80`, `-p 2222`: ports. `cp -u -p src dst`: a word, not a password.
      if (/^[0-9]+(?::[0-9]+)*(?:\/\w+)?$/.test(value) || value.startsWith('$') || !passwordShaped(value, mask)) continue
      push(out, v.start, v.end, 'cli-flag')
    }
  }
  const each = (re: RegExp, fn: (m: RegExpExecArray) => void): void => {
    re.lastIndex = 0
    let m: RegExpExecArray | null
    while ((m = re.exec(text)) !== null) fn(m)
  }
  if (/\b(?:set|config)\s/.test(text))
    each(SET_RE, (m) => {
      const value = m[4]
      if (isPlaceholder(value, mask) || value.startsWith('$') || value.startsWith('-')) return
      if (!passwordShaped(value, mask) && !keyShaped(value, mask, true)) return
      const start = m.index + m[0].length - value.length - m[3].length
      push(out, start, start + value.length, 'cli-flag')
    })
  if (/\b(?:echo|printf)\s/.test(text))
    each(ECHO_RE, (m) => {
      let value = m[2]
      let start = m.index + m[0].indexOf(value)
      if (/chpasswd/.test(m[0]) && value.includes(':')) {
        const c = value.indexOf(':')
        start += c + 1
        value = value.slice(c + 1)
      }
      if (isPlaceholder(value, mask) || value.length < 3) return
      push(out, start, start + value.length, 'cli-flag')
    })
  if (text.includes('htpasswd'))
    each(HTPASSWD_RE, (m) => {
      const flags = m[1]
      if (!/-[A-Za-z]*b/.test(flags)) return
      const value = (/-[A-Za-z]*n/.test(flags) ? m[3] : m[4])?.replace(/[`'",;)]+$/, '')
      if (!value || value.length < 4 || isPlaceholder(value, mask)) return
      const start = m.index + m[0].lastIndexOf(value)
      push(out, start, start + value.length, 'cli-flag')
    })
  // Passphrase flags of key tools: the nearest tool word and command separator before each flag are tracked in
  // one forward walk each, so a line of flags costs one pass.
  if (/ssh-keygen|openssl|gpg|keytool/.test(text)) {
    let tool = -1,
      sep = -1
    KEYGEN_TOOL_RE.lastIndex = 0
    SEPARATOR_RE.lastIndex = 0
    let t = KEYGEN_TOOL_RE.exec(text)
    let p = SEPARATOR_RE.exec(text)
    each(KEYGEN_FLAG_RE, (m) => {
      while (t && t.index < m.index) {
        tool = t.index
        t = KEYGEN_TOOL_RE.exec(text)
      }
      while (p && p.index < m.index) {
        sep = p.index
        p = SEPARATOR_RE.exec(text)
      }
      if (tool === -1 || sep > tool || m.index - tool > 300) return
      const value = m[2].replace(/[`,;)]+$/, '')
      if (value.length < 4 || isPlaceholder(value, mask) || value.startsWith('$') || value.startsWith('-') || isPathLike(value)) return
      const start = m.index + m[0].length - m[2].length - m[1].length
      push(out, start, start + value.length, 'cli-flag')
    })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Credential API slots

const STR = `(["'])((?:\\\\.|(?!\\1)[^\\\\\\n]){0,300})\\1`
const AUTH_TUPLE_RE = new RegExp(`\\b(?:auth|basic_auth|http_auth|proxy_auth|auth_tuple|credentials)\\s*[=:]\\s*[([]\\s*${STR}\\s*,\\s*(["'])((?:\\\\.|(?!\\3)[^\\\\\\n]){1,300})\\3\\s*[)\\]]`, 'g')
/** Constructor or call → 0-based index of the secret among its string-literal arguments. */
const SLOTS: Record<string, number> = {
  HTTPBasicAuth: 1,
  HTTPDigestAuth: 1,
  HTTPProxyAuth: 1,
  BasicAuth: 1,
  DigestAuth: 1,
  NetworkCredential: 1,
  UsernamePasswordCredentials: 1,
  PasswordAuthentication: 1,
  PasswordCredential: 1,
  UsernamePasswordCredential: 1,
  BasicAWSCredentials: 1,
  AwsBasicCredentials: 1,
  StaticCredentialsProvider: 1,
  ClientSecretCredential: 2,
  login: 1,
  simple_bind_s: 1,
  simple_bind: 1,
  bind_s: 1,
  setBasicAuth: 1,
  withBasicAuth: 1,
  basicAuth: 1,
  basic_auth: 1,
  NewStaticCredentials: 1,
  SetBasicAuth: 1,
  PlainAuth: 2,
  Credentials: 1,
}
const CALL_RE = new RegExp(`\\b(${Object.keys(SLOTS).join('|')})\\s*\\(`, 'g')
const ARG_RE = new RegExp(`\\s*(?:${STR}|[^,()"'\\n]{1,120})\\s*(,|\\))`, 'y')

export function scanApiSlots(text: string, mask: string, out: Span[]): void {
  AUTH_TUPLE_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = AUTH_TUPLE_RE.exec(text)) !== null) {
    const value = m[4]
    if (value.length < 3 || isPlaceholder(value, mask)) continue
    const start = m.index + m[0].lastIndexOf(value)
    push(out, start, start + value.length, 'api-slot')
  }
  CALL_RE.lastIndex = 0
  while ((m = CALL_RE.exec(text)) !== null) {
    const slot = SLOTS[m[1]]
    let at = m.index + m[0].length
    for (let k = 0; k <= slot; k++) {
      ARG_RE.lastIndex = at
      const a = ARG_RE.exec(text)
      if (!a) break
      at = a.index + a[0].length
      if (k === slot && a[2] !== undefined) {
        const value = a[2]
        if (value.length >= 3 && !isPlaceholder(value, mask)) {
          const start = a.index + a[0].indexOf(a[1]) + 1
          push(out, start, start + value.length, 'api-slot')
        }
      }
      if (a[3] === ')') break
    }
  }
}
