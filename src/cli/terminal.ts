/**
 * Output for a person at a terminal: highlights the terminal way (bold where the terminal shows it, nothing where
 * the output is piped or NO_COLOR is set), and the hints name `dsh-knowledge` commands, not the model's tools.
 * @module dsh-knowledge-sync/cli/terminal
 */
import type { HitReader } from '../recall/search-tool.js'

/** The snippet's highlight marks (src/search/hits.ts asks for `**…**`, which the model reads as Markdown bold). */
const MARKED = /\*\*([^*\n]+?)\*\*/g

/**
 * Whether to write ANSI styles: never with NO_COLOR (https://no-color.org) or TERM=dumb, always with FORCE_COLOR
 * (other than `0`), else only when standard output is a terminal.
 */
export function styled(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return Boolean(stream.isTTY) && env.TERM !== 'dumb'
}

/** The snippet's highlights as bold (SGR 1, ended by SGR 22 so other styles survive), or as plain text. */
export function terminalHighlight(snippet: string, bold: boolean): string {
  return snippet.replace(MARKED, bold ? '\x1b[1m$1\x1b[22m' : '$1')
}

/** How the CLI shows search hits to a person. */
export function personReader(bold = styled()): HitReader {
  return { readHint: 'Read one with: dsh-knowledge read <id>', highlight: (s) => terminalHighlight(s, bold) }
}

/**
 * A document's Markdown for a person at a terminal: `**bold**` outside code as bold, everything else as written
 * (code fences and inline code untouched, so a command reads as it will run).
 */
export function terminalMarkdown(markdown: string): string {
  let fence: string | undefined
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
      if (marker) {
        if (!fence) fence = marker
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
        return line
      }
      if (fence) return line
      // Inline code spans stay as they are; the text between them gets its bold.
      return line
        .split(/(`[^`]*`)/)
        .map((part, k) => (k % 2 ? part : part.replace(/\*\*([^*\n]+?)\*\*/g, '\x1b[1m$1\x1b[22m')))
        .join('')
    })
    .join('\n')
}
