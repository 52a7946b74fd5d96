/**
 * The redaction engine: every text the product writes (titles, slugs, questions, answers, tool arguments, tags,
 * model outputs) passes through `Redactor.redact` before it touches disk. A secret that reaches a document is a
 * severity-one bug, so detection is layered: own rules (synchronous, ~all of gitleaks/trufflehog/secretlint's
 * default families) plus, on the async path, a time-bounded secretlint backstop. Pure module, no I/O.
 *
 * Families covered (the `families` keys of a {@link Redaction}):
 * - cloud: `aws` (access key id AKIA/ASIA/ABIA/ACCA/A3T, secret access key by name or next to its key id,
 *   X-Amz-Signature/Security-Token), `google-api-key` (`AIza…`, also Gemini/Google AI), `google-oauth` (`GOCSPX-`,
 *   `ya29.`, `1//0` refresh tokens), `gcp-service-account` (`private_key` and `private_key_id` JSON fields, escaped
 *   or not), `azure` (AccountKey/SharedAccessKey connection strings, SAS `sig=`, AD client secrets `…Q~…`),
 *   `signed-url`, `digitalocean`, `heroku`, `cloudflare`, `vercel`, `databricks`, `terraform`, `pulumi`, `doppler`,
 *   `vault`, `tailscale`, `1password`.
 * - VCS/CI/registries: `github` (ghp_/gho_/ghu_/ghs_/ghr_/github_pat_), `gitlab` (glpat-/gldt-/glrt-/… and runner
 *   registration), `npm` (npm_…, .npmrc `_authToken`/`_auth`), `pypi`, `circleci`, `buildkite`, `docker`.
 * - chat/payments/mail/SaaS: `slack` (xox*, xapp, webhooks), `discord` (bot tokens, webhooks), `telegram`, `stripe`
 *   (sk_/rk_ live+test, whsec_), `square`, `twilio`, `sendgrid`, `mailchimp`, `mailgun`, `shopify`, `atlassian`,
 *   `linear`, `notion`, `figma`, `postman`, `grafana`, `sentry`, `newrelic`.
 * - LLM providers: `openai` (sk-proj-/sk-svcacct-/sk-admin-/legacy), `anthropic` (sk-ant-), `deepseek` (sk- + 32
 *   hex), `openrouter`, `huggingface`, `groq`, `xai`, `replicate`, `perplexity`, `llm-api-key` (other random sk-…).
 * - formats: `jwt`, `private-key` (PEM RSA/EC/DSA/OPENSSH/PGP/ENCRYPTED blocks raw or JSON-escaped, truncated
 *   blocks, base64-wrapped PEM, PuTTY, age).
 * - context: `url-password` (`scheme://user:[REDACTED]@host`), `auth-header` (Authorization Bearer/Basic/Token…,
 *   X-Api-Key, Private-Token…, bare `Bearer x`), `cli-flag` (`--password[= ]x`, `--token`, `--api-key`, `-pX` for
 *   mysql, `sshpass -p`, `redis-cli -a`, `docker login -p`, `curl -u user:x`, `-passin pass:x`), `env-assignment`
 *   (`.env` lines, `export`/`ENV`/`ARG`), `generic-secret` (`name: value`, `"name": "value"`, `name = "value"`,
 *   YAML block scalars, XML, query strings, .netrc for secret-like names), `custom` (user patterns).
 *
 * How false positives are held down:
 * - shape rules need a literal prefix/anchor, a left boundary (not glued to a longer token) and bounded lengths;
 *   stand-ins (`ghp_xxxx…`, `AKIA…EXAMPLE`, `...`, low-entropy fillers) are skipped; prefix-less shapes (Discord
 *   bot tokens) run only when the text mentions them, as gitleaks' keyword prefilters do.
 * - assignment rules classify the NAME by its last word (`DB_PASSWORD`, `clientSecret`, `x-api-key`; not
 *   `token_type`, `max_tokens`, `public_key`, `secretName`, `nextPageToken`), then demand evidence from the VALUE:
 *   Shannon-entropy floors and character-class mix for token/secret/key names (relaxed for .env/export lines),
 *   almost none for password names; prose continuations need more.
 * - allowlists: placeholders/templates (`${X}`, `$X`, `{{ secrets.X }}`, `<your-token>`, `YOUR_API_KEY`, `xxxx`,
 *   `***`, `changeme`, `example`, the mask itself, so masked text is never re-counted), code references
 *   (`process.env.X`, `getToken()`, camelCase identifiers), file paths, type names and stopwords.
 * - never masked: git SHAs, UUIDs, lockfile integrity hashes, public keys and certificates, prose such as "the
 *   password field is required" (no rule matches bare hex/base64 runs without a name or prefix).
 *
 * Custom patterns (`redact.patterns`) are JavaScript regular expressions, either a bare source (`acme_[0-9a-f]{32}`)
 * or `/source/flags` with flags from `imsuv`. If the pattern has a capturing group, group 1 is masked (the rest of the
 * match stays as context); otherwise the whole match. They are counted as family `custom` unless a built-in rule
 * found the same span. A custom pattern runs as written: avoid nested unbounded quantifiers.
 * @module dsh-knowledge-sync/redact/redactor
 */
