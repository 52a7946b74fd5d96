/**
 * Context rules for assignments to secret-like names: `.env` and `export` lines, YAML (with block scalars), JSON,
 * code (`const token = "…"`), INI, query strings and XML `key=… value=…` attributes. The value is masked only when
 * it looks like a secret for its kind of name (see `acceptValue`).
 * @module dsh-knowledge-sync/redact/assignments
 */
import { charClasses, isCodeReference, isPathLike, isPlaceholder, isStopword, isWordLike, looksRandom, shannon } from './allow.js'
import { isEscapeLetter, lineStart, PRIORITY, readValue, skipSpaces, pushSpan, type Span, type ValueMode, type ValueRead } from './scan.js'
import { classify, isNameChar, KEYWORD_RE, MAX_NAME, NESTED_MAX, type Kind } from './credential-names.js'

// ---------------------------------------------------------------------------------------------------------------
// Assignments to secret-like names: .env, export, YAML, JSON, code, INI, query strings, XML

const KEY_VALUE_ATTR_RE = /(?<![A-Za-z0-9_-])(?:key|name)[ \t]*=[ \t]*(\\?["'])([A-Za-z0-9_.:-]{1,80})\1[ \t]+value[ \t]*=[ \t]*/g

/** .NET/Java XML settings: `<add key="StorageKey" value="…"/>`, `<property name="db.password" value="…"/>`. */
export function scanKeyValueAttributes(text: string, mask: string, out: Span[]): void {
  KEY_VALUE_ATTR_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = KEY_VALUE_ATTR_RE.exec(text)) !== null) {
    const cls = classify(m[2])
    if (!cls) continue
    const v = readValue(text, m.index + m[0].length, 'inline', 4096)
    if (!v?.quoted) continue
    const value = text.slice(v.start, v.end)
    if (!acceptValue(value, cls.kind, cls.keyword, true, false, false, mask)) continue
    pushSpan(out, v.start, v.end, 'generic-secret', PRIORITY.generic)
  }
}

/** Where a separator sits after a name, what it is, whether spaces surround it, and whether the name was quoted. */
interface Sep {
  valueAt: number
  sep: '=' | ':' | '>'
  spaced: boolean
  spacedAfter: boolean
  nameQuoted: boolean
}

/** Reads `"? ]? **? <spaces> (= | : | := | => | ?=) <spaces>` after a name ending at `i`; null if none. */
function readSeparator(text: string, ns: number, i: number): Sep | null {
  const n = text.length
  // Closing quote of a quoted name, possibly escaped (`\"password\":`).
  let k = 0
  while (k < 4 && text.charCodeAt(i + k) === 92) k++
  const q = text[i + k]
  const nameQuoted = q === '"' || q === "'" || q === '`'
  if (nameQuoted) i += k + 1
  else if (k > 0) return null
  if (text[i] === ']') i++
  if (text[i] === '*' && text[i + 1] === '*') i += 2
  // XML element: <password>value</password>
  if (text[ns - 1] === '<' && text[i] === '>') return { valueAt: i + 1, sep: '>', spaced: false, spacedAfter: false, nameQuoted: false }
  const before = i
  i = skipSpaces(text, i, 4)
  const spacedBefore = i > before
  if (i >= n) return null
  const c = text[i]
  let sep: Sep['sep']
  if (c === '=') {
    const d = text[i + 1]
    if (d === '=' || d === '~') return null
    sep = '='
    i += d === '>' ? 2 : 1
  } else if (c === ':') {
    const d = text[i + 1]
    if (d === ':') return null
    sep = ':'
    i += d === '=' ? 2 : 1
  } else if (c === '?' && text[i + 1] === '=') {
    sep = '='
    i += 2
  } else if (c === '\uFF1A' || c === '\uFF1D') {
    // Full-width colon and equals (a Chinese or Japanese IME types these by default).
    sep = c === '\uFF1A' ? ':' : '='
    i += 1
  } else if (c === '-' && spacedBefore && text[i + 1] === ' ' && (text[i + 2] === '"' || text[i + 2] === "'")) {
    // `<vendor> token - 'value'` (log and listing style).
    sep = ':'
    i += 1
  } else {
    return null
  }
  const afterSep = i
  i = skipSpaces(text, i, 4)
  return { valueAt: i, sep, spaced: spacedBefore || i > afterSep, spacedAfter: i > afterSep, nameQuoted }
}

