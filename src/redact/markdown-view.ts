/**
 * The text a reader sees through Markdown's backslash escapes. An HTML → Markdown converter (and a model writing
 * Markdown) escapes punctuation: `API_KEY=…` becomes `API\_KEY=…`, which no rule keyed on a name matches, yet every
 * reader — a person's renderer, the model — reads `API_KEY`. The rules therefore also run over this view, and what
 * they find is mapped back onto the text as written; a span only ever adds masking.
 * @module dsh-knowledge-sync/redact/markdown-view
 */
import type { Span } from './scan.js'

// CommonMark: a backslash before any ASCII punctuation character is an escape.
const ESCAPE = /\\[!-/:-@[-`{-~]/

/** The unescaped view of `text` and how to map its spans back, or undefined when `text` has no escape. */
export function markdownView(text: string): { view: string; back(spans: Span[]): Span[] } | undefined {
  if (!ESCAPE.test(text)) return undefined
  const parts: string[] = []
  // at[k]: the index in `text` of the view's k-th character.
  const at = new Uint32Array(text.length)
  let k = 0
  let from = 0
  for (let i = text.indexOf('\\'); i >= 0 && i < text.length - 1; i = text.indexOf('\\', i + 1)) {
    if (!isPunctuation(text.charCodeAt(i + 1))) continue
    parts.push(text.slice(from, i))
    for (let j = from; j < i; j++) at[k++] = j
    i++ // the escaped character is kept; it cannot start another escape
    parts.push(text[i])
    at[k++] = i
    from = i + 1
  }
  parts.push(text.slice(from))
  for (let j = from; j < text.length; j++) at[k++] = j
  return {
    view: parts.join(''),
    back: (spans) => spans.filter((s) => s.end > s.start && s.end <= k).map((s) => ({ ...s, start: at[s.start], end: at[s.end - 1] + 1 })),
  }
}

function isPunctuation(code: number): boolean {
  return (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)
}
