/**
 * Context rules on command lines: long flags with a secret-like name (`--password=…`, `--token …`, `-passin pass:…`,
 * `curl -u user:…`) and the short password flags of known commands (`mysql -pX`, `sshpass -p`, `redis-cli -a`, …).
 * @module dsh-knowledge-sync/redact/context-flags
 */
import { isPathLike, isPlaceholder, isStopword } from './allow.js'
import { lineEnd, lineStart, PRIORITY, readValue, skipSpaces, pushSpan, type Span } from './scan.js'

// ---------------------------------------------------------------------------------------------------------------
// Command-line flags

const LONG_FLAG_RE =
  /(?<![A-Za-z0-9_-])--?((?:[A-Za-z0-9]{1,20}[-_]){0,3}(?:password|passwd|pass|pwd|passphrase|token|secret|api[-_]?key|apikey|access[-_]?key|secret[-_]?key|auth[-_]?token|access[-_]?token|refresh[-_]?token|private[-_]?token|client[-_]?secret|storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass))(?![A-Za-z0-9_-])(=|[ \t]{1,4})/gi
const OPENSSL_PASS_RE = /(?<![A-Za-z0-9_-])-pass(?:in|out)?[ \t]{1,4}pass:/g
const CURL_USER_RE = /(?<![A-Za-z0-9_-])(?:-u|--user)(?:[ \t]{1,4}|=)/g

/** A flag's value: not the next flag, not a placeholder, not prose glue ("use --token to …"). */
function flagValueOk(v: string, spaced: boolean, mask: string): boolean {
  if (!v || v.startsWith('-') || !/[A-Za-z0-9]/.test(v) || isPlaceholder(v, mask)) return false
  if (spaced && (isStopword(v) || v.length < 3)) return false
  if (isPathLike(v)) return false
  return true
}

/** `--password=x`, `--password x`, `--token x`, `--api-key=x`, `-storepass x`, `-passin pass:x`, `curl -u user:pass`. */
export function scanLongFlags(text: string, mask: string, out: Span[]): void {
  LONG_FLAG_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = LONG_FLAG_RE.exec(text)) !== null) {
    const i = m.index + m[0].length
    const spaced = m[2] !== '='
    // The next flag (`--token --token …`) or a command substitution is not a value; checked before any read.
    if (text[i] === '`' || text[i] === '-') continue
    const v = readValue(text, i, 'shell', 4096)
    if (!v || v.unclosed) continue
    const value = text.slice(v.start, v.end)
    if (!flagValueOk(value, spaced && !v.quoted, mask)) continue
    pushSpan(out, v.start, v.end, 'cli-flag', PRIORITY.context)
  }
  if (text.includes('pass:')) {
    OPENSSL_PASS_RE.lastIndex = 0
    while ((m = OPENSSL_PASS_RE.exec(text)) !== null) {
      const v = readValue(text, m.index + m[0].length, 'shell', 1024)
      if (v && !isPlaceholder(text.slice(v.start, v.end), mask)) pushSpan(out, v.start, v.end, 'cli-flag', PRIORITY.context)
    }
  }
  CURL_USER_RE.lastIndex = 0
  while ((m = CURL_USER_RE.exec(text)) !== null) {
    const ls = lineStart(text, m.index, 600)
    if (!/\b(?:curl|wget|http|https|xh|httpie)\b/.test(text.slice(ls, m.index))) continue
    const v = readValue(text, m.index + m[0].length, 'shell', 1024)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    const colon = value.indexOf(':')
    if (colon <= 0 || colon === value.length - 1) continue
    const pw = value.slice(colon + 1)
    if (isPlaceholder(pw, mask)) continue
    pushSpan(out, v.start + colon + 1, v.end, 'cli-flag', PRIORITY.context)
  }
}

