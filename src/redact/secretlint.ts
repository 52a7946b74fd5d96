/**
 * The secretlint backstop: runs `@secretlint/core` with `@secretlint/secretlint-rule-preset-recommend` (minus its
 * comment-filter rule, so a `secretlint-disable` comment in a model's output cannot switch detection off) over the
 * text in bounded chunks with a time budget, and turns its findings into spans of just the secret value. The own
 * rules already cover every preset rule, so this only adds spans when the preset learns something new.
 *
 * secretlint's profiler (`@secretlint/profiler`, one instance per process, on by default) marks every rule of every
 * call on the global performance timeline and keeps each mark, measure and promise in its own arrays for ever: about
 * 280 entries (tens of KB) per redaction, without end in a process that runs for days. This module never reads the
 * profile, so it switches the profiler off when it loads, before its first lint (issue 24).
 * @module dsh-knowledge-sync/redact/secretlint
 */
import { lintSource } from '@secretlint/core'
import { secretLintProfiler } from '@secretlint/profiler'
import { rules as recommendRules } from '@secretlint/secretlint-rule-preset-recommend'
import { PRIORITY, type Span } from './scan.js'
import { cpuMs } from './cpu-clock.js'

type LintConfig = Parameters<typeof lintSource>[0]['options']['config']
type LintMessage = Awaited<ReturnType<typeof lintSource>>['messages'][number]

secretLintProfiler.setEnabled(false)

const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments'
const CONFIG: LintConfig = {
  rules: recommendRules.filter((rule) => rule.meta.id !== FILTER_COMMENTS).map((rule) => ({ id: rule.meta.id, rule, options: {} })) as LintConfig['rules'],
}

/** secretlint rule id suffix → family name used by this engine. */
const FAMILY: Record<string, string> = {
  aws: 'aws',
  gcp: 'gcp-service-account',
  privatekey: 'private-key',
  basicauth: 'url-password',
  'database-connection-string': 'url-password',
  'hashicorp-vault': 'vault',
}

/** Chunk size and overlap: the overlap exceeds the preset's longest bounded match (a 10,000-char PEM body). */
export const SECRETLINT_CHUNK = 256 * 1024
const OVERLAP = 16 * 1024

/** Outcome of one backstop run. `complete` is false when the time budget ran out before the last chunk. */
export interface BackstopResult {
  spans: Span[]
  complete: boolean
  ms: number
}

/** Default budget: 2-4x secretlint's 25-50 ms/MB on ordinary text, and a hard stop on adversarial text. */
export function defaultBudgetMs(length: number): number {
  return 250 + (length / 1e6) * 100
}

/**
 * Runs the preset over `text`. Each chunk is one synchronous secretlint call (its worst case is bounded by the
 * chunk size); between chunks the event loop gets a turn and the budget is checked.
 */
export async function secretlintSpans(text: string, budgetMs = defaultBudgetMs(text.length)): Promise<BackstopResult> {
  const t0 = cpuMs()
  const spans: Span[] = []
  const seen = new Set<string>()
  let complete = true
  for (let offset = 0; offset < text.length || offset === 0; offset += SECRETLINT_CHUNK) {
    if (offset > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (cpuMs() - t0 > budgetMs) {
        complete = false
        break
      }
    }
    const chunk = text.slice(offset, offset + SECRETLINT_CHUNK + OVERLAP)
    let messages: LintMessage[]
    try {
      const result = await lintSource({
        source: { content: chunk, filePath: undefined as unknown as string, ext: '.txt', contentType: 'text' },
        options: { config: CONFIG, noPhysicFilePath: true },
      })
      messages = result.messages
    } catch {
      messages = []
    }
    for (const msg of messages) {
      const span = toSpan(chunk, msg)
      if (!span) continue
      const key = `${span.start + offset}:${span.end + offset}`
      if (seen.has(key)) continue
      seen.add(key)
      spans.push({ ...span, start: span.start + offset, end: span.end + offset })
    }
    if (offset + SECRETLINT_CHUNK >= text.length) break
  }
  return { spans, complete, ms: cpuMs() - t0 }
}

/** Narrows a finding to the secret itself: the password of a URL, or the reported value where secretlint's range is off. */
function toSpan(chunk: string, msg: LintMessage): Span | null {
  const suffix = msg.ruleId.replace(/^@secretlint\/secretlint-rule-/, '')
  const family = FAMILY[suffix] ?? suffix
  let [a, b] = msg.range
  if (!(b > a)) return null
  if (suffix === 'basicauth' || suffix === 'database-connection-string') {
    const url = chunk.slice(a, b)
    const scheme = url.indexOf('://')
    const authEnd = url.slice(scheme + 3).search(/[/?#]/)
    const auth = url.slice(scheme + 3, authEnd === -1 ? undefined : scheme + 3 + authEnd)
    const at = auth.lastIndexOf('@')
    const colon = auth.indexOf(':')
    if (scheme !== -1 && at > 0 && colon !== -1 && colon < at) {
      const s = a + scheme + 3 + colon + 1
      return { start: s, end: a + scheme + 3 + at, family, priority: PRIORITY.backstop }
    }
    return { start: a, end: b, family, priority: PRIORITY.backstop }
  }
  // Rules that report a capture group with the whole match's start (aws secret, npm x-oauth) name the value in data.
  const values = Object.values((msg.data ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v.length >= 8)
  for (const v of values.sort((x, y) => y.length - x.length)) {
    const at = chunk.indexOf(v, a)
    if (at !== -1 && at <= b) {
      a = at
      b = at + v.length
      break
    }
  }
  return { start: a, end: b, family, priority: PRIORITY.backstop }
}
