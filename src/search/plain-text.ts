/**
 * The text of a document body that search indexes and cuts snippets from: what a person reads, not the file's
 * plumbing. Line-preserving (headings and `## Quote` blocks keep their shape for the readers of the indexed body), it
 * drops the store's status notice line, HTML comments (sync's `<!-- upstream:… -->` markers among them), and the
 * targets of Markdown links and images (`[text](../s/x.md)` → `text`). Fenced code is left exactly as written. Pure.
 * @module dsh-knowledge-sync/search/plain-text
 */
import { NOTICE_MARK } from '../wire.js'

export { NOTICE_MARK }

const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/
/** `[text](target)` or `![alt](src)`; the text holds no brackets, so a scan from one `[` stops at the next (linear). */
const LINK = /!?\[([^[\]\n]{0,500})\]\((?:[^()\s]{0,2000}|<[^<>\n]{0,2000}>)(?:[ \t]+"[^"\n]{0,300}")?\)/g
/** A comment that opens and closes on one line; several may share it. */
const COMMENT = /<!--[\s\S]*?-->/g

/** One line outside fenced code, without its comments and link targets. */
function plainLine(line: string): string {
  let out = line.includes('<!--') ? line.replace(COMMENT, '') : line
  if (out.includes('](')) out = out.replace(LINK, '$1')
  return out
}

/**
 * The plain reading text of `body`. A comment left open on a line runs to the first line holding `-->` (as
 * Markdown's HTML block does); a line that held only a comment disappears rather than leaving a blank.
 */
export function plainBody(body: string): string {
  if (!body.includes('<!--') && !body.includes('](')) return body
  const out: string[] = []
  let fence: string | undefined
  let comment = false
  for (const line of body.split('\n')) {
    if (comment) {
      const end = line.indexOf('-->')
      if (end < 0) continue
      comment = false
      const rest = plainLine(line.slice(end + 3))
      if (rest.trim()) out.push(rest)
      continue
    }
    const f = FENCE.exec(line)
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && !line.slice(f[0].length).trim()) fence = undefined
      out.push(line)
      continue
    }
    if (f) {
      fence = f[1]
      out.push(line)
      continue
    }
    if (line.includes(NOTICE_MARK)) continue
    let text = plainLine(line)
    const open = text.indexOf('<!--')
    if (open >= 0) {
      comment = true
      text = text.slice(0, open)
    }
    if (text.trim() || !(line.includes('<!--') || comment)) out.push(text)
  }
  return out.join('\n')
}
