/**
 * Propagation: once a rule has identified a value as secret, every other occurrence of that exact value is masked
 * too, in the same text and in every other field of the same document (question, answer, tool arguments, failure
 * excerpts, title, tags, distill input and output), together with the encodings that travel with it: JSON-escaped
 * (once and twice), URL-encoded, and base64 of anything that contains it (`user:value` in a Basic header, a
 * base64-encoded `.env` line). A rule sees context; propagation sees the value, so `DB_PASSWORD=X` on one line masks
 * the bare `X` in a shell comment three lines later.
 *
 * One extra pass, never quadratic: every variant of every masked value goes into one Aho–Corasick automaton, and a
 * text is scanned once, in time linear in its length (plus the matches). Base64 is found the same way: the base64 of
 * a value at each of the three byte alignments has a fixed middle part, whatever surrounds the value; those middles
 * are patterns too, and a hit is confirmed by decoding the base64 run around it. Pure, no I/O.
 * @module dsh-knowledge-sync/redact/propagate
 */
import { isStopword, isWordLike, shannon } from './allow.js'
import type { Span } from './scan.js'

/** A value a rule masked, and the family of the rule (propagated occurrences count under the same family). */
export interface MaskedValue {
  value: string
  family: string
}

/** Shorter values are not propagated: a 4-character password would mask every word that contains it. */
export const PROPAGATE_MIN_LENGTH = 6

/**
 * At most this many distinct values are propagated per text or document (the automaton costs about a microsecond per
 * character of pattern to build): a round with more keeps each masked where a rule found it.
 */
export const MAX_VALUES = 4000

/** Below every rule's priority: a propagated occurrence never renames the family of a rule's span it overlaps. */
const REPEAT_PRIORITY = 5

/**
 * Whether masking every occurrence of `value` is safe for the rest of the text: long enough, not the mask, and not a
 * plain word or small number (`POSTGRES_PASSWORD=postgres` must not mask every later mention of postgres).
 */
export function propagatable(value: string, mask: string): boolean {
  if (value.length < PROPAGATE_MIN_LENGTH) return false
  if (mask && (value.includes(mask) || mask.includes(value))) return false
  if (/^\s|\s$/.test(value)) return false
  if (/^[A-Za-z]+$/.test(value) && (isWordLike(value) || isStopword(value))) return false
  if (/^[0-9]{1,7}$/.test(value)) return false
  // A value made of a few repeated characters (`aaaaaab`, `abcabc…`) is no generated secret, and would make every
  // stretch of repeats a near-miss to confirm.
  if (shannon(value.slice(0, 64)) < 2.5) return false
  return true
}

/** The forms of `value` that commonly travel with it: itself, JSON-escaped (once, twice), URL-encoded, and decoded. */
export function variantsOf(value: string): string[] {
  const out = new Set<string>([value])
  const json = JSON.stringify(value).slice(1, -1)
  out.add(json)
  out.add(JSON.stringify(json).slice(1, -1))
  try {
    const url = encodeURIComponent(value)
    out.add(url)
    out.add(url.replace(/%20/g, '+'))
  } catch {
    // a lone surrogate cannot be URL-encoded; nothing to add
  }
  if (value.includes('\\')) {
    try {
      out.add(JSON.parse(`"${value}"`) as string)
    } catch {
      /* not a JSON string body */
    }
  }
  if (/%[0-9A-Fa-f]{2}/.test(value)) {
    try {
      out.add(decodeURIComponent(value.replace(/\+/g, ' ')))
    } catch {
      /* not URL-encoded after all */
    }
  }
  return [...out].filter((v) => v.length >= PROPAGATE_MIN_LENGTH)
}

/**
 * The parts of base64(… value …) that do not depend on what surrounds the value, for each of the three alignments,
 * in the standard and the URL-safe alphabet. Only middles of 8+ characters (48 bits of the value) are kept.
 */
