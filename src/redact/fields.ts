/**
 * The order every written or sent text follows: redact first, then cut. A document's fields (title, sections, tool
 * arguments, failure excerpts, tags, tool names) and a distill request's round are bounded for display, and a cut
 * made before redaction leaves the start of a secret behind (`ghp_` + 26 of its 40 characters, a title holding a
 * whole token). So each field goes through: a bounded window (the kept length plus a margin, so a multi-MB field costs
 * a bounded redaction) → a token straddling the window's edge masked outright (the redactor cannot see it whole) →
 * control characters removed, JSON shown compactly (so what is redacted is exactly what is written) → redaction →
 * propagation of every masked value across all fields of the document → the cut, which never splits the mask and
 * never keeps the start of a token it cuts through.
 * @module dsh-knowledge-sync/redact/fields
 */
import type { Redaction } from '../types.js'
import { boundedJson } from './json.js'
import { ValueMatcher, type MaskedValue } from './propagate.js'
import type { Redactor } from './redactor.js'
import { applySpans } from './spans.js'

/** How far past the kept length the redactor looks, so a secret across the cut is seen whole (PEM blocks included). */
export const REDACT_MARGIN = 8 * 1024
/** JSON fields up to this size are parsed and shown compactly; longer ones are shown as a (windowed) string. */
export const JSON_PARSE_LIMIT = 64 * 1024

/** One text to redact and bound. */
export interface FieldInput {
  text: string
  /** Characters kept after redaction. */
  limit: number
  /** What a cut field ends with: `note` "… [N more characters]" (default), `ellipsis` "…", `none`. */
  cut?: 'note' | 'ellipsis' | 'none'
  /** The text is JSON (tool arguments): shown compact, nesting and size bounded, before it is redacted. */
  json?: boolean
  /** Left out of `redaction` (the caller derives something smaller from it and counts that: a title). */
  uncounted?: boolean
}

/** The fields redacted, propagated and cut, in input order, and what redaction did to all of them. */
export interface RedactedFields {
  texts: string[]
  redaction: Redaction
}

// C0 controls other than tab and newline carry no knowledge and upset terminals and YAML readers.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g
/** Control characters removed, line ends normalized. */
export const cleanText = (text: string): string => text.replace(CONTROL, '').replace(/\r\n?/g, '\n')

/**
 * A character that can be part of a credential-shaped token (base64, URL-safe base64, JWT dots, `user:pass@host`,
 * `%xx`): anything but whitespace, quotes, backslash, and the brackets and separators of code and prose.
 */
export function isTokenChar(code: number): boolean {
  if (code <= 32 || code === 127) return false
  // " ' ` \ , ; ( ) [ ] { } < > |
  return !(
    code === 34 ||
    code === 39 ||
    code === 96 ||
    code === 92 ||
    code === 44 ||
    code === 59 ||
    code === 40 ||
    code === 41 ||
    code === 91 ||
    code === 93 ||
    code === 123 ||
    code === 125 ||
    code === 60 ||
    code === 62 ||
    code === 124
  )
}

/** How far a cut moves back to the start of a token it would split. */
const BACK_OFF = 256

/** Start of the token run that ends at `end` (exclusive), looking back at most `max` characters. */
function runStart(text: string, end: number, max = Infinity): number {
  let k = end
  const stop = Math.max(0, end - max)
  while (k > stop && isTokenChar(text.charCodeAt(k - 1))) k--
  return k
}

/** `end` moved off the middle of a surrogate pair. */
function pairSafe(text: string, end: number): number {
  const code = text.charCodeAt(end - 1)
  return end > 0 && end < text.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end
}

/**
 * The first `size` characters of `text`, ready for redaction. When the edge falls inside a token run, the run's part
 * inside the window is replaced by `mask`: the redactor would see only its start and might not recognise it.
 */
export function windowOf(text: string, size: number, mask: string): { text: string; edgeMasked: boolean } {
  if (text.length <= size) return { text, edgeMasked: false }
  const end = pairSafe(text, size)
  if (!isTokenChar(text.charCodeAt(end)) || !isTokenChar(text.charCodeAt(end - 1))) return { text: text.slice(0, end), edgeMasked: false }
  return { text: text.slice(0, runStart(text, end)) + mask, edgeMasked: true }
}

/**
 * `text` (already redacted) cut to `limit` characters. The cut never splits the mask and never keeps the start of a
 * token it cuts through (it moves back to the token's start). `omitted` is how many characters of the original are
 * not shown, for the note.
 */
export function cutRedacted(text: string, limit: number, mask: string, style: FieldInput['cut'] = 'note', omitted?: number): string {
  if (text.length <= limit) return text
  let end = pairSafe(text, limit)
  if (mask) {
    const at = text.lastIndexOf(mask, end - 1)
    if (at >= 0 && at + mask.length > end) end = at
  }
  // Cosmetic (the redactor saw the whole token): drop a short token cut in two rather than keep its first half.
  if (end > 0 && isTokenChar(text.charCodeAt(end)) && isTokenChar(text.charCodeAt(end - 1))) {
    const start = runStart(text, end, BACK_OFF)
    if (start > 0 && end - start < BACK_OFF) end = start
  }
  const kept = text.slice(0, end)
  if (style === 'none') return kept
  if (style === 'ellipsis') return `${kept.trimEnd()}…`
  return `${kept}… [${Math.max(omitted ?? text.length - end, 1)} more characters]`
}

