/**
 * A status change as an edit of the file's own text: only the front-matter lines of the status keys (`status`,
 * `retired`, `superseded_by`) and the notice line under the title change; every other byte (hand-written YAML,
 * comments, key order, quoting, CRLF, blank lines) stays as written. Each edit is the exact inverse of the
 * other, so retiring and then restoring a hand-written document gives back its bytes. Pure.
 * @module dsh-knowledge-sync/knowledge/relations/status-text
 */
import { formatValue } from '../documents/document.js'
import { NOTICE_MARK } from './relations.js'

/** The front-matter keys a status change owns. */
export const STATUS_KEYS = ['status', 'superseded_by', 'retired'] as const

type StatusValues = Partial<Record<(typeof STATUS_KEYS)[number], unknown>>

const OPEN = /^(\uFEFF?)---[ \t]*(\r?\n)/
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m
/** A top-level line of one of the status keys (plain or quoted key). */
const STATUS_LINE = /^(?:"?)(status|superseded_by|retired)(?:"?)[ \t]*:/
/** A line that continues the value above it (indented, or a block list item). */
const CONTINUATION = /^(?:[ \t]|- |-$)/

/** `text` with the status keys set to `values` (undefined: absent) and `notice` under the title (undefined: none). */
export function withStatusText(text: string, values: StatusValues, notice: string | undefined): string {
  const open = OPEN.exec(text)
  const close = open ? CLOSE.exec(text.slice(open[0].length)) : null
  const eol = open ? open[2] : text.includes('\r\n') ? '\r\n' : '\n'
  const added = STATUS_KEYS.filter((k) => values[k] !== undefined).map((k) => `${k}: ${formatValue(values[k])}${eol}`)
  let head: string
  let body: string
  if (open && close) {
    const yamlStart = open[0].length
    const yamlEnd = yamlStart + close.index
    const kept = withoutStatusLines(text.slice(yamlStart, yamlEnd))
    const closing = text.slice(yamlEnd, yamlEnd + close[0].length)
    body = text.slice(yamlEnd + close[0].length)
    head = `${open[0]}${kept}${added.join('')}${closing}`
  } else {
    body = text
    head = added.length ? `---${eol}${added.join('')}---${eol}` : ''
  }
  return head + withNoticeText(body, notice, eol)
}

function withoutStatusLines(yaml: string): string {
  const lines = yaml.match(/[^\n]*\n|[^\n]+$/g) ?? []
  const out: string[] = []
  for (let k = 0; k < lines.length; k++) {
    if (!STATUS_LINE.test(lines[k])) {
      out.push(lines[k])
      continue
    }
    while (k + 1 < lines.length && CONTINUATION.test(lines[k + 1])) k++
  }
  return out.join('')
}

/**
 * The notice as one line `> … <!-- knowledge:status -->` and one blank line, right after the `# title` line and the
 * one blank line after it (or first, without a title; a blank line that opens the body stays first); an earlier notice line and its blank line are removed first.
 */
export function withNoticeText(body: string, notice: string | undefined, eol: string): string {
  const bare = withoutNoticeText(body)
  if (!notice) return bare
  const line = `> ${notice.replace(/[\r\n]+/g, ' ').trim()} ${NOTICE_MARK}${eol}${eol}`
  const heading = /^(?:\r?\n)?#[ \t]+[^\n]*\n(?:\r?\n)?/.exec(bare)
  const at = heading ? heading[0].length : (/^\r?\n/.exec(bare)?.[0].length ?? 0)
  return bare.slice(0, at) + line + bare.slice(at)
}

function withoutNoticeText(body: string): string {
  const lines = body.match(/[^\n]*\n|[^\n]+$/g) ?? []
  const at = lines.slice(0, 4).findIndex((l) => l.replace(/\r?\n$/, '').endsWith(NOTICE_MARK))
  if (at < 0) return body
  const drop = lines[at + 1] !== undefined && /^\r?\n$/.test(lines[at + 1]) ? 2 : 1
  lines.splice(at, drop)
  return lines.join('')
}