/** True when only indentation, a list dash or an opening quote precede `ns` on its line (a YAML/.env key). */
function atLineStart(text: string, ns: number): boolean {
  // Walk back over indentation only, so the cost is the indentation's length, not the line's.
  for (let j = ns - 1, steps = 0; j >= 0 && steps < 200; j--, steps++) {
    const c = text.charCodeAt(j)
    if (c === 10 || c === 13) return true
    if ((c === 110 || c === 114) && j > 0 && text.charCodeAt(j - 1) === 92 && isEscapeLetter(text, j)) return true
    if (c !== 32 && c !== 9 && c !== 45 && c !== 34 && c !== 39 && c !== 92) return false
  }
  return ns < 200
}

const EXPORT_RE = /(?:^|[\s;&|(])(?:export|set|setx|declare -x|ENV|ARG)[ \t]+$/
// A call or index glued to the value (`f(x)`, `a[0]`); after a space a bracket is the next word of a log line.
const FOLLOWED_BY_OPERATOR_RE = /(?:[ \t]*(?:=|&&|\|\||\?\?|\?[ \t]|[+*/%^]|-[ \t])|\(|\[|\.[A-Za-z_$])/y
const EXPORT_WORDS = new Set(['export', 'set', 'setx', 'x', 'ENV', 'ARG'])
const DECLARATION_WORDS = new Set(['const', 'let', 'var', 'val', 'final', 'auto', 'my', 'local', 'readonly', 'static', 'private', 'public', 'protected', 'def', 'fn', 'mut'])

/** The word (letters only, up to 12) before the spaces that end at `ns`; '' if none. */
function wordBefore(text: string, ns: number): string {
  let e = ns
  while (e > 0 && ns - e < 8 && (text.charCodeAt(e - 1) === 32 || text.charCodeAt(e - 1) === 9)) e--
  let b = e
  while (b > 0 && e - b < 12 && /[A-Za-z]/.test(text[b - 1])) b--
  return text.slice(b, e)
}
/** A code declaration before the name: its unquoted value is an expression, never a literal secret. */
const DECLARATION_RE = /(?:^|[\s;{(])(?:const|let|var|val|final|auto|my|local|readonly|static|private|public|protected|def|fn)[ \t]+(?:mut[ \t]+)?$/

const FUNCTION_WORDS = /^(?:the|a|an|is|are|be|must|should|to|of|for|in|on|at|with|by|from|and|or|not|as|it|this|that|your|you|will|can|see|used|use|if|when|no|only)$/i

/** Unquoted words that read as a sentence or a config list (`must be at least 12 characters`, `files systemd`). */
function isProse(value: string): boolean {
  const words = value.split(/\s+/).filter(Boolean)
  if (words.length < 2) return false
  if (words.some((w) => FUNCTION_WORDS.test(w.replace(/[.,;:!?]+$/, '')))) return true
  return words.every((w) => /^[a-z]+[.,;:]?$/.test(w))
}

/** Whether the value of one assignment is a secret: never for placeholders, code references, paths or prose. */
export function acceptValue(value: string, kind: Kind, keyword: string, quoted: boolean, trailing: boolean, env: boolean, mask: string, code = false, spacedEquals = false): boolean {
  // Length floors first (cheap): every kind below needs at least this many characters.
  if (value.length < (kind === 'password' ? 3 : kind === 'secret' ? 6 : 16)) return false
  // A bare stopword (`password: password`) is rejected before the placeholder patterns run.
  if (value.length <= 16 && isStopword(value)) return false
  if (isPlaceholder(value, mask) || !/[A-Za-z0-9]/.test(value) || CMDLET_RE.test(value)) return false
  if (code && !quoted) return false
  if (!quoted && !env) {
    // Code literals are quoted: an unquoted statement (`x = y;`) or expression (`a && b`, `A | B`) is a reference.
    if (value.includes(';') || /^:/.test(value) || /\s(?:=|&&|\|\||\?\??|:|\||<=?|>=?|===?|!==?|\+|-|\*|\/)\s/.test(value)) return false
    // Member access mixed with operators (`e.altKey?r.C0.ESC:r.C0.CR`) is minified code.
    if (/[A-Za-z_$]\.[A-Za-z_$]/.test(value) && /[?+*!]|[^:]:[^/]/.test(value)) return false
    // A type or keyword first (`password: bool = False`, `token: str`): a signature, not a value.
    if (isStopword(/^[^\s=,]*/.exec(value)![0])) return false
    if (/,$/.test(value)) {
      const bare = value.replace(/,+$/, '')
      if (!bare || isPlaceholder(bare, mask) || isCodeReference(bare, keyword) || /^[A-Z][A-Za-z0-9]*(?:<.*>)?(?:\[\])?$/.test(bare)) return false
      value = bare
    }
  }
  // A quoted identifier that repeats the name's keyword is a field or enum name (`CHALLENGE_PASSWORD: "challengePassword"`).
  if (quoted && keyword && isWordLike(value) && value.toLowerCase().includes(keyword)) return false
  if (quoted && /\s/.test(value)) {
    const words = value.split(/\s+/).filter(Boolean)
    const fw = words.filter((w) => FUNCTION_WORDS.test(w.replace(/[.,;:!?]+$/, ''))).length
    if (fw >= 2 || (fw >= 1 && words.length >= 4)) return false
  }
  // Shell and .env values are literals: a bare word there is never a reference to something else.
  if (!quoted && !env && isCodeReference(value, keyword)) return false
  if (isPathLike(value)) return false
  const c = charClasses(value)
  const numeric = /^[0-9]+$/.test(value)
  if (!quoted && /\s/.test(value) && isProse(value)) return false
  if (kind === 'password') {
    if (value.length < 3 || (numeric && value.length < 4)) return false
    // `pw = auth` is code (INI would allow it, but code is what transcripts are full of): letters alone are a name.
    if (spacedEquals && !quoted && !env && /^[A-Za-z_]+$/.test(value)) return false
    if (trailing) return value.length >= 6 && (c.digit || c.symbol) && !numeric
    return true
  }
  if (kind === 'secret') {
    if (numeric && value.length < 16) return false
    if (/^(?:true|false|on|off|yes|no|enabled|disabled|none|null)$/i.test(value)) return false
    if (env) return value.length >= 8 || (value.length >= 6 && c.digit)
    // Outside .env lines a generated secret almost always has a digit (a 16-char base62 token lacks one 6% of the
    // time); identifiers and words that happen to sit under a `*Token`/`*Key` name do not.
    if (!c.digit && !(value.length >= 24 && shannon(value) >= 4.2 && !isWordLike(value))) return false
    if (trailing) return looksRandom(value, 12)
    if (quoted) return value.length >= 8 && (looksRandom(value) || ((c.lower || c.upper) && !isWordLike(value)))
    return looksRandom(value)
  }
  return looksRandom(value, 16) && shannon(value) >= 3.5
}

/** The unquoted token right after `name:` looks generated: 8+ characters of three classes, not a word, path or URL. */
function gluedSecret(text: string, at: number, mask: string): boolean {
  const token = /^[^\s,;"'<>()[\]{}]{8,200}/.exec(text.slice(at, at + 201))?.[0]
  if (!token || isPlaceholder(token, mask) || isPathLike(token) || isWordLike(token) || token.includes('://')) return false
  return charClasses(token).count >= 3
}

/** A PowerShell cmdlet name (`ConvertTo-SecureString`, `Read-Host`): a command, never the secret it is assigned. */
const CMDLET_RE = /^(?:Add|Clear|Convert|ConvertFrom|ConvertTo|Copy|Export|Find|Get|Import|Invoke|New|Out|Read|Remove|Select|Set|Start|Stop|Test|Write)-[A-Z][A-Za-z]{1,40}$/

/** A bare `key`'s value must look generated and be neither a hash nor an id (`"key": "<md5>"` is a cache key). */
function bareKeyValue(value: string, mask: string): boolean {
  if (value.length < 20 || value.length > 512 || /\s/.test(value) || /^[0-9a-f-]+$/i.test(value) || isPlaceholder(value, mask)) return false
  return looksRandom(value, 20) && shannon(value) >= 3.5
}

/** The lines of a YAML block scalar (`key: |`) after `from`, indented deeper than the key. */
function yamlBlock(text: string, keyLineStart: number, from: number): { start: number; end: number } | null {
  let indent = 0
  while (text[keyLineStart + indent] === ' ' || text[keyLineStart + indent] === '-') indent++
  let i = from
  if (text[i] === '\r') i++
  if (text[i] !== '\n') return null
  i++
  const start = i
  let end = start
  const stop = Math.min(text.length, start + 64 * 1024)
  while (i < stop) {
    let sp = 0
    while (text[i + sp] === ' ') sp++
    const le = text.indexOf('\n', i)
    const lineStop = le === -1 ? text.length : le
    if (lineStop > i + sp && sp <= indent) break
    end = lineStop
    i = lineStop + 1
    if (le === -1) break
  }
  while (end > start && /\s/.test(text[end - 1])) end--
  return end > start ? { start: start + (text.slice(start, end).search(/\S/) >>> 0), end } : null
}

/**
 * Every `name <sep> value` where the name is secret-like. A cheap keyword pass finds candidates; the name is
 * expanded to its identifier, the separator checked before any classification (prose such as "the password field
 * is required" stops there), then the value is read escape-aware and judged: placeholders, templates, code
 * references and paths are never masked; password-like names need little else, token/secret/key names need an
 * entropy/character-class floor unless they are `.env`/`export` lines.
 */
export function scanAssignments(text: string, mask: string, out: Span[]): void {
  KEYWORD_RE.lastIndex = 0
  let m: RegExpExecArray | null
  // The last value read, and how many further names were judged inside it (`auth=auth=auth=…`): each read costs up
  // to the value's length, so after NESTED_MAX nested names the rest of that value is skipped (linear time).
  let read = { end: -1, nested: 0 }
  let nextLt = 0
  while ((m = KEYWORD_RE.exec(text)) !== null) {
    const p = m.index
    let ns = p
    while (ns > 0 && p - ns < MAX_NAME && isNameChar(text.charCodeAt(ns - 1))) {
      // `\nDB_PASSWORD`: the `n` belongs to an escape, not to the name.
      const c = text.charCodeAt(ns - 1)
      if ((c === 110 || c === 114 || c === 116) && ns >= 2 && text.charCodeAt(ns - 2) === 92 && isEscapeLetter(text, ns - 1)) break
      ns--
    }
    let ne = p + m[0].length
    while (ne < text.length && ne - p < MAX_NAME && isNameChar(text.charCodeAt(ne))) ne++
    KEYWORD_RE.lastIndex = ne
    while (ns < ne && (text[ns] === '-' || text[ns] === '.')) ns++
    let nameEnd = ne
    while (nameEnd > ns && (text[nameEnd - 1] === '.' || text[nameEnd - 1] === '-')) nameEnd--
    if (nameEnd - ns > MAX_NAME || nameEnd <= ns) continue
    const sep = readSeparator(text, ns, nameEnd)
    if (!sep) continue
    const opener = text[ns - 1]
    const valueQuote = text[sep.valueAt + (text[sep.valueAt] === '\\' ? 1 : 0)]
    // `'Password: '` — the name sits inside a string literal whose closing quote follows the separator.
    if ((opener === '"' || opener === "'") && !sep.nameQuoted && valueQuote === opener) continue
    // `passwd:dir`: without a space after ':' an unquoted name is not a YAML/JSON key (unless the value is quoted).
    // A full-width colon is no YAML, URL or `host:port` syntax; and a value that carries a secret's evidence (three
    // character classes, no word) is one even when glued to its name (`password:Xk9#mP2v`).
    if (sep.sep === ':' && !sep.nameQuoted && !sep.spacedAfter && valueQuote !== '"' && valueQuote !== "'" && text[sep.valueAt - 1] !== '\uFF1A' && !gluedSecret(text, sep.valueAt, mask)) continue
    const name = text.slice(ns, nameEnd)
    let cls = classify(name)
    // `adzuna KEY=…`, `API KEY = …`, `phrase token1 = '…'`: a one-word credential name owned by the word before it.
    if (text.charCodeAt(ns - 1) === 32 && /^[A-Za-z]+[0-9]{0,3}$/.test(name)) {
      let ob = ns - 1
      while (ob > 0 && ns - 1 - ob < 31 && /[A-Za-z0-9]/.test(text[ob - 1])) ob--
      const owner = ns - 1 - ob >= 2 && /[A-Za-z]/.test(text[ob]) && !/[A-Za-z0-9_.-]/.test(text[ob - 1] ?? ' ') ? text.slice(ob, ns - 1) : undefined
      if (owner && !isStopword(owner) && !FUNCTION_WORDS.test(owner)) cls = classify(owner + '_' + name) ?? cls
    }
    if (!cls) continue
    const lineHead = atLineStart(text, ns)
    // Both patterns end in a space or tab before the name: test that first (no slice for most names).
    const spaceBefore = text.charCodeAt(ns - 1) === 32 || text.charCodeAt(ns - 1) === 9
    // The word before the name decides; only when it is one of the keywords are the (slicing) patterns run.
    const before = spaceBefore ? wordBefore(text, ns) : ''
    const exported = before !== '' && EXPORT_WORDS.has(before) && EXPORT_RE.test(text.slice(Math.max(0, ns - 16), ns))
    const declared = before !== '' && DECLARATION_WORDS.has(before) && DECLARATION_RE.test(text.slice(Math.max(0, ns - 24), ns))
    const env = exported || (sep.sep === '=' && !sep.spaced && /^[A-Z_][A-Z0-9_]*$/.test(name))
    let mode: ValueMode
    if (sep.sep === '>') mode = 'inline'
    else if (sep.sep === '=' && !sep.spaced) mode = 'shell'
    else mode = lineHead ? 'line' : 'inline'
    const big = /private|cert|pem|credentials?$/i.test(name)
    if (sep.valueAt < read.end) {
      if (++read.nested > NESTED_MAX) {
        KEYWORD_RE.lastIndex = Math.max(KEYWORD_RE.lastIndex, read.end)
        continue
      }
    }
    let v: ValueRead | null
    if (sep.sep === '>') {
      // <password>value</password>: the element must close after the value (not `<CryptoKey>` in prose).
      // The value holds no `<`, so the closing tag is the next `<` (its position cached: many unclosed elements
      // must not each scan ahead).
      if (nextLt !== -1 && nextLt < sep.valueAt) nextLt = text.indexOf('<', sep.valueAt)
      if (nextLt <= sep.valueAt || nextLt - sep.valueAt > 4096 || !text.startsWith('</' + name + '>', nextLt)) continue
      v = { start: sep.valueAt, end: nextLt, quoted: true, trailing: false }
    } else {
      v = readValue(text, sep.valueAt, mode, big ? 64 * 1024 : 4096)
    }
    if (!v) continue
    if (sep.valueAt >= read.end) read = { end: v.end, nested: 0 }
    let value = text.slice(v.start, v.end)
    // An unquoted value followed by an operator is the start of an expression (`x = args => …`, `x = a && b`).
    FOLLOWED_BY_OPERATOR_RE.lastIndex = v.end
    if (!v.quoted && !env && FOLLOWED_BY_OPERATOR_RE.test(text)) continue
    // YAML block scalar: `password: |` followed by indented lines.
    if (!v.quoted && /^[|>][-+]?[0-9]?$/.test(value) && sep.sep === ':') {
      const block = yamlBlock(text, lineStart(text, ns, 200), v.end)
      if (!block) continue
      read.end = Math.max(read.end, block.end)
      v = { start: block.start, end: block.end, quoted: true, trailing: false }
      value = text.slice(v.start, v.end)
    }
    if (cls.special === 'bare' && !bareKeyValue(value, mask)) continue
    let family = cls.special && cls.special !== 'bare' ? cls.special : env ? 'env-assignment' : 'generic-secret'
    let priority: number = env ? PRIORITY.env : PRIORITY.generic
    if (cls.special === 'gcp-service-account') {
      if (!/^[0-9a-f]{16,64}$/i.test(value) || isPlaceholder(value, mask)) continue
      priority = PRIORITY.serviceAccount
    } else if (/^private_?key$/i.test(name) && value.includes('PRIVATE KEY')) {
      if (/\.\.\.|…|<[^>]*>|REDACTED/.test(value) || (mask && value.includes(mask))) continue
      family = 'gcp-service-account'
      priority = PRIORITY.serviceAccount
    } else if (cls.special === 'aws') {
      if (!acceptValue(value, cls.kind, cls.keyword, v.quoted, v.trailing, env, mask, declared)) continue
      if (/^[A-Za-z0-9/+]{40}$/.test(value)) priority = PRIORITY.provider
      else family = env ? 'env-assignment' : 'generic-secret'
    } else {
      if (!acceptValue(value, cls.kind, cls.keyword, v.quoted, v.trailing && mode !== 'line', env, mask, declared, sep.sep === '=' && sep.spaced)) continue
      // The bare name `pass` is as often a test status or a compiler pass as a password: it needs a non-word value.
      if (name.toLowerCase() === 'pass' && isWordLike(value) && !/[0-9]/.test(value)) continue
      if (cls.special === 'npm') priority = PRIORITY.context
    }
    // A code-style trailing comma (`token: abc123,`) stays visible.
    const end = !v.quoted && value.endsWith(',') ? v.start + value.replace(/,+$/, '').length : v.end
    pushSpan(out, v.start, end, family, priority)
    if (v.end > KEYWORD_RE.lastIndex) KEYWORD_RE.lastIndex = v.end
  }
}