import type { Redaction } from '../types.js'
import { isPlaceholder, isTokenPlaceholder } from './allow.js'
import { scanContext } from './context.js'
import type { BackstopResult } from './secretlint.js'
import { PRIORITY, type Span } from './scan.js'
import { scanTokens } from './tokens.js'
import { maskedValues, ValueMatcher, type MaskedValue } from './propagate.js'

export type { Span } from './scan.js'

/** The default mask text. */
export const DEFAULT_MASK = '[REDACTED]'

/** Redaction settings (`knowledge.redact`). `patterns` are extra user regular expressions, as strings. */
export interface RedactOptions {
  enabled: boolean
  mask: string
  patterns: string[]
}

/** A bad redaction setting; the message names the pattern and the reason. */
export class RedactConfigError extends Error {
  override name = 'RedactConfigError'
}

const USER_FLAGS = /^[imsuv]*$/
const LONG_RUN_RE = /\S{12}/

/**
 * Compiles `redact.patterns` at load time. Accepts `source` or `/source/flags`; every pattern gets `g` and `d`.
 * Throws {@link RedactConfigError} naming the first bad pattern (invalid syntax, bad flags, or one that matches the
 * empty string and so could never mask anything).
 */
export function compilePatterns(patterns: string[]): RegExp[] {
  if (!Array.isArray(patterns)) throw new RedactConfigError('knowledge: redact.patterns must be an array of strings')
  return patterns.map((pattern, i) => {
    const where = `knowledge: redact.patterns[${i}] ${JSON.stringify(pattern)}`
    if (typeof pattern !== 'string' || pattern.length === 0) throw new RedactConfigError(`${where} must be a non-empty string`)
    let source = pattern
    let flags = ''
    const literal = /^\/([\s\S]+)\/([a-z]*)$/.exec(pattern)
    if (literal) {
      if (!USER_FLAGS.test(literal[2])) throw new RedactConfigError(`${where} has unsupported flags "${literal[2]}" (allowed: i, m, s, u, v)`)
      source = literal[1]
      flags = literal[2]
    }
    let re: RegExp
    try {
      re = new RegExp(source, [...new Set(flags + 'gd')].join(''))
    } catch (error) {
      throw new RedactConfigError(`${where} is not a valid regular expression: ${(error as Error).message}`)
    }
    re.lastIndex = 0
    const empty = re.exec('')
    re.lastIndex = 0
    if (empty && empty[0] === '') throw new RedactConfigError(`${where} matches the empty string, so it could never mask anything`)
    return re
  })
}

/** Per call: `propagate: false` leaves propagation to the caller (the store does one pass over all fields). */
export interface RedactCallOptions {
  propagate?: boolean
}

/** Masks text. `redactSync` runs the own rules only; `redact` adds the secretlint backstop (at least as strong). */
export interface Redactor {
  readonly enabled: boolean
  /** The text that replaces a masked value. */
  readonly mask: string
  redact(text: string, options?: RedactCallOptions): Promise<Redaction>
  redactSync(text: string, options?: RedactCallOptions): Redaction
}

/** Spans of user patterns: group 1 when the pattern has a capturing group, else the whole match. */
function scanCustom(text: string, patterns: RegExp[], out: Span[]): void {
  for (const re of patterns) {
    re.lastIndex = 0
    let m: RegExpExecArray | null
    let guard = 0
    while ((m = re.exec(text)) !== null) {
      if (m[0] === '') { re.lastIndex++; if (++guard > 1e6) break; continue }
      const idx = m.indices
      if (m.length > 1) {
        const g = idx?.[1]
        if (g && g[1] > g[0]) out.push({ start: g[0], end: g[1], family: 'custom', priority: PRIORITY.custom })
      } else {
        out.push({ start: m.index, end: m.index + m[0].length, family: 'custom', priority: PRIORITY.custom })
      }
    }
  }
}

/** Runs a scanner without letting a bug in one rule stop the others. */
function safely(fn: () => void): void {
  try {
    fn()
  } catch {
    // A rule that throws is a bug; the remaining rules still run, and the test corpus catches the regression.
  }
}

