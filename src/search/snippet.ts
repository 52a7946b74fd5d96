/**
 * A short excerpt of a document around where the query matches best. Pure: no I/O.
 *
 * The text is cleaned first ({@link plainBody}: no status notice, comments or link targets; then fences, heading and
 * quote marks, `**`, `__` and backticks removed, whitespace collapsed: plain text, so a `*` in a glob stays a `*`),
 * then every place a query token occurs is located with the tokenizer's own rules (so `ERR_PNPM_FETCH_404` is found
 * by `pnpm`, `running` by `run`, `依赖` inside `安装依赖失败`). The window of about `width` characters holding the most
 * distinct query tokens wins; its edges move to word boundaries (never inside a surrogate pair). {@link snippetParts}
 * returns that text with the matches as offsets (the page draws them as highlight spans); {@link snippet} wraps each
 * match in `**…**`, the convention knowledge_search states to the model and the CLI reads. The cleaned text holds no
 * `**` of its own, so the marks are the only ones.
 * @module dsh-knowledge-sync/search/snippet
 */
import { plainBody } from './plain-text.js'
import { SCAN_SOURCE, stem } from './tokenize.js'

/** Snippet shape; defaults: 200 characters, `**` marks, `…` where the text was cut. */
export interface SnippetOptions {
  width?: number
  open?: string
  close?: string
  ellipsis?: string
}

/** One located match in the cleaned text: [start, end) in UTF-16 units, and which query token it was. */
export interface SnippetMatch {
  start: number
  end: number
  key: string
}

