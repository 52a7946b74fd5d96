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
 * Custom patterns (`redact.patterns`) use JavaScript syntax, either a bare source (`acme_[0-9a-f]{32}`) or
 * `/source/flags` with flags from `imsu`, and run on a linear-time engine (RE2JS, see ./patterns.ts): `(a+)+$`
 * cannot freeze the process; backreferences and lookaround are refused at load. If the pattern has a capturing
 * group, group 1 is masked (the rest of the match stays as context); otherwise the whole match. They are counted as
 * family `custom` unless a built-in rule found the same span.
 *
 * Time: every rule is linear in the input. `redact()` works in chunks and yields to the event loop between them, and
 * throws {@link RedactBudgetError} if the call exceeds its budget, so a caller never writes text it could not redact.
 * @module dsh-knowledge-sync/redact/redactor
 */
import type { Redaction } from '../types.js'
import { isPlaceholder, isTokenPlaceholder } from './allow.js'
import { scanContext } from './context.js'
import { isCredentialName } from './credential-names.js'
import { scanForms } from './forms.js'
import type { BackstopResult } from './secretlint.js'
import { PRIORITY, type Span } from './scan.js'
import { scanTokens } from './tokens.js'
import { markdownView } from './markdown-view.js'
import { maskedValues, ValueMatcher, type MaskedValue } from './propagate.js'
import { compileUserPatterns, matchUserPattern, type UserPattern } from './patterns.js'
import { cpuMs } from './cpu-clock.js'
import { applySpans, DEFAULT_MASK, mergeSpans } from './spans.js'

export type { Span } from './scan.js'
export { applySpans, DEFAULT_MASK, mergeSpans } from './spans.js'

/** Redaction settings (`knowledge.redact`). `patterns` are extra user regular expressions, as strings. */
export interface RedactOptions {
  enabled: boolean
  mask: string
  patterns: string[]
}

export { RedactConfigError } from './patterns.js'

/** Redaction could not finish within its time budget: the text must not be written (the caller records why). */
export class RedactBudgetError extends Error {
  override name = 'RedactBudgetError'
}

const LONG_RUN_RE = /\S{12}/

/**
 * Compiles `redact.patterns` at load time on the linear-time engine ({@link compileUserPatterns}). Throws
 * {@link RedactConfigError} naming the first bad pattern.
 */
export function compilePatterns(patterns: string[]): UserPattern[] {
  return compileUserPatterns(patterns)
}

/** Per call: `propagate: false` leaves propagation to the caller (the store does one pass over all fields). */
export interface RedactCallOptions {
  propagate?: boolean
}

/**
 * Masks text. `redactSync` runs the own rules only; `redact` adds the secretlint backstop (at least as strong), yields
 * between chunks, and rejects with {@link RedactBudgetError} when it cannot finish in time.
 */
export interface Redactor {
  readonly enabled: boolean
  /** The text that replaces a masked value. */
  readonly mask: string
  redact(text: string, options?: RedactCallOptions): Promise<Redaction>
  redactSync(text: string, options?: RedactCallOptions): Redaction
}

