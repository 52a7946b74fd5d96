/**
 * The parsing half of the Markdown renderer: source to plain data (blocks, then inline spans), no React and no HTML.
 * Links are kept only for http(s) URLs (safeHref); the source is capped and nesting is limited, so a hostile document
 * costs linear time. Rendering is in ./markdown.tsx.
 * @module dsh-knowledge-sync/client/markdown-parse
 */
/** Longest source rendered; the rest is cut with a marker (documents are capped far below this when written). */
export const MAX_SOURCE = 400_000
const MAX_DEPTH = 6

export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'code'; lang: string; text: string }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'rule' }
  | { type: 'paragraph'; text: string }

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/
const QUOTE = /^ {0,3}> ?(.*)$/
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line)
}

function isBlank(line: string): boolean {
  return line.trim() === ''
}

/** Parses Markdown into blocks. */
export function parseBlocks(source: string, depth = 0): Block[] {
  const text = source.length > MAX_SOURCE ? `${source.slice(0, MAX_SOURCE)}\n\n…` : source
  return parseLines(text.replace(/\r\n?/g, '\n').split('\n'), depth)
}

function parseLines(lines: string[], depth: number): Block[] {
  const blocks: Block[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    if (isBlank(line)) {
      i++
      continue
    }
    if (depth >= MAX_DEPTH) {
      // Too deep to structure further: the rest is one paragraph of text.
      blocks.push({ type: 'paragraph', text: lines.slice(i).join('\n').trim() })
      break
    }
    const fence = FENCE.exec(line)
    if (fence) {
      const marker = fence[1]
      const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`)
      const body: string[] = []
      i++
      while (i < lines.length && !closing.test(lines[i])) body.push(lines[i++])
      i++ // the closing fence (or the end)
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') })
      continue
    }
    const heading = HEADING.exec(line)
    if (heading) {
      blocks.push({ type: 'heading', level: heading[1].length, text: heading[2] ?? '' })
      i++
      continue
    }
    if (RULE.test(line)) {
      blocks.push({ type: 'rule' })
      i++
      continue
    }
    if (QUOTE.test(line)) {
      const inner: string[] = []
      while (i < lines.length && !isBlank(lines[i])) {
        const quoted = QUOTE.exec(lines[i])
        if (quoted) inner.push(quoted[1])
        else if (inner.length && !startsBlock(lines[i]))
          inner.push(lines[i]) // lazy continuation
        else break
        i++
      }
      blocks.push({ type: 'quote', blocks: parseLines(inner, depth + 1) })
      continue
    }
    const item = ITEM.exec(line)
    if (item) {
      const ordered = /\d/.test(item[2])
      const start = ordered ? Number.parseInt(item[2], 10) : 1
      const items: Block[][] = []
      while (i < lines.length) {
        const head = ITEM.exec(lines[i])
        if (!head || /\d/.test(head[2]) !== ordered) break
        // Continuation lines belong to the item when indented past its marker (or lazily, right after it).
        const indent = head[1].length + head[2].length + Math.max(1, Math.min(head[3].length, 4))
        const content: string[] = [head[4]]
        i++
        while (i < lines.length) {
          const next = lines[i]
          if (isBlank(next)) {
            // A blank line continues the item only if indented content follows.
            const after = lines[i + 1]
            if (after !== undefined && !isBlank(after) && leadingSpaces(after) >= indent) {
              content.push('')
              i++
              continue
            }
            break
          }
          if (leadingSpaces(next) >= indent) {
            content.push(next.slice(indent))
            i++
            continue
          }
          if (ITEM.test(next) || startsBlock(next)) break
          content.push(next.trim()) // lazy continuation of the item's paragraph
          i++
        }
        items.push(parseLines(content, depth + 1))
        // A blank line between two items of the same list keeps the list going.
        if (i < lines.length && isBlank(lines[i])) {
          let j = i
          while (j < lines.length && isBlank(lines[j])) j++
          const again = j < lines.length ? ITEM.exec(lines[j]) : null
          if (again && /\d/.test(again[2]) === ordered && again[1].length === head[1].length) i = j
          else break
        }
      }
      blocks.push({ type: 'list', ordered, start, items })
      continue
    }
    const para: string[] = [line.replace(/^ {0,3}/, '')]
    i++
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) para.push(lines[i++].replace(/^ {0,3}/, ''))
    blocks.push({ type: 'paragraph', text: para.join('\n') })
  }
  return blocks
}

function leadingSpaces(line: string): number {
  let n = 0
  for (const c of line) {
    if (c === ' ') n++
    else if (c === '\t') n += 4
    else break
  }
  return n
}

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
          } else {
            buffer += text.slice(i, end + 1) // not http(s): the source stays visible as text
          }
          i = end + 1
          continue
        }
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
