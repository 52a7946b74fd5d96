/**
 * Private-key blocks: PEM / PGP / OpenSSH armour (also JSON-escaped, with literal `\n`) and PuTTY `Private-Lines`.
 * The body is masked and the marker lines kept; a block without its END marker is masked to the end of its base64 run.
 * @module dsh-knowledge-sync/redact/private-keys
 */
import { PRIORITY, type Span } from './scan.js'

const PEM_BEGIN_RE = /-----BEGIN ((?:[A-Z0-9]{1,20} ){0,3})PRIVATE KEY(?: BLOCK)?-----/g
const PUTTY_RE = /Private-Lines: ?[0-9]{1,4}/g
const MAX_KEY_BLOCK = 64 * 1024

/** Skips whitespace and literal `\n` `\r` `\t` escapes forwards from `i` up to `end`. */
function skipBlank(text: string, i: number, end: number): number {
  while (i < end) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++
      continue
    }
    if (c === 92) {
      let j = i
      while (j < end && text.charCodeAt(j) === 92) j++
      if (j < end && /[nrt]/.test(text[j])) {
        i = j + 1
        continue
      }
    }
    break
  }
  return i
}

/** Skips whitespace and literal escapes backwards from `e` (exclusive) down to `start`. */
function trimBlankEnd(text: string, start: number, e: number): number {
  while (e > start) {
    const c = text.charCodeAt(e - 1)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 92) {
      e--
      continue
    }
    if ((c === 110 || c === 114 || c === 116) && e - 2 >= start && text.charCodeAt(e - 2) === 92) {
      e -= 2
      continue
    }
    break
  }
  return e
}

/** Base64 characters in a key body once escapes are removed: a stand-in (`...`, `<key>`) has almost none. */
function base64Weight(body: string): number {
  return body.replace(/\\+[nrt]/g, '').replace(/[^A-Za-z0-9+/=]/g, '').length
}

/**
 * PEM/PGP/OpenSSH private-key blocks: the body between the BEGIN and END lines is masked and both marker lines are
 * kept (they say what kind of key it was). Works on raw text and JSON-escaped text alike because it looks for the
 * END marker, not for line breaks. A block without END (truncated output) is masked to the end of its base64 run.
 */
export function scanPrivateKeyBlocks(text: string, mask: string, out: Span[]): void {
  if (text.includes('PRIVATE KEY')) {
    PEM_BEGIN_RE.lastIndex = 0
    let m: RegExpExecArray | null
    // The next END marker is cached: many BEGINs without an END must not rescan the rest of the text each time.
    let nextEnd = -2
    while ((m = PEM_BEGIN_RE.exec(text)) !== null) {
      const bodyStart = m.index + m[0].length
      const limit = Math.min(text.length, bodyStart + MAX_KEY_BLOCK)
      if (nextEnd === -2 || (nextEnd !== -1 && nextEnd < bodyStart)) nextEnd = text.indexOf('-----END', bodyStart)
      const endAt = nextEnd
      let bodyEnd: number
      if (endAt !== -1 && endAt < limit) {
        bodyEnd = endAt
      } else {
        let j = bodyStart
        while (j < limit && /[A-Za-z0-9+/=\s\\:,-]/.test(text[j]) && !text.startsWith('-----', j)) j++
        bodyEnd = j
      }
      const s = skipBlank(text, bodyStart, bodyEnd)
      const e = trimBlankEnd(text, s, bodyEnd)
      if (e <= s) continue
      const body = text.slice(s, e)
      if (base64Weight(body) < 40 || (mask && body.includes(mask)) || /\.\.\.|…|<[^>]*>|your|example|REDACTED/i.test(body)) continue
      out.push({ start: s, end: e, family: 'private-key', priority: PRIORITY.privateKey })
      PEM_BEGIN_RE.lastIndex = Math.max(PEM_BEGIN_RE.lastIndex, e)
    }
  }
  if (text.includes('Private-Lines')) {
    PUTTY_RE.lastIndex = 0
    let m: RegExpExecArray | null
    let next = -2
    while ((m = PUTTY_RE.exec(text)) !== null) {
      const s = skipBlank(text, m.index + m[0].length, text.length)
      const stop = Math.min(text.length, s + 16 * 1024)
      if (next === -2 || (next !== -1 && next < s)) next = text.indexOf('Private-', s)
      let e = next
      if (e === -1 || e > stop) e = stop
      e = trimBlankEnd(text, s, e)
      if (e > s && base64Weight(text.slice(s, e)) >= 40) out.push({ start: s, end: e, family: 'private-key', priority: PRIORITY.privateKey })
    }
  }
}
