/**
 * False-positive control shared by every redaction rule: Shannon entropy, "looks random" tests, placeholder and
 * template allowlists, stopwords, and code-reference detection. Pure functions, no I/O.
 * @module dsh-knowledge-sync/redact/allow
 */

/** Shannon entropy of `s` in bits per character (0 for the empty string). */
export function shannon(s: string): number {
  const n = s.length
  if (n === 0) return 0
  // ASCII counts in a reused table (this runs for every candidate); anything else in a map.
  ASCII_COUNTS.fill(0)
  let other: Map<number, number> | null = null
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 128) ASCII_COUNTS[c]++
    else (other ??= new Map()).set(c, (other.get(c) ?? 0) + 1)
  }
  let h = 0
  for (let c = 0; c < 128; c++) {
    const k = ASCII_COUNTS[c]
    if (k) {
      const p = k / n
      h -= p * Math.log2(p)
    }
  }
  if (other)
    for (const k of other.values()) {
      const p = k / n
      h -= p * Math.log2(p)
    }
  return h
}
const ASCII_COUNTS = new Uint32Array(128)

/** Which character classes `s` uses; `_`, `-` and `.` do not count as symbols (identifiers are full of them). */
export function charClasses(s: string): { lower: boolean; upper: boolean; digit: boolean; symbol: boolean; count: number } {
  let lower = false,
    upper = false,
    digit = false,
    symbol = false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 97 && c <= 122) lower = true
    else if (c >= 65 && c <= 90) upper = true
    else if (c >= 48 && c <= 57) digit = true
    else if (c !== 95 && c !== 45 && c !== 46) symbol = true
  }
  return { lower, upper, digit, symbol, count: +lower + +upper + +digit + +symbol }
}

/**
 * A value that reads like a generated credential rather than a word or identifier: long enough, entropy above a
 * length-aware floor (gitleaks uses a flat 3.5 for its generic rule; short values cannot reach that), and either a
 * digit/symbol or, for letters-only values, a high entropy at a length no English word has.
 */
export function looksRandom(v: string, minLength = 8): boolean {
  if (v.length < minLength || isWordLike(v)) return false
  const h = shannon(v)
  const floor = Math.min(3.2, Math.log2(v.length) - 0.7)
  if (h < floor) return false
  const cls = charClasses(v)
  if (cls.digit && (cls.lower || cls.upper)) return true
  if (cls.symbol && cls.count >= 2) return true
  if (cls.lower && cls.upper && v.length >= 16 && h >= 3.5) return true
  if (v.length >= 24 && h >= 3.8) return true
  return false
}

const WORD_CHUNK_RE = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+|[^A-Za-z0-9]+/g

/**
 * Made of words, not noise: most characters sit in runs of 4+ lowercase letters with a vowel (`configuredAgentIdentities`,
 * `?InterpolationInTemplate`, `refresh-token-v2`). A generated token is chopped into short case/digit runs instead.
 */
export function isWordLike(v: string): boolean {
  // A prefix decides for long values: the test is a proportion, and its cost must not grow with a 4 KiB run-on value.
  if (v.length > 256) v = v.slice(0, 256)
  // Identifiers rarely carry more than a version digit or two; generated values are full of digits.
  if ((v.match(/[0-9]/g)?.length ?? 0) >= 3) return false
  let wordy = 0
  for (const chunk of v.match(WORD_CHUNK_RE) ?? []) {
    const body = chunk.replace(/^[A-Z]/, '')
    if (body.length >= 4 && /^[a-z]+$/.test(body) && /[aeiouy]/.test(body)) wordy += chunk.length
  }
  return wordy / v.length >= 0.6
}

/** Words that are never a credential value on their own (types, booleans, prompts, English glue, doc words). */
const STOPWORDS = new Set(
  (
    'string str text varchar char number int integer float double bool boolean any object array bytes byte buffer ' +
    'null none nil undefined true false yes no on off required optional empty default hidden secret secrets password ' +
    'passwords passwd pass pwd token tokens apikey api_key key keys value values changeme changeit example examples ' +
    'sample placeholder dummy fake test testing foo bar baz qux foobar redacted masked tbd todo fixme na n/a unset ' +
    'missing invalid expired see set env same blank random generated auto ask prompt stdin unknown secure mysecret ' +
    'mypassword yourpassword your_password user username admin root guest login the a an and or to of in for with ' +
    'is are was be been it this that from by as at via use used using flag option argument arg param parameter ' +
    'field header here there below above must should will can may not only if then else when where which your my ' +
    'options flags arguments args parameters params fields headers settings instead also ' +
    'our their its new old same other omitted elided truncated removed stripped xxx xxxx xxxxx ... … hunter2example'
  ).split(' '),
)