const SCAN = new RegExp(SCAN_SOURCE, 'gu')
const CONNECTORS = /[.\-/@:#+]/g
const PLAIN_WORD = /^(?:[a-z]+|[A-Z][a-z]*|[A-Z]+|[0-9]+)$/
/** Lowercase without diacritics, as FTS5's `remove_diacritics` sees it. */
const fold = (s: string): string => (/[^\x00-\x7f]/.test(s) ? s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : s).toLowerCase()
const SUB_WORDS = /[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[^\s._\-/@:#+A-Za-z0-9]+/g

/** Stems of words seen in recent snippets: the same vocabulary recurs across hits, and stemming is regex work. */
const stemCache = new Map<string, string>()
function stemOf(word: string): string {
  let s = stemCache.get(word)
  if (s === undefined) {
    if (stemCache.size > 50_000) stemCache.clear()
    s = stem(word)
    stemCache.set(word, s)
  }
  return s
}

/** Strips Markdown that would read as noise in one line (or clash with the `**` marks) and collapses whitespace. */
export function cleanText(text: string): string {
  return plainBody(text)
    .replace(/^[ \t]*(?:```|~~~)[^\n]*$/gm, ' ')
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, '')
    .replace(/^[ \t]{0,3}(?:>[ \t]?)+/gm, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Index of the first code unit at or after `i` that does not split a surrogate pair. */
function safeStart(text: string, i: number): number {
  if (i > 0 && i < text.length && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) return i + 1
  return i
}
/** Index at or before `i` that does not split a surrogate pair (as an exclusive end). */
function safeEnd(text: string, i: number): number {
  if (i > 0 && i < text.length && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) return i - 1
  return i
}
const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/**
 * Finds every occurrence of the query tokens in an already-cleaned text. A Latin token matches a word (or a part
 * or whole of an identifier) with the same Porter stem; a CJK token matches as a substring of a CJK run.
 */
export function findMatches(text: string, tokens: readonly string[]): SnippetMatch[] {
  const stems = new Map<string, string>()
  const cjk: string[] = []
  for (const t of tokens) {
    if (!t) continue
    if (/^[\u3005-\u3007\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uAC00-\uD7AF\u1100-\u11FF\uD840-\uDBFF]/.test(t)) cjk.push(t)
    else stems.set(stem(fold(t)), t)
  }
  const out: SnippetMatch[] = []
  for (const t of cjk) {
    for (let at = text.indexOf(t); at >= 0; at = text.indexOf(t, at + 1)) out.push({ start: at, end: at + t.length, key: t })
  }
  if (stems.size) {
    // Porter only rewrites suffixes, so a word can match only if its first two letters start some query stem: most
    // words are rejected by this set lookup without being stemmed.
    const heads = new Set([...stems.keys()].map((k) => k.slice(0, 2)))
    const lookup = (folded: string): string | undefined => (heads.has(folded.slice(0, 2)) ? stems.get(stemOf(folded)) : undefined)
    const lower = text.toLowerCase()
    const ascii = [...stems.keys()].every((k) => /^[\x00-\x7f]*$/.test(k))
    if (ascii && lower.length === text.length) {
      // Fast path: find where a stem's head occurs (a stem minus its last letters is a prefix of the word it came
      // from) and examine only the compounds around those places, instead of tokenizing the whole body.
      const probes = new Set<string>()
      for (const k of stems.keys()) {
        const head = k.split('_')[0] || k
        probes.add(head.length <= 3 ? head : head.slice(0, Math.max(3, head.length - 2)))
      }
      const seen = new Set<number>()
      for (const probe of probes) {
        for (let at = lower.indexOf(probe); at >= 0; at = lower.indexOf(probe, at + 1)) {
          const [start, end] = compoundAround(text, at, at + probe.length)
          if (start < 0 || seen.has(start)) continue
          seen.add(start)
          matchCompound(text.slice(start, end), start, lookup, out)
        }
      }
    } else {
      SCAN.lastIndex = 0
      let m: RegExpExecArray | null
      while ((m = SCAN.exec(text)) !== null) if (m[2] !== undefined) matchCompound(m[2], m.index, lookup, out)
    }
  }
  return out.sort((a, b) => a.start - b.start || b.end - a.end)
}

const isWordCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (c >= 0xc0 && c < 0x2000 && c !== 0xd7 && c !== 0xf7)
const isConnectorCode = (c: number): boolean => c === 46 || c === 45 || c === 47 || c === 64 || c === 58 || c === 35 || c === 43

/**
 * The compound (word characters, joined by connectors that sit between word characters) that covers [from, to), as
 * the tokenizer's scan would cut it; [-1, -1] when the probe does not start at a word character.
 */
function compoundAround(text: string, from: number, to: number): [number, number] {
  if (!isWordCode(text.charCodeAt(from))) return [-1, -1]
  let s = from
  for (;;) {
    if (s > 0 && isWordCode(text.charCodeAt(s - 1))) s--
    else if (s > 1 && isConnectorCode(text.charCodeAt(s - 1)) && isWordCode(text.charCodeAt(s - 2))) s -= 2
    else break
  }
  let e = to
  for (;;) {
    if (e < text.length && isWordCode(text.charCodeAt(e))) e++
    else if (e + 1 < text.length && isConnectorCode(text.charCodeAt(e)) && isWordCode(text.charCodeAt(e + 1))) e += 2
    else break
  }
  return [s, e]
}

/** Marks a compound whole when the query named it (`ERR_PNPM_FETCH_404`), else each of its matching parts. */
function matchCompound(word: string, offset: number, lookup: (folded: string) => string | undefined, out: SnippetMatch[]): void {
  const wholeKey = lookup(fold(word).replace(CONNECTORS, '_'))
  if (wholeKey !== undefined) {
    out.push({ start: offset, end: offset + word.length, key: wholeKey })
    return
  }
  if (PLAIN_WORD.test(word)) return
  SUB_WORDS.lastIndex = 0
  let p: RegExpExecArray | null
  while ((p = SUB_WORDS.exec(word)) !== null) {
    const key = lookup(fold(p[0]))
    if (key !== undefined) out.push({ start: offset + p.index, end: offset + p.index + p[0].length, key })
  }
}

/** A snippet as plain text and where its matches are: [start, end) offsets into `text`, in order, never overlapping. */
export interface SnippetParts {
  text: string
  marks: Array<[number, number]>
}

/**
 * The best window of `text` for the query `tokens`, with matches marked. When nothing matches (or no tokens are
 * given) the start of the text is returned. Never longer than `width` plus marks and ellipses.
 */
export function snippet(text: string, tokens: readonly string[], options: SnippetOptions = {}): string {
  return markSnippet(snippetParts(text, tokens, options), options.open ?? '**', options.close ?? '**')
}

/** The parts' text with each match wrapped in `open`…`close`. */
export function markSnippet(parts: SnippetParts, open = '**', close = '**'): string {
  let out = ''
  let at = 0
  for (const [s, e] of parts.marks) {
    out += parts.text.slice(at, s) + open + parts.text.slice(s, e) + close
    at = e
  }
  return out + parts.text.slice(at)
}

/** The best window as plain text and match offsets (see {@link snippet}). */
export function snippetParts(text: string, tokens: readonly string[], options: SnippetOptions = {}): SnippetParts {
  const width = Math.max(20, options.width ?? 200)
  const ellipsis = options.ellipsis ?? '…'
  const clean = cleanText(text)
  if (!clean) return { text: '', marks: [] }
  const matches = dropOverlaps(findMatches(clean, tokens))
  let start = 0
  let end = Math.min(clean.length, width)
  if (matches.length) {
    // Two pointers over matches: the window with the most distinct tokens, then the most matches, then the earliest.
    let best = { i: 0, j: 0, distinct: 0, count: 0 }
    const counts = new Map<string, number>()
    let j = 0
    for (let i = 0; i < matches.length; i++) {
      while (j < matches.length && matches[j].end - matches[i].start <= width) {
        counts.set(matches[j].key, (counts.get(matches[j].key) ?? 0) + 1)
        j++
      }
      const distinct = counts.size
      const count = j - i
      if (distinct > best.distinct || (distinct === best.distinct && count > best.count)) best = { i, j: j - 1, distinct, count }
      const k = matches[i].key
      const left = (counts.get(k) ?? 1) - 1
      if (left) counts.set(k, left)
      else counts.delete(k)
      if (j === i) j = i + 1
    }
    const first = matches[best.i].start
    const last = matches[Math.max(best.i, best.j)].end
    // Centre the matched span, with a little more context before it than after when it is short.
    const slack = Math.max(0, width - (last - first))
    start = Math.max(0, first - Math.floor(slack * 0.4))
    end = Math.min(clean.length, start + width)
    start = Math.max(0, end - width)
  }
  // Word boundaries: move inward to a space when one is near, never across a match.
  const firstMatch = matches.find((m) => m.start >= start)?.start ?? end
  if (start > 0) {
    const sp = clean.indexOf(' ', start)
    if (sp >= 0 && sp < firstMatch && sp - start <= 25) start = sp + 1
  }
  const lastMatch = [...matches].reverse().find((m) => m.end <= end)?.end ?? start
  if (end < clean.length) {
    const sp = clean.lastIndexOf(' ', end)
    if (sp > lastMatch && end - sp <= 25) end = sp
  }
  start = safeStart(clean, start)
  end = safeEnd(clean, end)
  // Trim the window's blanks (a match never starts or ends with one), then offsets relative to the output.
  while (start < end && clean[start] === ' ') start++
  while (end > start && clean[end - 1] === ' ') end--
  const lead = start > 0 ? ellipsis : ''
  const marks: Array<[number, number]> = []
  for (const m of matches) if (m.start >= start && m.end <= end) marks.push([m.start - start + lead.length, m.end - start + lead.length])
  return { text: lead + clean.slice(start, end) + (end < clean.length ? ellipsis : ''), marks }
}

/** Keeps the first (longest) of overlapping matches so marks never nest. */
function dropOverlaps(matches: SnippetMatch[]): SnippetMatch[] {
  const out: SnippetMatch[] = []
  let reach = -1
  for (const m of matches) {
    if (m.start < reach) {
      // Overlapping CJK bigrams (`安装` + `装依`) merge into one mark.
      const prev = out[out.length - 1]
      if (prev && m.end > prev.end && m.start < prev.end) {
        prev.end = m.end
        reach = m.end
      }
      continue
    }
    out.push({ ...m })
    reach = m.end
  }
  return out
}