/** Every raw span the own rules (and custom patterns) report for `text`. */
export function scanSpans(text: string, mask: string = DEFAULT_MASK, custom: RegExp[] = []): Span[] {
  const out: Span[] = []
  safely(() => scanTokens(text, mask, out))
  safely(() => scanContext(text, mask, out))
  if (custom.length) safely(() => scanCustom(text, custom, out))
  return out
}

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
      if (s.priority > cur.priority) { cur.family = s.family; cur.priority = s.priority }
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

/** Sets `values` on a result without making it enumerable: secrets never reach JSON output or a log by accident. */
export function withValues(result: Redaction, values: MaskedValue[]): Redaction {
  Object.defineProperty(result, 'values', { value: values, enumerable: false, configurable: true, writable: true })
  return result
}

/**
 * Applies the rules' spans, then one propagation pass: every other occurrence of a masked value (and its JSON-,
 * URL- and base64-encoded forms) in the same text is masked too and counted under the value's family.
 */
function finish(text: string, spans: Span[], mask: string, propagate: boolean): Redaction {
  const merged = mergeSpans(spans)
  const values = maskedValues(text, merged)
  const extra = propagate && values.length ? new ValueMatcher(values, mask).spans(text) : []
  return withValues(applySpans(text, extra.length ? merged.concat(extra) : merged, mask), values)
}

/**
 * Keeps only backstop spans the own rules knew nothing about: a span overlapping an own span is the same secret
 * (the own span is the precise one: secretlint reports whole URLs and webhook addresses), and a span whose text
 * is a placeholder or the mask itself (`ghp_xxxx…`, `:[REDACTED]@`) is not a secret.
 */
function novel(text: string, backstop: Span[], own: Span[], mask: string): Span[] {
  if (backstop.length === 0) return backstop
  const merged = mergeSpans(own)
  return backstop.filter((b) => {
    // Binary search for the last own span starting before b.end; it overlaps b if it ends after b.start.
    let lo = 0, hi = merged.length - 1, hit = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (merged[mid].start < b.end) { hit = mid; lo = mid + 1 } else hi = mid - 1
    }
    if (hit >= 0 && merged[hit].end > b.start) return false
    const value = text.slice(b.start, b.end)
    return !isTokenPlaceholder(value, mask) && !isPlaceholder(value, mask)
  })
}

/** Options of {@link createRedactor} beyond the configuration: the backstop can be switched off or re-budgeted. */
export interface RedactorTuning {
  /** Run the secretlint backstop in `redact()` (default true). */
  secretlint?: boolean
  /** Time budget in ms for the backstop of one call; default 250 ms + 100 ms per MB. */
  secretlintBudgetMs?: (length: number) => number
  /** Called after each backstop run (tests and benchmarks). */
  onBackstop?: (result: BackstopResult & { novel: number }) => void
  /** Mask every further occurrence of a masked value in the same text (default true; off only to measure it). */
  propagate?: boolean
}

/**
 * Builds a redactor. Throws {@link RedactConfigError} for bad patterns (even when disabled, so a bad setting is
 * reported at load). `enabled: false` returns text unchanged with count 0.
 */
export function createRedactor(options: RedactOptions, tuning: RedactorTuning = {}): Redactor {
  const patterns = compilePatterns(options.patterns ?? [])
  const mask = typeof options.mask === 'string' ? options.mask : DEFAULT_MASK
  const enabled = options.enabled !== false
  const useBackstop = tuning.secretlint !== false
  const propagate = tuning.propagate !== false
  const unchanged = (text: string): Redaction => ({ text, count: 0, families: {} })
  const asText = (text: unknown): string => (typeof text === 'string' ? text : String(text ?? ''))
  return {
    enabled,
    mask,
    redactSync(input: string, call?: RedactCallOptions): Redaction {
      const text = asText(input)
      if (!enabled || text.length === 0) return unchanged(text)
      return finish(text, scanSpans(text, mask, patterns), mask, propagate && call?.propagate !== false)
    },
    async redact(input: string, call?: RedactCallOptions): Promise<Redaction> {
      const text = asText(input)
      if (!enabled || text.length === 0) return unchanged(text)
      const own = scanSpans(text, mask, patterns)
      // No preset rule matches without a run of 12+ non-space characters; short fields skip its per-call setup.
      const spread = propagate && call?.propagate !== false
      if (!useBackstop || !LONG_RUN_RE.test(text)) return finish(text, own, mask, spread)
      let extra: Span[] = []
      try {
        // Loaded on the first redaction: secretlint's preset is most of the CLI's start-up cost otherwise.
        const { secretlintSpans } = await import('./secretlint.js')
        const result = await secretlintSpans(text, tuning.secretlintBudgetMs?.(text.length))
        extra = novel(text, result.spans, own, mask)
        tuning.onBackstop?.({ ...result, novel: extra.length })
      } catch {
        // The backstop is best effort; the own rules' result stands.
      }
      return finish(text, extra.length ? own.concat(extra) : own, mask, spread)
    },
  }
}
