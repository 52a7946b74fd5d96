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
import { isStopword, isWordLike } from './allow.js'
import type { Span } from './scan.js'

/** A value a rule masked, and the family of the rule (propagated occurrences count under the same family). */
export interface MaskedValue {
  value: string
  family: string
}

/** Shorter values are not propagated: a 4-character password would mask every word that contains it. */
export const PROPAGATE_MIN_LENGTH = 6

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
    try { out.add(JSON.parse(`"${value}"`) as string) } catch { /* not a JSON string body */ }
  }
  if (/%[0-9A-Fa-f]{2}/.test(value)) {
    try { out.add(decodeURIComponent(value.replace(/\+/g, ' '))) } catch { /* not URL-encoded after all */ }
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
 * One automaton over every variant of a set of masked values. `spans(text)` reports each occurrence (literal forms)
 * and each base64 run that decodes to something containing a value, as {@link Span}s of the value's family.
 */
export class ValueMatcher {
  /** Transitions per state (UTF-16 code unit → state). */
  private readonly next: Array<Map<number, number>> = [new Map()]
  private fail: Int32Array = new Int32Array(1)
  /** Per state: the longest literal pattern ending here (through the failure chain), or -1. */
  private literal: Int32Array = new Int32Array(1)
  /** Per state: a base64-middle pattern ending here, or -1. */
  private encoded: Int32Array = new Int32Array(1)
  private readonly own: Array<{ literal: number; encoded: number }> = [{ literal: -1, encoded: -1 }]
  /** Code units that start some pattern: state 0 skips every other character in one test. */
  private readonly starts = new Uint8Array(65536)
  /** Every pattern: its length, the value it stands for, and (base64 middles) the bytes a decoded run must hold. */
  private readonly patterns: Array<{ length: number; value: number; needle?: string }> = []
  private readonly values: MaskedValue[] = []

  constructor(values: Iterable<MaskedValue>, mask = '') {
    const seen = new Set<string>()
    for (const v of values) {
      if (seen.has(v.value) || !propagatable(v.value, mask)) continue
      seen.add(v.value)
      const index = this.values.push(v) - 1
      for (const form of variantsOf(v.value)) {
        this.add(form, index, 'literal')
        // base64 of a decoded form (a value found JSON-escaped travels base64-encoded unescaped).
        const needle = Buffer.from(form, 'utf8').toString('latin1')
        for (const middle of base64Middles(form)) this.add(middle, index, 'encoded', needle)
      }
    }
    this.build()
  }

  /** Number of distinct values propagated. */
  get size(): number { return this.values.length }

  private add(pattern: string, value: number, kind: 'literal' | 'encoded', needle?: string): void {
    let state = 0
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern.charCodeAt(i)
      let to = this.next[state].get(c)
      if (to === undefined) {
        to = this.next.push(new Map()) - 1
        this.own.push({ literal: -1, encoded: -1 })
        this.next[state].set(c, to)
      }
      state = to
    }
    this.starts[pattern.charCodeAt(0)] = 1
    const id = this.patterns.push({ length: pattern.length, value, needle }) - 1
    const slot = this.own[state]
    if (kind === 'literal') { if (slot.literal < 0) slot.literal = id } else if (slot.encoded < 0) slot.encoded = id
  }

  /** Breadth-first failure links; each state inherits the longest output of its failure state when it has none. */
  private build(): void {
    const n = this.next.length
    this.fail = new Int32Array(n)
    this.literal = new Int32Array(n).fill(-1)
    this.encoded = new Int32Array(n).fill(-1)
    const queue: number[] = []
    for (const to of this.next[0].values()) queue.push(to)
    for (const s of queue) { this.literal[s] = this.own[s].literal; this.encoded[s] = this.own[s].encoded }
    for (let head = 0; head < queue.length; head++) {
      const s = queue[head]
      for (const [c, to] of this.next[s]) {
        let f = this.fail[s]
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f]
        const target = this.next[f].get(c)
        this.fail[to] = target !== undefined && target !== to ? target : 0
        this.literal[to] = this.own[to].literal >= 0 ? this.own[to].literal : this.literal[this.fail[to]]
        this.encoded[to] = this.own[to].encoded >= 0 ? this.own[to].encoded : this.encoded[this.fail[to]]
        queue.push(to)
      }
    }
  }

  /** Every occurrence of a value (any variant) in `text`, and every base64 run that carries one. */
  spans(text: string): Span[] {
    const out: Span[] = []
    if (this.values.length === 0) return out
    const hits: Array<{ end: number; pattern: number }> = []
    const { next, fail, literal, encoded, starts, patterns } = this
    let state = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (state === 0 && starts[c] === 0) continue
      let to = next[state].get(c)
      while (to === undefined && state !== 0) { state = fail[state]; to = next[state].get(c) }
      state = to ?? 0
      const lit = literal[state]
      if (lit >= 0) {
        const p = patterns[lit]
        out.push({ start: i + 1 - p.length, end: i + 1, family: this.values[p.value].family, priority: REPEAT_PRIORITY })
      }
      if (encoded[state] >= 0) hits.push({ end: i + 1, pattern: encoded[state] })
    }
    let covered = -1
    for (const hit of hits) {
      if (hit.end <= covered) continue
      const p = patterns[hit.pattern]
      let start = hit.end - p.length
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

/** Spans masking every further occurrence of `values` in `text` (one scan). */
export function propagationSpans(text: string, values: Iterable<MaskedValue>, mask = ''): Span[] {
  return new ValueMatcher(values, mask).spans(text)
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
