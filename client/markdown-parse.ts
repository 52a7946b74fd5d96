/**
 * The parsing half of the Markdown renderer: source to plain data (blocks, then inline spans), no React and no HTML.
 * Links are kept only for http(s) URLs (safeHref) and ids of documents; the source is capped and nesting is limited,
 * so a hostile document costs linear time. Rendering is in ./markdown.tsx.
 *
 * A synced document's `<!-- upstream:start … -->` … `<!-- upstream:end -->` lines become one `synced` block (the
 * markers are never text; the `upstream:source` line names where it came from), and the headings inside it are
 * demoted below the heading the section sits under: the upstream's `# H1` is its own title, not the document's.
 * Any other HTML comment is dropped, as a Markdown reader would.
 * @module dsh-knowledge-sync/client/markdown-parse
 */
import { UPSTREAM_END_LINE, UPSTREAM_SOURCE_LINE, UPSTREAM_START_LINE } from '../src/wire.js'

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
  | { type: 'synced'; name: string; source?: string; blocks: Block[] }

export type { Inline } from './markdown-inline.js'
export { parseInline, safeHref } from './markdown-inline.js'

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/
const QUOTE = /^ {0,3}> ?(.*)$/
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/
const COMMENT_OPEN = /^ {0,3}<!--/

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line) || COMMENT_OPEN.test(line)
}

/** Headings of `blocks` (nested ones too) moved down so the highest becomes `top` (never past h6). */
function demote(blocks: Block[], top: number): Block[] {
  let highest = 7
  const scan = (list: Block[]) => {
    for (const b of list) {
      if (b.type === 'heading') highest = Math.min(highest, b.level)
      else if (b.type === 'quote' || b.type === 'synced') scan(b.blocks)
      else if (b.type === 'list') for (const item of b.items) scan(item)
    }
  }
  scan(blocks)
  const shift = highest <= 6 ? Math.max(0, top - highest) : 0
  if (!shift) return blocks
  const move = (list: Block[]): Block[] =>
    list.map((b) => {
      if (b.type === 'heading') return { ...b, level: Math.min(6, b.level + shift) }
      if (b.type === 'quote' || b.type === 'synced') return { ...b, blocks: move(b.blocks) }
      if (b.type === 'list') return { ...b, items: b.items.map(move) }
      return b
    })
  return move(blocks)
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
  /** The level of the last heading seen here (the document's title is the H1 above everything). */
  let under = 1
  // Where the next end marker is (searched once forward, so many unclosed starts stay linear).
  let endAt = -2
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    if (isBlank(line)) {
      i++
      continue
    }
    const start = depth === 0 ? UPSTREAM_START_LINE.exec(line) : null
    if (start) {
      if (endAt !== -1 && endAt <= i) {
        endAt = -1
        for (let k = i + 1; k < lines.length; k++)
          if (UPSTREAM_END_LINE.test(lines[k])) {
            endAt = k
            break
          }
      }
      const end = endAt
      if (end > i) {
        let inner = lines.slice(i + 1, end)
        const source = inner.length ? UPSTREAM_SOURCE_LINE.exec(inner[0])?.[1] : undefined
        if (source !== undefined) inner = inner.slice(1)
        blocks.push({ type: 'synced', name: start[1], ...(source !== undefined ? { source } : {}), blocks: demote(parseLines(inner, depth + 1), under + 1) })
        i = end + 1
        continue
      }
    }
    if (COMMENT_OPEN.test(line)) {
      // An HTML comment block: skipped to the line that closes it (or to the end), as a Markdown reader hides it.
      let k = i
      while (k < lines.length && !lines[k].includes('-->', k === i ? line.indexOf('<!--') + 4 : 0)) k++
      const rest = k < lines.length ? lines[k].slice(lines[k].indexOf('-->', k === i ? line.indexOf('<!--') + 4 : 0) + 3) : ''
      i = k + 1
      if (rest.trim()) lines.splice(i, 0, rest)
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
      under = heading[1].length
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
