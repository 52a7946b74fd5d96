/**
 * Scanning primitives shared by the redaction rules: the span a rule reports, and escape-aware readers for names
 * and values in plain text, shell, YAML and (possibly nested) JSON string text, where a line break may be a literal
 * `\n` and a quote may be `\"` or `\\\"`. Pure functions, no I/O.
 * @module dsh-knowledge-sync/redact/scan
 */

/** A range of the input to mask, and who asked for it. */
export interface Span {
  start: number
  end: number
  family: string
  /** Wins the family of a merged span: provider formats > key blocks > JWT > context rules > generic > custom. */
  priority: number
}

/** Rule priorities (higher names the family of overlapping spans). */
export const PRIORITY = {
  provider: 100,
  serviceAccount: 95,
  privateKey: 90,
  jwt: 80,
  context: 50,
  env: 40,
  generic: 30,
  backstop: 20,
  custom: 10,
} as const

const BS = 92 // '\\'

/** Number of backslashes immediately before `i`. */
export function backslashesBefore(text: string, i: number): number {
  let n = 0
  while (i - n - 1 >= 0 && text.charCodeAt(i - n - 1) === BS) n++
  return n
}

/** True when `text[i]` is the letter of an escape sequence (`\n`, `\t`, `\"`…), i.e. preceded by an odd backslash run. */
export function isEscapeLetter(text: string, i: number): boolean {
  return (backslashesBefore(text, i) & 1) === 1
}

/** Index of the start of the line holding `i`: after a raw newline or a literal `\n`/`\r` escape. */
export function lineStart(text: string, i: number, limit = 4096): number {
  const stop = Math.max(0, i - limit)
  for (let j = i - 1; j >= stop; j--) {
    const c = text.charCodeAt(j)
    if (c === 10 || c === 13) return j + 1
    if ((c === 110 || c === 114) && j > 0 && text.charCodeAt(j - 1) === BS && isEscapeLetter(text, j)) return j + 1
  }
  return stop
}

/** Index of the end of the line holding `i` (exclusive): before a raw newline or a literal `\n`/`\r` escape. */
export function lineEnd(text: string, i: number, limit = 4096): number {
  const stop = Math.min(text.length, i + limit)
  for (let j = i; j < stop; j++) {
    const c = text.charCodeAt(j)
    if (c === 10 || c === 13) return j
    if (c === BS && j + 1 < text.length) {
      const n = text.charCodeAt(j + 1)
      if (n === 110 || n === 114) return j
      if (n === BS) j++ // an escaped backslash: skip its partner so `\\n` is not read as a line break
    }
  }
  return stop
}

/** A value found by {@link readValue}: `[start, end)` of the text, whether it was quoted, and what follows it. */
export interface ValueRead {
  start: number
  end: number
  quoted: boolean
  /** For unquoted values: more words follow on the same line (prose or a command line, not a bare scalar). */
  trailing: boolean
  /** A quoted value whose closing quote was not found on its line (masked to the end of the line). */
  unclosed?: boolean
}

/** How far an unquoted value runs. */
export type ValueMode = 'shell' | 'line' | 'inline'

const QUOTES = new Set([34, 39, 96]) // " ' `
const NEXT_PAIR_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,60}=/

/**
 * Reads the value starting at `i` (after the separator and any spaces). Quoted values run to the matching quote at
 * the same escape level (`"…"`, `\"…\"`, `\\\"…\\\"`) and never past a raw line break; an unclosed quote masks to
 * the end of the line so nothing leaks. Unquoted values stop at whitespace and escape sequences; `inline` also stops
 * at `,;)}]&<`, and `line` (YAML scalars) runs to the end of the line minus a ` #` comment.
 */