export function base64Middles(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const out = new Set<string>()
  for (let pad = 0; pad < 3; pad++) {
    const b64 = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64')
    const middle = b64.slice(Math.ceil((8 * pad) / 6), Math.floor((8 * (pad + bytes.length)) / 6))
    if (middle.length >= 8) {
      out.add(middle)
      out.add(middle.replace(/\+/g, '-').replace(/\//g, '_'))
    }
  }
  return [...out]
}

const B64_CHAR = new Uint8Array(128)
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') B64_CHAR[c.charCodeAt(0)] = 1
const isB64 = (code: number) => code < 128 && B64_CHAR[code] === 1

/**
 * Only this much of each pattern goes into the automaton; a hit on it is confirmed against the whole pattern. Keeps
 * the automaton small (a PEM block is 3 KB) without changing what matches.
 */
const ANCHOR = 32
/** A base64 hit is confirmed by decoding its run anyway: 16 characters (96 bits of the value) find it. */
const ANCHOR_B64 = 16

/** One pattern: a literal form of a value, or a base64 middle of one (then `needle` is what a decoded run must hold). */
interface Pattern {
  full: string
  anchor: number
  value: number
  needle?: string
}

/**
 * One automaton over every variant of a set of masked values. `spans(text)` reports each occurrence (literal forms)
 * and each base64 run that decodes to something containing a value, as {@link Span}s of the value's family.
 */
export class ValueMatcher {
  private readonly values: MaskedValue[] = []
  private readonly patterns: Pattern[] = []
  // The automaton: most states have one child (a chain), so that is stored flat; states with more get a Map.
  private readonly oneChar: number[] = [-1]
  private readonly oneNext: number[] = [0]
  private readonly many: Array<Map<number, number> | undefined> = [undefined]
  /** Patterns whose anchor ends at each state. */
  private readonly ends: Array<number[] | undefined> = [undefined]
  private fail: Int32Array = new Int32Array(1)
  /** Nearest state on the failure chain (not itself) where some anchor ends; 0 when none. */
  private outLink: Int32Array = new Int32Array(1)
  /** The root's transitions, dense: the state most characters pass through costs one array read. */
  private readonly root = new Int32Array(65536)
  /** ASCII pairs that start some pattern: at the root, a character whose pair with the next starts none is skipped. */
  private readonly pairs = new Uint8Array(128 * 128)
  private chars = new Int32Array(0)
  private nexts = new Int32Array(0)

  constructor(values: Iterable<MaskedValue>, mask = '') {
    const seen = new Set<string>()
    for (const v of values) {
      if (this.values.length >= MAX_VALUES) break
      if (seen.has(v.value) || !propagatable(v.value, mask)) continue
      seen.add(v.value)
      const index = this.values.push(v) - 1
      const forms = variantsOf(v.value)
      for (const form of forms) this.add({ full: form, anchor: Math.min(form.length, ANCHOR), value: index })
      // base64 of the decoded forms (a value found JSON-escaped travels base64-encoded unescaped).
      for (const form of forms.filter((f) => f === v.value || (!v.value.includes(f) && f.length <= v.value.length))) {
        const needle = Buffer.from(form, 'utf8').toString('latin1')
        for (const middle of base64Middles(form)) this.add({ full: middle, anchor: Math.min(middle.length, ANCHOR_B64), value: index, needle })
      }
    }
    this.build()
  }

  /** Number of distinct values propagated. */
  get size(): number {
    return this.values.length
  }

  private step(state: number, c: number): number | undefined {
    if (this.oneChar[state] === c) return this.oneNext[state]
    return this.many[state]?.get(c)
  }

  private add(pattern: Pattern): void {
    const { oneChar, oneNext, many, ends } = this
    let state = 0
    for (let i = 0; i < pattern.anchor; i++) {
      const c = pattern.full.charCodeAt(i)
      let to = oneChar[state] === c ? oneNext[state] : many[state]?.get(c)
      if (to === undefined) {
        to = oneChar.length
        oneChar.push(-1)
        oneNext.push(0)
        many.push(undefined)
        ends.push(undefined)
        if (oneChar[state] === -1 && many[state] === undefined) {
          oneChar[state] = c
          oneNext[state] = to
        } else (many[state] ??= new Map()).set(c, to)
      }
      state = to
    }
    const id = this.patterns.push(pattern) - 1
    ;(ends[state] ??= []).push(id)
    const a = pattern.full.charCodeAt(0),
      b = pattern.full.charCodeAt(1)
    if (a < 128 && b < 128) this.pairs[a * 128 + b] = 1
    else this.pairs.fill(1) // a non-ASCII start: no skipping (rare; values are mostly ASCII)
  }

  /** The failure state of child `to` (reached from `s` on `c`), and its output link. */
  private link(s: number, c: number, to: number): void {
    let f = this.fail[s]
    let target = f === 0 ? this.root[c] : this.step(f, c)
    while (target === undefined && f !== 0) {
      f = this.fail[f]
      target = f === 0 ? this.root[c] : this.step(f, c)
    }
    const g = target && target !== to ? target : 0
    this.fail[to] = g
    this.outLink[to] = this.ends[g] ? g : this.outLink[g]
  }

  /** Breadth-first failure and output links. */
  private build(): void {
    const n = this.oneChar.length
    this.fail = new Int32Array(n)
    this.outLink = new Int32Array(n)
    const queue = new Int32Array(n)
    let tail = 0
    if (this.oneChar[0] !== -1) {
      this.root[this.oneChar[0]] = this.oneNext[0]
      queue[tail++] = this.oneNext[0]
    }
    for (const [c, to] of this.many[0] ?? []) {
      this.root[c] = to
      queue[tail++] = to
    }
    for (let head = 0; head < tail; head++) {
      const s = queue[head]
      if (this.oneChar[s] !== -1) {
        this.link(s, this.oneChar[s], this.oneNext[s])
        queue[tail++] = this.oneNext[s]
      }
      const more = this.many[s]
      if (more)
        for (const [c, to] of more) {
          this.link(s, c, to)
          queue[tail++] = to
        }
    }
    this.chars = Int32Array.from(this.oneChar)
    this.nexts = Int32Array.from(this.oneNext)
  }

  /** Every occurrence of a value (any variant) in `text`, and every base64 run that carries one. */
  spans(text: string): Span[] {
    const out: Span[] = []
    if (this.values.length === 0) return out
    const encodedHits: Array<{ end: number; pattern: number }> = []
    const { root, fail, ends, outLink, patterns, pairs, chars, nexts, many } = this
    const last = text.length - 1
    // Confirming a hit compares the rest of its pattern; past this budget an anchor hit is masked unconfirmed, so a
    // crafted text of near-misses stays linear (over-masking is the safe side).
    let budget = 8 * text.length + 1_000_000
    let state = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (state === 0) {
        // Every pattern is 6+ characters: no match starts at i unless text[i..i+1] starts one.
        if (c < 128 && i < last) {
          const d = text.charCodeAt(i + 1)
          if (d < 128 && pairs[c * 128 + d] === 0) continue
        }
        state = root[c]
        if (state === 0) continue
      } else {
        let to = chars[state] === c ? nexts[state] : many[state]?.get(c)
        while (to === undefined) {
          state = fail[state]
          if (state === 0) {
            to = root[c]
            break
          }
          to = chars[state] === c ? nexts[state] : many[state]?.get(c)
        }
        state = to
        if (state === 0) continue
      }
      for (let t = ends[state] ? state : outLink[state]; t !== 0; t = outLink[t]) {
        for (const id of ends[t]!) {
          const p = patterns[id]
          const start = i + 1 - p.anchor
          if (p.needle !== undefined) {
            encodedHits.push({ end: i + 1, pattern: id })
            continue
          }
          let end = start + p.full.length
          if (p.full.length > p.anchor) {
            if (budget > 0) {
              budget -= p.full.length
              if (!text.startsWith(p.full, start)) continue
            } else end = Math.min(text.length, end) // unconfirmed: mask the whole length it would have
          }
          out.push({ start, end, family: this.values[p.value].family, priority: REPEAT_PRIORITY })
        }
      }
    }
    let covered = -1
    for (const hit of encodedHits) {
      if (hit.end <= covered) continue
      const p = patterns[hit.pattern]
      let start = hit.end - p.anchor
      let end = hit.end
      while (start > 0 && isB64(text.charCodeAt(start - 1))) start--
      while (end < text.length && isB64(text.charCodeAt(end))) end++
      for (let pad = 0; pad < 2 && end < text.length && text.charCodeAt(end) === 61; pad++) end++ // `=` padding
      covered = end
      if (carries(text.slice(start, end), p.needle!)) out.push({ start, end, family: this.values[p.value].family, priority: REPEAT_PRIORITY })
    }
    return out
  }
}

/** Whether the base64 run decodes (from one of its first four characters) to bytes that contain `needle`. */
function carries(run: string, needle: string): boolean {
  for (let offset = 0; offset < 4 && offset < run.length; offset++) {
    if (Buffer.from(run.slice(offset), 'base64').toString('latin1').includes(needle)) return true
  }
  return false
}

/** The distinct masked values of `text` under merged `spans` (what propagation looks for elsewhere). */
export function maskedValues(text: string, spans: readonly Span[]): MaskedValue[] {
  const seen = new Map<string, MaskedValue>()
  for (const s of spans) {
    const value = text.slice(s.start, s.end)
    if (!seen.has(value)) seen.set(value, { value, family: s.family })
  }
  return [...seen.values()]
}
