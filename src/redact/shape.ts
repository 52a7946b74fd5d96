/**
 * Value shapes and a loose value reader shared by the forms rules: what a typed password looks like, what a generated
 * key looks like, and one value after a separator (quoted on its line, or one run up to a space or CJK punctuation).
 * @module dsh-knowledge-sync/redact/shape
 */
import { charClasses, isPathLike, isPlaceholder, isStopword, isWordLike, looksRandom, shannon } from './allow.js'
import { PRIORITY, type Span } from './scan.js'

/** A value a person would type as a password: not a word of prose, not code, not a placeholder. */
export function passwordShaped(v: string, mask: string): boolean {
  if (v.length < 4 || v.length > 200) return false
  // Character classes first (cheap): a plain word is never a typed password here.
  const c = charClasses(v)
  if (!c.digit && !c.symbol && !(c.lower && c.upper && v.length >= 8) && !/[^\x00-\x7F]/.test(v)) return false
  if (/\s/.test(v) || isPlaceholder(v, mask) || isStopword(v) || isPathLike(v)) return false
  if (/[()[\]{}<>]/.test(v) || /[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*\(/.test(v) || /^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return false
  if (/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u.test(v)) return false
  if (/^[0-9]+$/.test(v)) return v.length >= 6
  if (c.digit || c.symbol) return !isWordLike(v) || c.symbol
  return c.lower && c.upper && v.length >= 8 && !isWordLike(v)
}

/** A value shaped like a generated key: long, one token, random-looking; never a UUID or a bare hash digest. */
export function keyShaped(v: string, mask: string, hexOk = false): boolean {
  if (v.length < 16 || v.length > 1024 || !/^[A-Za-z0-9+/=_.~:-]+$/.test(v) || isPlaceholder(v, mask) || isPathLike(v)) return false
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return false
  if (!hexOk && /^[0-9a-f]+$/i.test(v)) return false
  return looksRandom(v, 16) && shannon(v) >= 3.3
}

export function push(out: Span[], start: number, end: number, family: string, priority: number = PRIORITY.context): void {
  if (end > start) out.push({ start, end, family, priority })
}

const OPEN_QUOTES: Record<string, string> = { '"': '"', "'": "'", '`': '`', '\u201C': '\u201D', '\u2018': '\u2019', '\u300C': '\u300D', '\u300E': '\u300F' }
const STOP_CHARS = /[\s"'`\uFF0C\u3002\uFF1B\uFF01\uFF1F\u3001\uFF09\u300D\u300F\u201D\u2019\u3000\uFF1A\uFF1D]/

/** Reads one value at `i` (quoted on its line, or one run up to a space or CJK punctuation); null if none. */
export function readLoose(text: string, i: number): { start: number; end: number } | null {
  const close = OPEN_QUOTES[text[i]]
  if (close) {
    // Bounded search: an unclosed quote must not make every hit scan to the end of the text.
    const stop = Math.min(text.length, i + 513)
    for (let e = i + 1; e < stop; e++) {
      if (text[e] === close) return e > i + 1 ? { start: i + 1, end: e } : null
      if (text[e] === '\n') return null
    }
    return null
  }
  let j = i
  const stop = Math.min(text.length, i + 512)
  while (j < stop && !STOP_CHARS.test(text[j])) j++
  let e = j
  while (e > i && /[.,;:!?)\]]/.test(text[e - 1])) e--
  return e > i ? { start: i, end: e } : null
}