/** True for a bare stopword (case-insensitive). */
export function isStopword(v: string): boolean {
  return STOPWORDS.has(v.toLowerCase())
}

const TEMPLATE_RES: RegExp[] = [
  /^\$\{[^}]{0,200}\}?$/, // ${VAR}, ${VAR:-x}
  /^\$\(/, // $(command)
  /^\$[A-Za-z_][A-Za-z0-9_]{0,80}$/, // $VAR
  /^\$\{\{/, // ${{ secrets.X }}
  /\{\{[^}]{0,200}\}\}/, // {{ secrets.X }}, {{ .Values.x }}
  /\{%[^%]{0,200}%\}/, // {% raw %}
  /^%[A-Za-z_][A-Za-z0-9_]{0,80}%$/, // %VAR%
  /^<[^<>]{0,120}>$/, // <your-token>
  /^<[A-Za-z]/, // <paste your key here> cut at a space
  /^\[[^[\]]{0,120}\]$/, // [REDACTED], [your key]
  /^\{[A-Za-z_][A-Za-z0-9_.-]{0,80}\}$/, // {token}
  /^#\{[^}]{0,120}\}$/, // #{ruby}
  /^@[A-Za-z_][A-Za-z0-9_]{0,80}@$/, // @TOKEN@
  /^__[A-Z0-9_]{1,80}__$/, // __TOKEN__
  /^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|env|ENV|secrets|vars|inputs|settings|config)\b/,
  /\$\{[A-Za-z_]/, // a template anywhere: `${process.platform} ${arch}`
  /^(?:%[-+ #0-9.]*[sdrxXfgi]|\{[0-9]*\}|[:@/ ])+$/, // printf / format strings: %s, %s:%s, {}:{}
  /^%\([A-Za-z_][A-Za-z0-9_]*\)[sdr]$/, // %(password)s
  /^\{[0-9]*\}$/, // {} {0}
  /^[a-z][a-z0-9+.-]{1,20}:\/\//i, // a URL: its userinfo, if any, is the URL rule's business
]

/** Words that, anywhere in a value, mark it as documentation rather than a credential. */
const PLACEHOLDER_WORD_RE =
  /example|placeholder|change[_-]?me|change[_-]?it|replace[_-]?(?:me|with|this)|dummy|redacted|insert[_-]?(?:here|your)|goes[_-]?here|[_-]here$|your[_-]?(?:own[_-]?)?(?:api|access|secret|auth|bot|app|personal|private|token|key|pass|pat|client|db|database|github|gitlab|npm|slack|stripe|openai|anthropic|aws)|^your[_-]|^my[_-]?(?:api|secret|token|key|pass)|^(?:test|fake|dummy|sample|mock|bogus)[_-]/i

/** Runs that only appear in hand-written stand-ins: `xxxx`, `****`, `....`, `••••`, `…`, `<`, `>`. */
const PLACEHOLDER_RUN_RE = /x{5,}|X{5,}|\*{3,}|\.{3}|…|•{2,}|#{4,}|_{5,}|0{8,}|<[^>]{0,60}>/

/**
 * A placeholder, template or already-masked value: `${TOKEN}`, `$TOKEN`, `{{ secrets.X }}`, `<your-token>`,
 * `YOUR_API_KEY`, `xxxx`, `***`, `changeme`, `example`, the mask itself. Used by every rule.
 */
export function isPlaceholder(v: string, mask: string): boolean {
  if (v.length === 0) return true
  for (const re of TEMPLATE_RES) if (re.test(v)) return true
  if (/^(.)\1*$/.test(v)) return true // aaaa, 1111
  if (/^[xX*•._#-]+$/.test(v)) return true
  if (isStopword(v)) return true
  if ((mask && v.includes(mask)) || v.includes('REDACTED') || v.includes('[MASKED]') || PLACEHOLDER_WORD_RE.test(v) || PLACEHOLDER_RUN_RE.test(v)) {
    return !secretResidue(v, mask, 8)
  }
  return false
}

const PLACEHOLDER_WORD_G = new RegExp(PLACEHOLDER_WORD_RE.source, 'gi')
const PLACEHOLDER_RUN_G = new RegExp(PLACEHOLDER_RUN_RE.source, 'g')
const TOKEN_STANDIN_RE = /example|placeholder|redacted|your[_-]?(?:api|token|key|secret)|x{6,}|X{6,}|\*{3,}|\.{3}|…|0{10,}|(?:1234567890){2}|(?:abcdef){3}|(?:ABCDEF){3}/gi

/**
 * Whether a value that holds a stand-in word or run (`changeme`, `EXAMPLE`, `xxxx`, `<…>`, the mask) still carries a
 * generated-looking remainder once those are cut out: `changeme-Xk39fLq2` is a real value that merely contains a
 * stand-in, `your-openai-api-key-here` is not. `min` is the shortest remainder that counts.
 */
export function secretResidue(v: string, mask: string, min: number, standIns: RegExp = PLACEHOLDER_WORD_G): boolean {
  let r = v.length > 1024 ? v.slice(0, 1024) : v
  if (mask) r = r.split(mask).join(' ')
  r = r
    .replace(/\[(?:REDACTED|MASKED)\]|REDACTED/g, ' ')
    .replace(standIns, ' ')
    .replace(PLACEHOLDER_RUN_G, ' ')
  // The longest remaining run decides: stand-ins split a value into pieces, and a secret is one unbroken piece.
  let best = ''
  for (const piece of r.split(/[^A-Za-z0-9+/=_~-]+/)) if (piece.length > best.length) best = piece
  return looksRandom(best, min)
}

/**
 * A provider token's lighter placeholder test: its shape already matched, so only stand-ins count
 * (`ghp_xxxx…`, `AKIA…EXAMPLE`, `sk-...`, low-entropy fillers, the mask) — unless a generated-looking remainder of
 * 16+ characters survives once they are cut out (a real token that merely contains `EXAMPLE`).
 */
export function isTokenPlaceholder(v: string, mask: string): boolean {
  if ((mask && v.includes(mask)) || TOKEN_STANDIN_RE.test(v)) {
    TOKEN_STANDIN_RE.lastIndex = 0
    return !secretResidue(v.replace(/^[A-Za-z]{2,8}[_-]/, ''), mask, 16, TOKEN_STANDIN_RE)
  }
  TOKEN_STANDIN_RE.lastIndex = 0
  // Hand-typed fillers (`aaaa…`, `1234…`) have a far lower entropy than any generated key of the same length.
  const body = v.length > 12 ? v.slice(Math.min(8, v.length >> 2)) : v
  return body.length >= 16 && shannon(body) < 2.6
}

/** A value that is a file path, not a credential (`~/.ssh/id_rsa`, `/run/secrets/db`, `./key.pem`, `C:\keys\a.pfx`). */
export function isPathLike(v: string): boolean {
  if (/^(?:~|\.{1,2})?\/[\w.@~+-]/.test(v) && !/^\/\//.test(v)) return /^[\w./@~+-]+$/.test(v)
  if (/^[A-Za-z]:\\/.test(v)) return true
  if (/^[\w.-]+\/[\w./-]+\.(?:pem|key|p12|pfx|json|txt|crt|der|jks|keystore|gpg|asc|env)$/i.test(v)) return true
  if (/^[\w-]+\.(?:pem|key|p12|pfx|crt|der|jks|keystore|gpg|asc)$/i.test(v)) return true
  return false
}

/**
 * An unquoted value that reads like code, not a literal: `process.env.X`, `config.db.password`, `getToken()`,
 * `ENV["X"]`, `hashedPassword` (camelCase identifier, or one that repeats the name's own keyword), `&token`.
 */
export function isCodeReference(v: string, keyword: string): boolean {
  if (/[()[\]{}]/.test(v)) return true
  if (/^[&*@!]/.test(v)) return true
  if (/^[A-Za-z_$][\w$]*(?:(?:\??\.|->|::)[A-Za-z_$][\w$]*)+[;,]?$/.test(v)) return true // dotted path, a?.b
  if (keyword && v.toLowerCase().includes(keyword)) return /^[A-Za-z_$][\w$.?-]*[;,]?$/.test(v)
  if (/^[a-z]+(?:[A-Z][a-z]+)+[0-9]{0,2}[;,]?$/.test(v)) return true // camelCase identifier made of words
  if (/^[a-z]+(?:_[a-z]+)+[;,]?$/.test(v)) return true // snake_case identifier
  return false
}
