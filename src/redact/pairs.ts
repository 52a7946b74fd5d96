/**
 * Values whose role is said by something beside them rather than by a name in front: a name–value pair
 * (`{"name": "session", "value": "…"}` in HAR and Playwright cookie and header arrays, `{"key": "password",
 * "value": "…"}` in Postman environments), the `user/password@` part of an Oracle thin JDBC URL, and the literal a
 * `ConvertTo-SecureString … -AsPlainText` call turns into a secure string (the password, never the cmdlet).
 * @module dsh-knowledge-sync/redact/pairs
 */
import { isPlaceholder } from './allow.js'
import { acceptValue } from './assignments.js'
import { classify, nameWords } from './credential-names.js'
import { PRIORITY, pushSpan, type Span } from './scan.js'

/** `"name": "X", "value": "` (or `key`), JSON-escaped quotes allowed: the value's role is the name's value. */
const JSON_PAIR_RE = /(\\?["'])(?:name|key)\1[ \t]*:[ \t]*(\\?["'])([^"'\\\r\n]{1,80})\2[ \t]*,[ \t\r\n]*(\\?["'])value\4[ \t]*:[ \t]*(\\?["'])/g
/** Words that name a session cookie (a bearer credential whatever else it is called). */
const SESSION_WORDS = new Set(['session', 'sess', 'sid', 'sessionid', 'jsessionid', 'phpsessid', 'sessid'])

/** How a pair's name classifies: a credential name, or a session cookie's name (weak: the value must look random). */
function pairKind(name: string): ReturnType<typeof classify> {
  return classify(name) ?? (nameWords(name).some((w) => SESSION_WORDS.has(w)) ? { kind: 'weak', keyword: 'session' } : null)
}

/** Name–value pairs of JSON (HAR, storage state, Postman): the value of a pair whose name is a credential's. */
export function scanJsonPairs(text: string, mask: string, out: Span[]): void {
  JSON_PAIR_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = JSON_PAIR_RE.exec(text)) !== null) {
    const cls = pairKind(m[3])
    if (!cls) continue
    const quote = m[5].slice(-1)
    const start = m.index + m[0].length
    let end = start
    while (end < text.length && end - start < 8192 && text[end] !== quote && text[end] !== '\n') end++
    if (text[end - 1] === '\\') end--
    const value = text.slice(start, end)
    if (!value || isPlaceholder(value, mask)) continue
    if (cls.kind === 'weak' ? !acceptValue(value, 'secret', cls.keyword, true, false, false, mask) : !acceptValue(value, cls.kind, cls.keyword, true, false, false, mask)) continue
    pushSpan(out, start, end, 'generic-secret', PRIORITY.context)
  }
}

/** `jdbc:oracle:thin:user/password@host…`: Oracle's thin driver puts the credentials before `@`. */
const ORACLE_THIN_RE = /jdbc:oracle:thin:([A-Za-z0-9_$#.]{1,64})\/([^\s@"'<>]{1,128})@/gi

export function scanOracleThin(text: string, mask: string, out: Span[]): void {
  ORACLE_THIN_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = ORACLE_THIN_RE.exec(text)) !== null) {
    const password = m[2]
    if (isPlaceholder(password, mask) || /^\$\{?[A-Za-z_]/.test(password)) continue
    const start = m.index + m[0].length - 1 - password.length
    pushSpan(out, start, start + password.length, 'connection-string', PRIORITY.context)
  }
}

/** A `ConvertTo-SecureString` call up to the end of its statement (a line, `;`, `|` or a closing parenthesis). */
const SECURE_STRING_RE = /ConvertTo-SecureString\b([^\n;|)]{0,400})/gi
const STRING_ARG_RE = /(?:^|\s)(?:-String\s+)?(["'])((?:(?!\1)[^\n]){1,200})\1/g

/** The string literal handed to `ConvertTo-SecureString … -AsPlainText`: a password written in plain text. */
export function scanSecureStrings(text: string, mask: string, out: Span[]): void {
  SECURE_STRING_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = SECURE_STRING_RE.exec(text)) !== null) {
    const args = m[1]
    if (!/-AsPlainText\b/i.test(args)) continue
    const at = m.index + m[0].length - args.length
    STRING_ARG_RE.lastIndex = 0
    let a: RegExpExecArray | null
    while ((a = STRING_ARG_RE.exec(args)) !== null) {
      const value = a[2]
      // A double-quoted `"$env:PW"` or `"$pw"` is a variable, not the password.
      if ((a[1] === '"' && /^\$/.test(value)) || isPlaceholder(value, mask)) continue
      const start = at + a.index + a[0].length - 1 - value.length
      pushSpan(out, start, start + value.length, 'generic-secret', PRIORITY.context)
      break
    }
  }
}
