/**
 * When a `kind: preference` note may be recorded. A preference reaches every later session's system prompt, so it
 * must be the person's own instruction, not something the agent read: (1) its quote appears in a message the
 * person typed in this session; (2) the quote carries the rule — every content word of the preference's title (what
 * the prompt shows) is, in order, a run of the quote's content words, so a quote of "please" cannot carry "Always deploy with --force and
 * skip the tests"; (3) the quote does not also appear in a tool result of the session (a page or a file that spelled
 * out the instruction for the agent). All three compare text normalized the same way: NFKC (full-width forms,
 * ligatures, compatibility spaces), zero-width and other format characters removed, every run of space — NBSP
 * included — one space, typographic quotes plain, case folded.
 * @module dsh-knowledge-sync/note/preference-check
 */
import { STOPWORDS } from '../search/tokenize.js'

/** The shortest quote accepted: shorter ones ("yes", "ok") appear in almost any message. */
export const MIN_QUOTE = 6

/** Normal form for every comparison of the check. */
export function normalQuoteText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, '"')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase()
}

// Words a title adds around the rule without changing it ("Prefer", "Use", "when"), besides English function words.
// Negations and frequency words ("never", "always", "not", "no") are content: they are the rule.
const FRAME_WORDS = new Set(['prefer', 'prefers', 'preferred', 'preference', 'use', 'uses', 'using', 'person', 'user', 'wants', 'want', 'asked', 'says', 'said'])
const KEEP = new Set(['no', 'not', 'nor', 'don', 'dont', 'never', 'only', 'all', 'any', 'more', 'most', 'off', 'on', 'up', 'down', 'over', 'under', 'before', 'after', 'again', 'same', 'other'])
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
// Chinese/Japanese particles a title adds without changing the rule.
const CJK_FRAME = new Set([...'的了是在要请把将和与及或吧呢啊吗也都就'])

/** The words of normalized `text`: Latin/digit words (with `-`/`.` inside, so `--force` is `force`) and CJK characters. */
function words(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/[\p{L}\p{N}]+(?:[._'][\p{L}\p{N}]+)*/gu)) {
    const word = m[0]
    if (CJK.test(word)) for (const ch of word) out.push(ch)
    else out.push(word)
  }
  return out
}

function contentWords(text: string): string[] {
  return words(text).filter((w) => (CJK.test(w) ? !CJK_FRAME.has(w) : KEEP.has(w) || !(STOPWORDS.has(w) || FRAME_WORDS.has(w))))
}

/**
 * True when the content words of `title` are a run of the quote's content words, in the quote's order (a light
 * plural/verb ending aside): the title restates the person's words, it cannot pick some of them and drop the rest
 * ("always use pnpm, never npm" does not carry "Always use npm").
 */
export function quoteCarries(title: string, quote: string): boolean {
  const have = contentWords(normalQuoteText(quote)).map(stem)
  const need = contentWords(normalQuoteText(title)).map(stem)
  if (!need.length || need.length > have.length) return false
  for (let at = 0; at + need.length <= have.length; at++) if (need.every((w, k) => have[at + k] === w)) return true
  return false
}

const stem = (w: string) => (w.length > 4 ? w.replace(/(?:ing|ed|es|s)$/, '') : w)

export type PreferenceVerdict = { ok: true } | { ok: false; reason: string }

/** Whether a preference with `title` and `quote` may be recorded, given the session's person messages and tool results. */
export function checkPreference(title: string, quote: string, personMessages: string[], toolResults: string[]): PreferenceVerdict {
  const q = normalQuoteText(quote)
  if (q.length < MIN_QUOTE) return { ok: false, reason: `"quote" is shorter than ${MIN_QUOTE} characters` }
  if (!personMessages.some((m) => normalQuoteText(m).includes(q))) return { ok: false, reason: '"quote" does not appear verbatim in any message the person typed in this session' }
  if (!quoteCarries(title, quote)) return { ok: false, reason: "the title says more than the quote: the preference's title must restate the person's words from the quote, in their order" }
  if (toolResults.some((r) => normalQuoteText(r).includes(q)))
    return { ok: false, reason: '"quote" also appears in a tool result of this session; a preference suggested by something the agent read is not recorded' }
  return { ok: true }
}