/** A JSON `\uXXXX` escape of a printable ASCII character. */
const ASCII_ESCAPE = /\\u00([2-7][0-9a-fA-F])/g
const ASCII_ESCAPE_TEST = /\\u00[2-7][0-9a-fA-F]/
/** `text` with `\uXXXX` escapes of printable ASCII decoded. */
const decodeEscapes = (text: string): string => text.replace(ASCII_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** Tool arguments as compact one-line JSON, depth- and size-bounded; a non-JSON string is shown as a JSON string. */
export function compactJson(raw: string, chars: number): string {
  try {
    return boundedJson(JSON.parse(raw), { chars }).text
  } catch {
    return JSON.stringify(raw)
  }
}

/** Occurrences of `mask` in `text`. */
export function countOf(text: string, mask: string): number {
  if (!mask) return 0
  let n = 0
  for (let at = text.indexOf(mask); at >= 0; at = text.indexOf(mask, at + mask.length)) n++
  return n
}

function addFamilies(into: Record<string, number>, from: Record<string, number>): void {
  for (const [family, n] of Object.entries(from)) into[family] = (into[family] ?? 0) + n
}

/**
 * Redacts `fields` as one document: each within its window, then every masked value propagated across all of them,
 * then each cut to its limit. `redaction.count` is the number of masked values the kept texts show.
 */
export async function redactFields(redactor: Redactor, fields: FieldInput[], options: { margin?: number } = {}): Promise<RedactedFields> {
  const mask = redactor.enabled ? redactor.mask : ''
  const margin = options.margin ?? REDACT_MARGIN
  const total: Redaction = { text: '', count: 0, families: {} }
  const prepared = fields.map((field) => {
    const raw = typeof field.text === 'string' ? field.text : String(field.text ?? '')
    const size = field.limit + margin
    if (field.json && raw.length <= JSON_PARSE_LIMIT) {
      const { text, edgeMasked } = windowOf(compactJson(cleanText(raw), JSON_PARSE_LIMIT * 2), size, mask)
      return { source: text, edgeMasked, length: raw.length }
    }
    const { text, edgeMasked } = windowOf(raw, size, mask)
    const source = cleanText(text)
    // Too long to parse: shown as a JSON string of its window, with `\uXXXX` escapes of printable ASCII decoded first
    // (written escaped, `\u0067hp_…` would carry a token the redactor never saw).
    return { source: field.json ? JSON.stringify(decodeEscapes(source)) : source, edgeMasked, length: raw.length }
  })
  if (!redactor.enabled) {
    return { texts: prepared.map((p, i) => cutRedacted(p.source, fields[i].limit, '', fields[i].cut, Math.max(p.length - fields[i].limit, 1))), redaction: total }
  }
  const redacted: Redaction[] = []
  // Propagation is left to the one pass below, which covers each field's own values as well as the others'.
  for (const p of prepared) {
    let r = await redactor.redact(p.source, { propagate: false })
    // `\u0067hp_…` written as is carries a token the rules cannot see: when decoding such escapes reveals more
    // secrets, the decoded text is what is written (otherwise the text stays as its author wrote it).
    if (ASCII_ESCAPE_TEST.test(p.source)) {
      const plain = decodeEscapes(p.source)
      const decoded = await redactor.redact(plain, { propagate: false })
      if (decoded.count > r.count) {
        r = decoded
        p.source = plain
      }
    }
    redacted.push(r)
  }
  // One matcher over every value any field gave up; each field is scanned once more.
  const values: MaskedValue[] = redacted.flatMap((r) => r.values ?? [])
  const matcher = values.length ? new ValueMatcher(values, mask) : undefined
  const texts = redacted.map((r, i) => {
    let text = r.text
    let count = r.count
    const families = { ...r.families }
    if (matcher?.size) {
      const spans = matcher.spans(text).filter((s) => !overlapsMask(text, s.start, s.end, mask))
      if (spans.length) {
        const more = applySpans(text, spans, mask)
        text = more.text
        count += more.count
        addFamilies(families, more.families)
      }
    }
    const { limit, cut } = fields[i]
    const { edgeMasked, source, length } = prepared[i]
    if (edgeMasked) {
      count++
      families.partial = (families.partial ?? 0) + 1
    }
    if (text.length > limit) {
      const kept = cutRedacted(text, limit, mask, 'none')
      // What the kept part shows, less masks the input itself already held (the edge mask is never kept: see cut).
      const input = edgeMasked ? source.slice(0, source.length - mask.length) : source
      count = Math.max(0, countOf(kept, mask) - countOf(input.slice(0, kept.length), mask))
      text = cutRedacted(text, limit, mask, cut, Math.max(length - kept.length, 1))
    }
    if (!fields[i].uncounted) {
      total.count += count
      addFamilies(total.families, families)
    }
    return text
  })
  return { texts, redaction: total }
}

/** A span that touches an existing mask (only possible for values that share characters with it): left alone. */
function overlapsMask(text: string, start: number, end: number, mask: string): boolean {
  if (!mask) return false
  return text.slice(Math.max(0, start - mask.length + 1), end + mask.length - 1).includes(mask)
}

/** One line of text as it may be recorded outside a document: whitespace folded, redacted, then cut to `max`. */
export async function redactLine(redactor: Redactor, text: string, max = 80): Promise<string> {
  const redacted = (await redactor.redact(text.replace(/\s+/g, ' ').trim())).text
  return redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted
}