export function readValue(text: string, i: number, mode: ValueMode, maxLength = 4096): ValueRead | null {
  const n = text.length
  if (i >= n) return null
  // Opening quote, possibly escaped: count backslashes then a quote char.
  let k = 0
  while (k < 4 && i + k < n && text.charCodeAt(i + k) === BS) k++
  const q = i + k < n ? text.charCodeAt(i + k) : -1
  if (QUOTES.has(q)) {
    const start = i + k + 1
    const stop = Math.min(n, start + maxLength)
    const period = 2 * (k + 1)
    for (let j = start; j < stop; j++) {
      const c = text.charCodeAt(j)
      if (c === 10 || c === 13) return { start, end: j, quoted: true, trailing: false }
      if (c === q) {
        const run = backslashesBefore(text, j)
        if (run % period === k) return { start, end: j - k, quoted: true, trailing: false }
      }
    }
    return { start, end: Math.min(stop, lineEnd(text, start, maxLength)), quoted: true, trailing: false, unclosed: true }
  }
  if (k > 0) return null // a stray escape such as `\n`: no value here
  const stop = Math.min(n, i + maxLength)
  let j = i
  if (mode === 'line') {
    const end = lineEnd(text, i, maxLength)
    let e = end
    // Strip a trailing ` # comment` and trailing spaces.
    for (let t = i + 1; t < end; t++) {
      if (text.charCodeAt(t) === 35 && (text.charCodeAt(t - 1) === 32 || text.charCodeAt(t - 1) === 9)) {
        e = t
        break
      }
    }
    // A JSON string that holds the YAML ends at its closing quote (`"` or `\"`).
    for (let t = i; t < e; t++) {
      const c = text.charCodeAt(t)
      if (c === 34) {
        e = t
        while (e > i && text.charCodeAt(e - 1) === BS) e--
        break
      }
    }
    while (e > i && (text.charCodeAt(e - 1) === 32 || text.charCodeAt(e - 1) === 9)) e--
    if (e <= i) return null
    return { start: i, end: e, quoted: false, trailing: false }
  }
  for (; j < stop; j++) {
    const c = text.charCodeAt(j)
    if (c <= 32 || QUOTES.has(c)) break
    if (c === BS && j + 1 < n) {
      const nx = text.charCodeAt(j + 1)
      // \n \r \t \" \' \\ \/ \u end a value inside JSON text; other escapes (`\$` in shell) are part of it.
      if (nx === 110 || nx === 114 || nx === 116 || nx === 34 || nx === 39 || nx === BS || nx === 117) break
    }
    if (mode === 'inline' && (c === 44 || c === 59 || c === 41 || c === 125 || c === 93 || c === 38 || c === 60)) break
    // `;Name=` and `&name=` start the next pair of a connection string or query string; a `;` before a quote,
    // a space or the end closes a connection string or a shell command.
    if ((c === 59 || c === 38) && NEXT_PAIR_RE.test(text.slice(j + 1, j + 65))) break
    if (c === 59 && (j + 1 >= n || /[\s"'`\\]/.test(text[j + 1]))) break
  }
  if (j === i) return null
  let e = j
  // Prose punctuation that ends a sentence is not part of an inline value (shell and .env values keep every byte).
  if (mode === 'inline') while (e > i && /[.,;:!?)]/.test(text[e - 1])) e--
  // A closing bracket with no opening one inside the value belongs to the text around it: `(password=x)`.
  while (e > i && /[)\]}]/.test(text[e - 1]) && unbalanced(text.slice(i, e))) e--
  if (e === i) return null
  // More words on the same line: prose or a command line.
  let t = j
  while (t < n && (text.charCodeAt(t) === 32 || text.charCodeAt(t) === 9)) t++
  const trailing = t > j && t < n && /[A-Za-z(]/.test(text[t])
  return { start: i, end: e, quoted: false, trailing }
}

/** More closing than opening brackets. */
function unbalanced(v: string): boolean {
  let depth = 0
  for (const ch of v) {
    if (ch === '(' || ch === '[' || ch === '{') depth++
    else if (ch === ')' || ch === ']' || ch === '}') depth--
  }
  return depth < 0
}

/** Skips spaces and tabs from `i` (at most `max`). */
export function skipSpaces(text: string, i: number, max = 8): number {
  const stop = Math.min(text.length, i + max)
  while (i < stop && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++
  return i
}

/** Adds a span to `out` when it is not empty (every context rule reports through this). */
export function pushSpan(out: Span[], start: number, end: number, family: string, priority: number): void {
  if (end > start) out.push({ start, end, family, priority })
}
