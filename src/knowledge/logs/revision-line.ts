/**
 * One line of the revision log: `<id> <hash>[ <time>]`, read as a string (the pattern) or, for the plain-ASCII lines
 * the store writes, in place on the bytes of a read. Both accept exactly the same lines: revisions-fold.spec.ts folds
 * generated valid and malformed lines each way.
 * @module dsh-knowledge-sync/knowledge/logs/revision-line
 */

/** An id (a wiki page's holds one `/` after its type, see ID_PATTERN), its text's hash, when. */
export const LINE = /^((?:[a-z][a-z0-9-]{0,31}\/)?[A-Za-z0-9][A-Za-z0-9_.-]{0,127}) ([0-9a-f]{16})(?: (\S+))?$/

/** A line read in place: its id and hash (fresh strings, never views of the read) and where its time is (empty: none). */
export interface AsciiLine {
  id: string
  hash: string
  atStart: number
  atEnd: number
}

/**
 * Reads the ASCII line `bytes[start, end)` into `into` as {@link LINE} would after a trim; false when LINE would not
 * match. `into` is the caller's, reused from line to line: a 100k-document log is read without an object per line.
 */
export function readAsciiLine(bytes: Buffer, start: number, end: number, into: AsciiLine): boolean {
  while (start < end && isSpace(bytes[start])) start++
  while (end > start && isSpace(bytes[end - 1])) end--
  const space = bytes.indexOf(32, start)
  if (space < 0 || space >= end || !isId(bytes, start, space)) return false
  const hashEnd = space + 17
  if (hashEnd > end || !isHash(bytes, space + 1, hashEnd)) return false
  if (hashEnd < end) {
    if (bytes[hashEnd] !== 32 || hashEnd + 1 === end) return false
    for (let k = hashEnd + 1; k < end; k++) if (isSpace(bytes[k])) return false
  }
  into.id = bytes.toString('latin1', start, space)
  into.hash = bytes.toString('latin1', space + 1, hashEnd)
  into.atStart = hashEnd < end ? hashEnd + 1 : end
  into.atEnd = end
  return true
}

/**
 * The revisions of `ids` in the first `size` bytes of a log, found by searching for each id rather than folding every
 * line: the same lines count as when folding (an unterminated tail is not a line yet; one longer than `maxLine` is
 * noise). An id absent from the log is absent from the map.
 */
export function revisionsIn(log: Buffer, size: number, ids: readonly string[], maxLine: number): Map<string, number> {
  const found = new Map<string, number>()
  for (const id of ids) {
    const needle = Buffer.from(`${id} `)
    let n = 0
    let last = ''
    for (let at = log.indexOf(needle, 0); at >= 0 && at < size; ) {
      const start = at === 0 ? 0 : log.lastIndexOf(10, at - 1) + 1
      const end = log.indexOf(10, at)
      if (end < 0 || end >= size) break
      const match = end - start <= maxLine ? LINE.exec(log.toString('utf8', start, end).trim()) : null
      if (match && match[1] === id && match[2] !== last) {
        n++
        last = match[2]
      }
      at = log.indexOf(needle, end)
    }
    if (n) found.set(id, n)
  }
  return found
}

/** Whitespace as `String.prototype.trim` and `\S` see it, within ASCII: tab, newline, vertical tab, form feed, CR, space. */
function isSpace(b: number): boolean {
  return b === 32 || (b >= 9 && b <= 13)
}

const isLower = (b: number): boolean => b >= 97 && b <= 122
const isDigit = (b: number): boolean => b >= 48 && b <= 57
const isAlnum = (b: number): boolean => isLower(b) || isDigit(b) || (b >= 65 && b <= 90)

/** LINE's id, on bytes: `(?:[a-z][a-z0-9-]{0,31}\/)?[A-Za-z0-9][A-Za-z0-9_.-]{0,127}`. */
function isId(bytes: Buffer, start: number, end: number): boolean {
  let from = start
  let slash = start
  while (slash < end && bytes[slash] !== 47) slash++
  if (slash < end) {
    // A type prefix: 1-32 characters, a lowercase letter first, then lowercase letters, digits and hyphens.
    if (slash - start > 32 || !isLower(bytes[start])) return false
    for (let k = start + 1; k < slash; k++) if (!isLower(bytes[k]) && !isDigit(bytes[k]) && bytes[k] !== 45) return false
    from = slash + 1
  }
  if (end - from < 1 || end - from > 128 || !isAlnum(bytes[from])) return false
  for (let k = from + 1; k < end; k++) {
    const b = bytes[k]
    if (!isAlnum(b) && b !== 95 && b !== 46 && b !== 45) return false
  }
  return true
}

/** LINE's hash: 16 lowercase hexadecimal digits. */
function isHash(bytes: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (!isDigit(bytes[k]) && !(bytes[k] >= 97 && bytes[k] <= 102)) return false
  return true
}
