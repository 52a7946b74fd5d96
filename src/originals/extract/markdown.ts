/**
 * HTML → Markdown for originals (a DOCX converted by mammoth, a downloaded page's main content): turndown with
 * tables kept as Markdown tables (turndown alone flattens them into text) and images dropped (they are counted by
 * the caller, never shown).
 * @module dsh-knowledge-sync/originals/extract/markdown
 */
import TurndownService from 'turndown'

const cell = (content: string) =>
  ` ${content
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim()} |`

function converter(): TurndownService {
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' })
  turndown.remove(['img', 'script', 'style', 'noscript', 'iframe', 'svg', 'canvas', 'form', 'button'] as TurndownService.Filter)
  turndown.addRule('table-cell', { filter: ['th', 'td'], replacement: cell })
  turndown.addRule('table-row', {
    filter: 'tr',
    replacement(content, node) {
      const row = node as unknown as { parentNode?: { firstChild?: unknown; nodeName?: string; previousSibling?: unknown }; childNodes: ArrayLike<{ nodeName: string }> }
      const first = row.parentNode?.firstChild === row && (row.parentNode?.nodeName !== 'TBODY' || !row.parentNode?.previousSibling)
      const width = row.childNodes.length ? Array.from(row.childNodes).filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH').length : 0
      return `\n|${content}${first && width ? `\n|${' --- |'.repeat(width)}` : ''}`
    },
  })
  turndown.addRule('table-section', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content })
  turndown.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.trim()}\n\n` })
  return turndown
}

let shared: TurndownService | undefined

export function htmlToMarkdown(html: string): string {
  shared ??= converter()
  return shared
    .turndown(html)
    .replace(/^(\s*)([-*]|\d+\.) {2,3}/gm, '$1$2 ') // turndown pads list markers to four columns
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
