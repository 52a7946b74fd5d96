/**
 * The inline half of the Markdown parser: one paragraph's text to spans (text, code, strong, em, links). Links are
 * kept only for http(s) URLs (safeHref) and for links to another document by its id (`[text](<id>)`, opened inside
 * the page); HTML comments are dropped (they are invisible in any Markdown reader); everything else stays text.
 * Bounded: each `[` scans a limited distance and nesting is capped, so a hostile paragraph costs linear time.
 * @module dsh-knowledge-sync/client/markdown-inline
 */
import { isValidId } from '../src/wire.js'

const MAX_DEPTH = 6

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'doc'; id: string; children: Inline[] }

/** A `_` right after one of these continues an identifier or a key (`:_authToken`, `${_x}`, `a._b`): never emphasis. */
const IDENTIFIER_BEFORE = /[\w:.$/{@-]/
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!<>~|]/
const URL_BARE = /^https?:\/\/[^\s<>()"'`]+/i
const WORD = /[\p{L}\p{N}]/u

/** The URL when it is an absolute http(s) URL, else undefined: every other scheme (javascript:, data:, …) is text. */
export function safeHref(raw: string): string | undefined {
  const href = raw.trim()
  if (!/^https?:\/\//i.test(href)) return undefined
  try {
    const url = new URL(href)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** Link text longer than this is not looked for: each `[` scans at most this far, so `[[[[…` stays linear. */
const LINK_TEXT_MAX = 2000

/** Index of the `]` closing the `[` at `open`, or -1 (single line, nesting counted). */
function closingBracket(text: string, open: number): number {
  let level = 0
  const end = Math.min(text.length, open + LINK_TEXT_MAX)
  for (let k = open; k < end; k++) {
    const c = text[k]
    if (c === '\\') {
      k++
      continue
    }
    if (c === '\n' && level > 0 && text[k + 1] === '\n') return -1
    if (c === '[') level++
    else if (c === ']' && --level === 0) return k
  }
  return -1
}

/** Index of the `)` closing the `(` at `open`, or -1 (balanced parentheses, no whitespace runs across lines). */
function closingParen(text: string, open: number): number {
  let level = 0
  for (let k = open; k < text.length; k++) {
    const c = text[k]
    if (c === '\\') {
      k++
      continue
    }
    if (c === '\n') return -1
    if (c === '(') level++
    else if (c === ')' && --level === 0) return k
  }
  return -1
}

/** Parses inline Markdown into spans. Unmatched markers stay text. */
export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = []
  let buffer = ''
  const flush = () => {
    if (buffer) {
      out.push({ type: 'text', text: buffer })
      buffer = ''
    }
  }
  // A delimiter with no closer after some position has none after any later one either: remember, stay linear.
  const noCloser = new Set<string>()
  const find = (delimiter: string, from: number): number => {
    if (noCloser.has(delimiter)) return -1
    const at = text.indexOf(delimiter, from)
    if (at < 0) noCloser.add(delimiter)
    return at
  }
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '\\' && i + 1 < text.length && ESCAPABLE.test(text[i + 1])) {
      buffer += text[i + 1]
      i += 2
      continue
    }
    if (c === '`') {
      let run = 1
      while (text[i + run] === '`') run++
      const ticks = '`'.repeat(run)
      let close = find(ticks, i + run)
      // The closing run must be exactly as long.
      while (close >= 0 && text[close + run] === '`') close = text.indexOf(ticks, close + run + 1)
      if (close < 0) {
        buffer += ticks
        i += run
        continue
      }
      flush()
      const inner = text.slice(i + run, close).replace(/\n/g, ' ')
      out.push({ type: 'code', text: /^ .*[^ ] $/.test(inner) ? inner.slice(1, -1) : inner })
      i = close + run
      continue
    }
    if (depth < MAX_DEPTH && c === '[') {
      const close = closingBracket(text, i)
      if (close > i && text[close + 1] === '(') {
        const end = closingParen(text, close + 1)
        if (end > close) {
          const target = text
            .slice(close + 2, end)
            .trim()
            .replace(/\s+"[^"]*"$/, '')
            .replace(/^<(.*)>$/, '$1')
          const href = safeHref(target)
          if (href) {
            flush()
            out.push({ type: 'link', href, children: parseInline(text.slice(i + 1, close), depth + 1) })
          } else if (isValidId(target) && !target.includes('.')) {
            // A link by id (the routes turn a document's relative `.md` links back into ids): opens in the page.
            flush()
            out.push({ type: 'doc', id: target, children: parseInline(text.slice(i + 1, close), depth + 1) })
          } else {
            buffer += text.slice(i, end + 1) // not http(s): the source stays visible as text
          }
          i = end + 1
          continue
        }
      }
    }
    if (c === '<' && text.startsWith('<!--', i)) {
      // A comment is invisible in any Markdown reader (sync's markers, the status mark): dropped, not shown as text.
      const end = text.indexOf('-->', i + 4)
      if (end >= 0) {
        i = end + 3
        continue
      }
    }
    if (c === '<') {
      const auto = /^<(https?:\/\/[^\s<>]+)>/i.exec(text.slice(i, i + 2048))
      const href = auto ? safeHref(auto[1]) : undefined
      if (auto && href) {
        flush()
        out.push({ type: 'link', href, children: [{ type: 'text', text: auto[1] }] })
        i += auto[0].length
        continue
      }
    }
    if ((c === 'h' || c === 'H') && (i === 0 || !WORD.test(text[i - 1]))) {
      const bare = URL_BARE.exec(text.slice(i, i + 2048))
      if (bare) {
        const url = bare[0].replace(/[.,;:!?*_]+$/, '')
        const href = safeHref(url)
        if (href) {
          flush()
          out.push({ type: 'link', href, children: [{ type: 'text', text: url }] })
          i += url.length
          continue
        }
      }
    }
    if (depth < MAX_DEPTH && (c === '*' || c === '_')) {
      const double = text[i + 1] === c
      const delimiter = double ? c + c : c
      const after = text[i + delimiter.length]
      // `_` inside a word (snake_case) is not emphasis; neither is a marker followed by a space.
      const opens = after !== undefined && !/\s/.test(after) && after !== c && !(c === '_' && i > 0 && IDENTIFIER_BEFORE.test(text[i - 1]))
      if (opens) {
        let close = find(delimiter, i + delimiter.length + 1)
        // A single marker must not close on half of a double one.
        while (close >= 0 && !double && (text[close + 1] === c || text[close - 1] === c)) close = text.indexOf(delimiter, close + 2)
        while (close >= 0 && /\s/.test(text[close - 1])) close = text.indexOf(delimiter, close + 1)
        // An identifier goes on after a closing `_` (`__init__.py`, `NPM_TOKEN`): that is not emphasis either.
        if (close >= 0 && c === '_' && /^(?:\w|\.\w)/.test(text.slice(close + delimiter.length, close + delimiter.length + 2))) close = -1
        if (close > i) {
          flush()
          const children = parseInline(text.slice(i + delimiter.length, close), depth + 1)
          out.push(double ? { type: 'strong', children } : { type: 'em', children })
          i = close + delimiter.length
          continue
        }
      }
      buffer += double ? delimiter : c
      i += double ? 2 : 1
      continue
    }
    buffer += c
    i++
  }
  flush()
  return out
}
