/**
 * User patterns (`redact.patterns`) on a linear-time engine. A JavaScript RegExp backtracks: `(a+)+$` over 34 `a`s
 * and a `!` never returns, on dsh's main thread. Patterns are therefore compiled with RE2JS (a pure-JavaScript port
 * of RE2, no native build), whose matching time is linear in the input for every pattern. What RE2 cannot run in
 * linear time (backreferences, lookahead/lookbehind) is refused at load with an error naming the pattern, and so is
 * a pattern whose compiled program is too large to scan a megabyte in reasonable time.
 * @module dsh-knowledge-sync/redact/patterns
 */
import { createRequire } from 'node:module'
import type { RE2JS } from 're2js'
import { cpuMs } from './cpu-clock.js'

/**
 * re2js, loaded with the first custom pattern rather than at import: most processes have none, and loading it cost
 * ~30 ms and ~2.4 MB of RSS in every process (a CLI search, a second dsh process at start).
 */
let engine: typeof import('re2js') | undefined
const re2 = (): typeof import('re2js') => (engine ??= createRequire(import.meta.url)('re2js') as typeof import('re2js'))

/** A bad redaction setting; the message names the pattern and the reason. */
export class RedactConfigError extends Error {
  override name = 'RedactConfigError'
}

/** A compiled user pattern: its index and source (for messages) and the linear-time matcher. */
export interface UserPattern {
  index: number
  source: string
  /** Whether group 1 (not the whole match) is masked. */
  grouped: boolean
  re: RE2JS
}

/** A user match: the masked range, in UTF-16 offsets of the scanned text. */
export interface UserMatch {
  start: number
  end: number
}

const USER_FLAGS = /^[imsu]*$/
/** Refused above this speed on {@link PROBE}: 20x what the built-in rules cost, so only pathological patterns trip it. */
const MAX_MS_PER_MB = 3000
/** ~12 KB of the text redaction sees: logs, code, prose, JSON, YAML, identifiers and hex/base64 runs. */
const PROBE = [
  'INFO 2024-05-01T10:00:00Z GET /api/v1/orders?page=3 200 12ms user=alice@example.org request_id=5f0c2d0e-8d1b-4c39-9a57\n',
  'export function parseConfig(raw: string): Config { const doc = YAML.parse(raw); return { ...DEFAULTS, ...doc } }\n',
  'The build failed because the cache key changed after the lockfile update; rerun with --no-cache to confirm.\n',
  '{"command":"git log --oneline -n 5 && npm test","cwd":"/home/dev/project","timeout":120000}\n',
  'services:\n  api:\n    image: node:22\n    environment:\n      - NODE_ENV=production\n',
  'commit 3f2a9c1d5e7b8a0c4d6e8f1a2b3c4d5e6f7a8b9c integrity sha512-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/==\n',
  'AbstractSingletonProxyFactoryBean getAccessTokenFromRefreshTokenAsync validatePasswordStrengthAndComplexity\n',
]
  .join('')
  .repeat(20)
/** RE2 program size ceiling: ~2,000 instructions scan a megabyte in about half a second on this engine. */
const MAX_PROGRAM = 2500

/**
 * Compiles `redact.patterns` at load time. Accepts `source` or `/source/flags` (flags from `imsu`). Throws
 * {@link RedactConfigError} naming the first bad pattern: invalid syntax, bad flags, a construct that needs
 * backtracking, a program too large, or one that matches the empty string (it could never mask anything).
 */
export function compileUserPatterns(patterns: string[]): UserPattern[] {
  if (!Array.isArray(patterns)) throw new RedactConfigError('knowledge: redact.patterns must be an array of strings')
  return patterns.map((pattern, i) => {
    const where = `knowledge: redact.patterns[${i}] ${JSON.stringify(pattern)}`
    if (typeof pattern !== 'string' || pattern.length === 0) throw new RedactConfigError(`${where} must be a non-empty string`)
    let source = pattern
    let flags = ''
    const literal = /^\/([\s\S]+)\/([a-z]*)$/.exec(pattern)
    if (literal) {
      if (!USER_FLAGS.test(literal[2])) throw new RedactConfigError(`${where} has unsupported flags "${literal[2]}" (allowed: i, m, s, u)`)
      source = literal[1]
      flags = literal[2]
    }
    // JavaScript syntax first, so a plain typo reads as JavaScript would report it.
    try {
      new RegExp(source, flags.includes('u') ? 'u' : '')
    } catch (error) {
      throw new RedactConfigError(`${where} is not a valid regular expression: ${(error as Error).message}`)
    }
    if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(source)) {
      throw new RedactConfigError(`${where} uses a backreference or lookaround, which cannot run in linear time; rewrite it without one (a capturing group masks just that part)`)
    }
    let re: RE2JS
    try {
      const { RE2JS } = re2()
      re = RE2JS.compile(RE2JS.translateRegExp(source), (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0))
    } catch (error) {
      throw new RedactConfigError(`${where} cannot run on the linear-time engine: ${(error as Error).message}`)
    }
    const size = (re as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst?.length ?? 0
    if (size > MAX_PROGRAM) throw new RedactConfigError(`${where} is too large (${size} states, at most ${MAX_PROGRAM}): shrink its repeat counts`)
    if (re.matcher('').find()) throw new RedactConfigError(`${where} matches the empty string, so it could never mask anything`)
    const compiled = { index: i, source: pattern, grouped: re.groupCount() >= 1, re }
    // Linear is not always fast (`[a-z]{1,100}[0-9]` keeps 100 threads alive per letter): time it on ordinary text.
    // Best of three runs: the first is dominated by the engine's own warm-up.
    let best = Infinity
    for (let run = 0; run < 3; run++) {
      const t0 = cpuMs()
      matchUserPattern(compiled, PROBE)
      best = Math.min(best, cpuMs() - t0)
    }
    const perMb = (best / PROBE.length) * 1e6
    if (perMb > MAX_MS_PER_MB)
      throw new RedactConfigError(`${where} is too slow: about ${Math.round(perMb)} ms per MB of ordinary text (at most ${MAX_MS_PER_MB}); narrow its repeats or anchor it on a literal`)
    return compiled
  })
}

/**
 * Matches of one pattern in `text` whose start lies in `[from, to)`. Group 1 when the pattern has a group (empty or
 * unmatched group: nothing), else the whole match. Matches ending exactly at the end of `text` are dropped when
 * `text` is a window that stops early (`open`), since `$` would see a false end there.
 */
export function matchUserPattern(p: UserPattern, text: string, from = 0, to = text.length, open = false): UserMatch[] {
  const out: UserMatch[] = []
  const m = p.re.matcher(text)
  let at = from
  while (at <= text.length && m.find(at)) {
    const s = m.start()
    const e = m.end()
    if (s >= to) break
    if (open && e === text.length) break
    if (p.grouped) {
      const gs = m.start(1)
      const ge = m.end(1)
      if (gs >= 0 && ge > gs) out.push({ start: gs, end: ge })
    } else if (e > s) {
      out.push({ start: s, end: e })
    }
    at = e > s ? e : s + 1
  }
  return out
}
