/**
 * Masking spans of a text: merging the spans the rules found and replacing them by the mask. Kept apart from the rules
 * (./redactor.ts), so that a module that only applies spans (./fields.ts, loaded by every store) does not load them:
 * a reading command (`dsh-knowledge search`) never redacts, and loading the rules was ~15% of its module load.
 * @module dsh-knowledge-sync/redact/spans
 */
import type { Redaction } from '../types.js'
import type { Span } from './scan.js'

/** The default mask text. */
export const DEFAULT_MASK = '[REDACTED]'

/**
 * Merges overlapping spans so every stretch is masked once and counted once; the highest-priority rule names the
 * family of a merged span. Spans that merely touch stay separate (two adjacent secrets count twice).
 */
export function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || b.end - a.end)
  const merged: Span[] = []
  for (const s of sorted) {
    const cur = merged[merged.length - 1]
    if (cur && s.start < cur.end) {
      if (s.end > cur.end) cur.end = s.end
      if (s.priority > cur.priority) {
        cur.family = s.family
        cur.priority = s.priority
      }
    } else {
      merged.push({ ...s })
    }
  }
  return merged
}

/** Replaces merged spans by `mask` and counts them per family. */
export function applySpans(text: string, spans: Span[], mask: string): Redaction {
  const merged = mergeSpans(spans)
  if (merged.length === 0) return { text, count: 0, families: {} }
  const parts: string[] = []
  const families: Record<string, number> = {}
  let at = 0
  for (const s of merged) {
    parts.push(text.slice(at, s.start), mask)
    at = s.end
    families[s.family] = (families[s.family] ?? 0) + 1
  }
  parts.push(text.slice(at))
  return { text: parts.join(''), count: merged.length, families }
}