/** Short password flags that only mean "password" for particular commands. `attached`: `-pX`; `spaced`: `-p X`. */
const COMMANDS: Array<{ re: RegExp; flag: string; attached: boolean; spaced: boolean; needs?: RegExp }> = [
  { re: /^(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|mycli)$/, flag: 'p', attached: true, spaced: false },
  { re: /^sshpass$/, flag: 'p', attached: true, spaced: true },
  { re: /^redis-cli$/, flag: 'a', attached: true, spaced: true },
  { re: /^(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)$/, flag: 'p', attached: true, spaced: true },
  { re: /^(?:sqlcmd|bcp)$/, flag: 'P', attached: true, spaced: true },
  { re: /^(?:zip|unzip)$/, flag: 'P', attached: false, spaced: true },
  { re: /^7za?$/, flag: 'p', attached: true, spaced: false },
  { re: /^(?:docker|podman|nerdctl|buildah|helm|skopeo|oras)$/, flag: 'p', attached: true, spaced: true, needs: /\blogin\b/ },
]
const COMMAND_RE =
  /(?<![A-Za-z0-9_./-])(mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|mycli|sshpass|redis-cli|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|sqlcmd|bcp|zip|unzip|7z|7za|docker|podman|nerdctl|buildah|helm|skopeo|oras)(?![A-Za-z0-9_-])/g
const SHORT_FLAG_RE = /(?<=[ \t])-([pPa])/g // run on a segment that starts right after the command word

/**
 * `mysql -uroot -pS3cret`, `sshpass -p pw ssh …`, `redis-cli -a pw`, `docker login -u x -p pw`, `sqlcmd -P pw`.
 * Each command word owns the text up to the next command word, line break, pipe or command separator (at most
 * 1000 characters), so the segments are disjoint and the scan stays linear even on a line of nothing but commands.
 */
export function scanCommandFlags(text: string, mask: string, out: Span[]): void {
  COMMAND_RE.lastIndex = 0
  let prev: { name: string; end: number } | null = null
  let m: RegExpExecArray | null
  // Each command is handled once the next one (or the end of the text) bounds its segment.
  while ((m = COMMAND_RE.exec(text)) !== null) {
    if (prev) commandSegment(text, prev.name, prev.end, m.index, mask, out)
    prev = { name: m[1], end: m.index + m[0].length }
  }
  if (prev) commandSegment(text, prev.name, prev.end, text.length, mask, out)
}

/** The short password flag of one command, between the command word and `bound`. */
function commandSegment(text: string, name: string, segStart: number, bound: number, mask: string, out: Span[]): void {
  const spec = COMMANDS.find((x) => x.re.test(name))
  if (!spec) return
  let segEnd = Math.min(text.length, segStart + 1000, bound)
  segEnd = Math.min(segEnd, lineEnd(text, segStart, segEnd - segStart))
  const seg = text.slice(segStart, segEnd)
  const cut = seg.search(/[|;]|&&/)
  const segment = cut === -1 ? seg : seg.slice(0, cut)
  if (spec.needs && !spec.needs.test(segment)) return
  segEnd = segStart + segment.length
  SHORT_FLAG_RE.lastIndex = 0
  let f: RegExpExecArray | null
  while ((f = SHORT_FLAG_RE.exec(segment)) !== null) {
    if (f[1] !== spec.flag) continue
    const after = segStart + f.index + 2
    const next = text[after]
    let v = null
    let spaced = false
    if (after < segEnd && next !== ' ' && next !== '\t') {
      if (!spec.attached || next === '`') continue
      v = readValue(text, after, 'shell', 1024)
    } else {
      if (!spec.spaced) continue
      const j = skipSpaces(text, after, 4)
      if (j >= segEnd) continue
      v = readValue(text, j, 'shell', 1024)
      spaced = true
    }
    if (!v || v.end > segEnd + 1 || v.unclosed) continue
    const value = text.slice(v.start, v.end)
    if (!flagValueOk(value, spaced && !v.quoted, mask)) continue
    pushSpan(out, v.start, v.end, 'cli-flag', PRIORITY.context)
  }
}
