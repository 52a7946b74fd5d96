/**
 * The operation log, `<root>/log.md`: one dated line per operation (`ingest`, `query`, `lint`, …), appended, never
 * rewritten, so several processes (and a team's clones) add lines without losing any. The file starts with the
 * generated line; pages are links by relative path, read back as ids. Opened without following links and refused
 * unless it is a regular file (a FIFO or a link planted in a shared root never blocks or redirects a write).
 * @module dsh-knowledge-sync/knowledge/wiki/op-log
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { GENERATED_LINE } from './catalogue.js'

export const LOG_FILE = 'log.md'
export const OPERATION = /^[a-z][a-z0-9-]{0,31}$/
export const MAX_WHAT = 300
/** `read log` shows this many entries, newest first. */
export const LOG_TAIL = 10
/** How much of the end of the file a read looks at. */
const TAIL_BYTES = 64 * 1024
const FLAGS = constants.O_NOFOLLOW | constants.O_NONBLOCK

/** One entry: when, what kind of operation, what was done, which pages. */
export interface LogEntry {
  at: string
  operation: string
  what: string
  pages: string[]
}

const HEADER = `${GENERATED_LINE}\n\n# Log\n\n`
const SEP = ' · '

/** One line of the file; `pathOf` gives a page's root-relative path (links are written as paths, as in pages). */
export function logLine(entry: LogEntry, pathOf: (id: string) => string | undefined): string {
  const pages = entry.pages.map((id) => {
    const path = pathOf(id)
    return path ? `[${id}](${encodeURI(path)})` : id
  })
  return `- ${entry.at}${SEP}${entry.operation}${SEP}${entry.what.replace(/\s+/g, ' ').replaceAll(SEP, ' - ')}${pages.length ? `${SEP}pages: ${pages.join(', ')}` : ''}\n`
}

/** Parses the file's lines back into entries (lines that are not entries are skipped). */
export function parseLog(text: string): LogEntry[] {
  const out: LogEntry[] = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('- ')) continue
    const parts = line.slice(2).split(SEP)
    if (parts.length < 3 || Number.isNaN(Date.parse(parts[0])) || !OPERATION.test(parts[1])) continue
    const last = parts[parts.length - 1]
    const pages =
      parts.length > 3 && last.startsWith('pages: ')
        ? last
            .slice(7)
            .split(', ')
            .map((p) => /^\[([^\]]+)\]/.exec(p)?.[1] ?? p)
        : []
    out.push({ at: parts[0], operation: parts[1], what: parts.slice(2, pages.length ? -1 : undefined).join(SEP), pages })
  }
  return out
}

/** Appends one line (and the header when the file is new). Throws naming the file when it cannot be a log. */
export function appendLog(root: string, line: string): void {
  const path = join(root, LOG_FILE)
  let fd: number
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | FLAGS, 0o644)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new Error(code === 'ELOOP' ? `${LOG_FILE} is a symbolic link; links are never followed` : `cannot write ${LOG_FILE}: ${(error as Error).message}`)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new Error(`${LOG_FILE} is not a regular file`)
    writeSync(fd, info.size === 0 ? HEADER + line : line)
  } finally {
    closeSync(fd)
  }
}

/** The last `count` entries, newest first; none when there is no log yet. */
export function readLogTail(root: string, count = LOG_TAIL): LogEntry[] {
  let fd: number
  try {
    fd = openSync(join(root, LOG_FILE), constants.O_RDONLY | FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return []
    throw new Error(code === 'ELOOP' ? `${LOG_FILE} is a symbolic link; links are never followed` : `cannot read ${LOG_FILE}: ${(error as Error).message}`)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new Error(`${LOG_FILE} is not a regular file`)
    const size = Math.min(info.size, TAIL_BYTES)
    const buffer = Buffer.alloc(size)
    readSync(fd, buffer, 0, size, info.size - size)
    let text = buffer.toString('utf8')
    // A read from the middle drops its first, partial line.
    if (info.size > size) text = text.slice(text.indexOf('\n') + 1)
    return parseLog(text).slice(-count).reverse()
  } finally {
    closeSync(fd)
  }
}

/** Entries as the model and the CLI read them. */
export function renderLog(entries: LogEntry[]): string {
  if (!entries.length) return 'The operation log is empty (knowledge_log records an operation when it is done).'
  return [
    `The last ${entries.length} operation(s), newest first:`,
    ...entries.map((e) => `- ${e.at.slice(0, 16).replace('T', ' ')} ${e.operation}: ${e.what}${e.pages.length ? ` (${e.pages.join(', ')})` : ''}`),
  ].join('\n')
}