/** Spans of user patterns whose start lies in `[from, to)` of `text` (a window when `open`). */
function scanCustom(text: string, patterns: UserPattern[], out: Span[], from = 0, to = text.length, open = false): void {
  for (const p of patterns) {
    for (const m of matchUserPattern(p, text, from, to, open)) out.push({ start: m.start, end: m.end, family: 'custom', priority: PRIORITY.custom })
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

/** The own rules over `text` (no user patterns), appended to `out`. */
function scanOwn(text: string, mask: string, out: Span[]): void {
  safely(() => scanTokens(text, mask, out))
  safely(() => scanContext(text, mask, out))
  safely(() =>
    scanForms(text, mask, out, isCredentialName, (decoded) => {
      // A decoded blob is scanned by the shape and context rules once (no further decoding).
      const inner: Span[] = []
      safely(() => scanTokens(decoded, mask, inner))
      safely(() => scanContext(decoded, mask, inner))
      return inner
    }),
  )
}

/** Every raw span the own rules (and custom patterns) report for `text`. */
export function scanSpans(text: string, mask: string = DEFAULT_MASK, custom: UserPattern[] = []): Span[] {
  const out: Span[] = []
  scanOwn(text, mask, out)
  if (custom.length) safely(() => scanCustom(text, custom, out))
  return out
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
    let lo = 0,
      hi = merged.length - 1,
      hit = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (merged[mid].start < b.end) {
        hit = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    if (hit >= 0 && merged[hit].end > b.start) return false
    const value = text.slice(b.start, b.end)
    return !isTokenPlaceholder(value, mask) && !isPlaceholder(value, mask)
  })
}

/** Async path: one chunk of own-rule work between event-loop turns (~10-40 ms at this engine's speed). */
const CHUNK = 64 * 1024
/** Context left of a chunk: the farthest a rule looks back from where its span starts (names, line starts, key ids). */
const LEFT_CONTEXT = 8 * 1024
/** Context right of a chunk: values are read up to 4 KiB; a span reaching the window's end is rescanned with FULL_RIGHT. */
const RIGHT_CONTEXT = 8 * 1024
/** The longest span a rule reports (a 64 KiB key block, YAML block or credentials value). */
const FULL_RIGHT = 68 * 1024
/** User patterns: first chunk and context (a user match is found whole when it is shorter than the context). */
const CUSTOM_CHUNK = 2 * 1024
const CUSTOM_CONTEXT = 4 * 1024

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Default budget of one `redact()` call (own rules and user patterns): some 20x their linear cost on this machine,
 * so load never trips it; it is the hard stop for what linear time alone does not bound (a large user pattern).
 */
export function defaultRedactBudgetMs(length: number): number {
  return 5000 + (length / 1e6) * 5000
}

/** Chunk boundaries: `[a, b)` pairs of about `size`, cut after a line break where one is near. */
function* chunks(text: string, size: number): Generator<[number, number]> {
  const n = text.length
  for (let a = 0; a < n; ) {
    let b = Math.min(n, a + size)
    if (b < n) {
      const nl = text.indexOf('\n', b)
      if (nl !== -1 && nl - b < 4096) b = nl + 1
    }
    yield [a, b]
    a = b
  }
}

/**
 * {@link scanSpans} in chunks that yield to the event loop, under a deadline. A span belongs to the chunk where it
 * starts; each chunk is scanned with enough context on both sides that no rule sees a false edge. Throws
 * {@link RedactBudgetError} (naming what was running) when the deadline passes.
 */
async function scanSpansAsync(text: string, mask: string, custom: UserPattern[], budgetMs: number, now: () => number = cpuMs): Promise<Span[]> {
  const t0 = now()
  const n = text.length
  const out: Span[] = []
  const check = (what: string): void => {
    const ms = now() - t0
    if (ms > budgetMs) throw new RedactBudgetError(`knowledge: redaction did not finish within ${Math.round(budgetMs)} ms on ${n} characters (at ${what}); nothing was written`)
  }
  if (n <= CHUNK) {
    scanOwn(text, mask, out)
    check('the built-in rules')
  } else {
    const scanWindow = (a: number, b: number, right: number, last = false): Span[] | null => {
      const ws = Math.max(0, a - LEFT_CONTEXT)
      const we = Math.min(n, b + right)
      const window = text.slice(ws, we)
      const spans: Span[] = []
      scanOwn(window, mask, spans)
      const mine = spans.filter((s) => s.start + ws >= a && s.start + ws < b)
      // A span that runs into the window's end may have been cut by it: the caller rescans with the full reach.
      if (!last && we < n && mine.some((s) => s.end + ws >= we - 1)) return null
      return mine.map((s) => ({ ...s, start: s.start + ws, end: s.end + ws }))
    }
    for (const [a, b] of chunks(text, CHUNK)) {
      const spans = scanWindow(a, b, RIGHT_CONTEXT) ?? scanWindow(a, b, FULL_RIGHT, true)!
      for (const s of spans) out.push(s)
      check('the built-in rules')
      await tick()
    }
  }
  for (const p of custom) {
    const what = `redact.patterns[${p.index}] ${JSON.stringify(p.source)}`
    // Chunk size adapts to the pattern's speed so one chunk is ~25 ms: linear engines still differ 1000x in constant.
    let size = CUSTOM_CHUNK
    for (let a = 0; a < n; ) {
      const b = Math.min(n, a + size)
      const cs = Math.max(0, a - CUSTOM_CONTEXT)
      const ce = Math.min(n, b + CUSTOM_CONTEXT)
      const c0 = now()
      const window = cs === 0 && ce === n ? text : text.slice(cs, ce)
      for (const m of matchUserPattern(p, window, a - cs, b - cs, ce < n)) out.push({ start: m.start + cs, end: m.end + cs, family: 'custom', priority: PRIORITY.custom })
      const took = now() - c0
      check(what)
      a = b
      if (a < n) {
        size = Math.max(1024, Math.min(256 * 1024, Math.round((size * 25) / Math.max(took, 1))))
        await tick()
      }
    }
  }
  return out
}

/** Options of {@link createRedactor} beyond the configuration: the backstop can be switched off or re-budgeted. */
export interface RedactorTuning {
  /** Run the secretlint backstop in `redact()` (default true). */
  secretlint?: boolean
  /** Time budget in ms for the backstop of one call; default 250 ms + 100 ms per MB. */
  secretlintBudgetMs?: (length: number) => number
  /** Time budget in ms of one `redact()` call for the own rules and user patterns; default {@link defaultRedactBudgetMs}. */
  budgetMs?: (length: number) => number
  /** The clock the budget is counted on, in ms (default this process's CPU time, {@link cpuMs}): tests pass their own, so no test depends on the machine's speed. */
  clock?: () => number
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
      const spans = scanSpans(text, mask, patterns)
      const escaped = markdownView(text)
      if (escaped) spans.push(...escaped.back(scanSpans(escaped.view, mask, patterns)))
      return finish(text, spans, mask, propagate && call?.propagate !== false)
    },
    async redact(input: string, call?: RedactCallOptions): Promise<Redaction> {
      const text = asText(input)
      if (!enabled || text.length === 0) return unchanged(text)
      const budget = (tuning.budgetMs ?? defaultRedactBudgetMs)(text.length)
      const own = await scanSpansAsync(text, mask, patterns, budget, tuning.clock)
      // Also what a reader sees through Markdown escapes (`API\_KEY`), masked where it is written.
      const escaped = markdownView(text)
      if (escaped) own.push(...escaped.back(await scanSpansAsync(escaped.view, mask, patterns, budget, tuning.clock)))
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
