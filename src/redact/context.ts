/**
 * Context rules: secrets recognisable by what surrounds them rather than by their own shape. The value is masked
 * and its context kept (`DB_PASSWORD=[REDACTED]`, `postgres://app:[REDACTED]@db`, `Authorization: Bearer [REDACTED]`,
 * `--password=[REDACTED]`). Covers URL userinfo, auth headers, CLI flags (long flags, `mysql -pX`, `sshpass -p`,
 * `redis-cli -a`, `curl -u`), signed-URL and Azure connection-string parts, `.netrc`, `.env`/`export` lines and
 * generic `name: value` / `"name": "value"` / `name = "value"` assignments to secret-like names.
 * @module dsh-knowledge-sync/redact/context
 */
import { charClasses, isCodeReference, isPathLike, isPlaceholder, isStopword, isWordLike, looksRandom, shannon } from './allow.js'
import { isEscapeLetter, lineEnd, lineStart, PRIORITY, readValue, skipSpaces, type Span, type ValueMode, type ValueRead } from './scan.js'

/** All context-rule spans in `text`. */
export function scanContext(text: string, mask: string, out: Span[]): void {
  if (text.includes('://')) scanUrlUserinfo(text, mask, out)
  scanHeaders(text, mask, out)
  if (text.includes('-')) {
    scanLongFlags(text, mask, out)
    scanCommandFlags(text, mask, out)
  }
  if (text.includes('=')) scanSignedParams(text, mask, out)
  if (text.includes('machine')) scanNetrc(text, mask, out)
  if (text.includes('value=')) scanKeyValueAttributes(text, mask, out)
  scanAssignments(text, mask, out)
}

function push(out: Span[], start: number, end: number, family: string, priority: number): void {
  if (end > start) out.push({ start, end, family, priority })
}

// ---------------------------------------------------------------------------------------------------------------
// URL userinfo: scheme://user:password@host

const AUTHORITY_RE = /:\/\/([^\s/?"'<>\\]{1,400})/g
const URL_TAIL_RE = /[^\s"'<>\\]{0,256}?@/y

/**
 * `scheme://user:password@host`: the authority runs to the first `/` or `?` (a raw `#` is kept: typed passwords
 * hold one) and its userinfo ends at the LAST `@` (as WHATWG URL parsing does), so `p@ss` passwords are masked whole.
 * A password holding a raw `/` (invalid, but typed) is still caught when an `@` follows on the same token and the
 * part before `/` is not a port number. `abc:xyz@example.com` style illustrations are left alone.
 */
function scanUrlUserinfo(text: string, mask: string, out: Span[]): void {
  AUTHORITY_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let nextAt = -2 // cached index of the next '@' (many authorities without one must not rescan the text)
  while ((m = AUTHORITY_RE.exec(text)) !== null) {
    const authStart = m.index + 3
    const auth = m[1]
    const at = auth.lastIndexOf('@')
    let pwStart: number, pwEnd: number
    if (at > 0) {
      const colon = auth.indexOf(':')
      if (colon === -1 || colon > at) continue
      pwStart = authStart + colon + 1
      pwEnd = authStart + at
    } else {
      const colon = auth.indexOf(':')
      if (colon === -1) continue
      const afterAuth = authStart + auth.length
      const head = auth.slice(colon + 1)
      if (text[afterAuth] !== '/' || !head || /^[0-9]{1,5}$/.test(head)) continue
      if (nextAt === -2 || (nextAt !== -1 && nextAt < afterAuth)) nextAt = text.indexOf('@', afterAuth)
      if (nextAt === -1 || nextAt - afterAuth > 256) continue
      URL_TAIL_RE.lastIndex = afterAuth
      const t = URL_TAIL_RE.exec(text)
      if (!t) continue
      pwStart = authStart + colon + 1
      pwEnd = afterAuth + t[0].length - 1
    }
    const pw = text.slice(pwStart, pwEnd)
    if (!pw || pw.length < 3 || isUrlPlaceholder(pw, mask)) continue
    // Documentation hosts (RFC 2606): `https://abc:xyz@example.com` is an illustration, unless the password
    // itself looks generated (a real one pasted with an anonymised host must still be masked).
    const host = /^[^\s/?#:"'<>\\]{1,253}/.exec(text.slice(pwEnd + 1, pwEnd + 260))?.[0] ?? ''
    if (/(?:^|\.)example\.(?:com|org|net)$|\.(?:example|test|invalid)$/i.test(host) && !(pw.length >= 8 && /[0-9]/.test(pw))) continue
    push(out, pwStart, pwEnd, 'url-password', PRIORITY.context)
  }
}

function isUrlPlaceholder(pw: string, mask: string): boolean {
  if (isPlaceholder(pw, mask)) return true
  return /^(?:pass(?:word)?|pwd|pw|secret|token|user|username|x-oauth-basic|x-access-token|xyz|abc|123|1234|12345|test|demo)$/i.test(pw)
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP auth headers and bare bearer tokens

const HEADER_RE =
  /(?:authorization|proxy-authorization|x-api-key|x-apikey|api-key|x-auth-token|x-access-token|x-token|private-token|job-token|deploy-token|x-goog-api-key|circle-token|x-vault-token|x-figma-token|x-shopify-access-token|ocp-apim-subscription-key|x-functions-key|x-rapidapi-key|x-algolia-api-key|x-gitlab-token|x-dsh-token)\\{0,3}["']?\]?[ \t]{0,4}[:=,][ \t]{0,4}/gi
const SCHEME_RE = /(bearer|basic|token|bot|digest|apikey|api-key|key|sso-key|otoken|negotiate|ntlm|hmac|aws4-hmac-sha256|dsn|ssws|splunk)[ \t]{1,4}/iy
const BEARER_RE = /[Bb]earer[ \t]{1,4}([A-Za-z0-9._~+/-]{12,8192}=*)/g
const HEADER_VALUE_RE = /[^\s"'\\,;]{1,8192}/y

/** A header value that reads like a credential, not a word of prose ("Authorization: Bearer header"). */
function credentialish(v: string): boolean {
  if (v.length < 6 || isStopword(v) || (isWordLike(v) && v.length < 20)) return false
  const c = charClasses(v)
  return c.digit || c.symbol || (c.lower && c.upper) || v.length >= 20
}

/** `Authorization: Bearer x`, `X-Api-Key: x`, `-H "Private-Token: x"`, `{"Authorization": "Basic x"}`, `Bearer x`. */
function scanHeaders(text: string, mask: string, out: Span[]): void {
  HEADER_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = HEADER_RE.exec(text)) !== null) {
    // Left boundary in code: a leading lookbehind would slow the scan of every position of the text.
    if (m.index > 0 && /[A-Za-z0-9_-]/.test(text[m.index - 1])) { HEADER_RE.lastIndex = m.index + 1; continue }
    let i = m.index + m[0].length
    // An opening quote of the value (possibly escaped).
    let k = 0
    while (k < 4 && text[i + k] === '\\') k++
    const quoted = text[i + k] === '"' || text[i + k] === "'"
    if (quoted) i += k + 1
    SCHEME_RE.lastIndex = i
    const sm = SCHEME_RE.exec(text)
    let scheme = ''
    if (sm) { scheme = sm[1].toLowerCase(); i += sm[0].length }
    const sepChar = m[0].trimEnd().slice(-1)
    let start = i, end: number
    if (/^(?:digest|negotiate|ntlm|aws4-hmac-sha256|hmac)$/.test(scheme)) {
      // Multi-part schemes: mask to the end of the quoted value or line.
      end = lineEnd(text, i, 8192)
      for (let j = i; j < end; j++) if (text[j] === '"' || text[j] === "'") { end = j; break }
      while (end > start && text[end - 1] === '\\') end--
    } else {
      HEADER_VALUE_RE.lastIndex = i
      const v = HEADER_VALUE_RE.exec(text)
      if (!v) continue
      end = i + v[0].length
    }
    const value = text.slice(start, end)
    if (!value || !credentialish(value) || isPlaceholder(value, mask)) continue
    // `headers["Authorization"] = build_header(…)`: in code, an unquoted value without a scheme is an expression.
    if (!quoted && !scheme && (sepChar === '=' || sepChar === ',') && (isCodeReference(value, '') || /[()[\]]/.test(text.slice(end, end + 1)))) continue
    push(out, start, end, 'auth-header', PRIORITY.context)
    HEADER_RE.lastIndex = Math.max(HEADER_RE.lastIndex, end)
  }
  if (!text.includes('earer')) return
  BEARER_RE.lastIndex = 0
  while ((m = BEARER_RE.exec(text)) !== null) {
    // Left boundary checked here, not as a leading lookbehind (which slows the scan of every position).
    if (m.index > 0 && /[A-Za-z0-9_-]/.test(text[m.index - 1])) { BEARER_RE.lastIndex = m.index + 1; continue }
    const v = m[1]
    if (isPlaceholder(v, mask) || !looksRandom(v, 12)) continue
    const s = m.index + m[0].length - v.length
    push(out, s, s + v.length, 'auth-header', PRIORITY.context)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Command-line flags

const LONG_FLAG_RE =
  /(?<![A-Za-z0-9_-])--?((?:[A-Za-z0-9]{1,20}[-_]){0,3}(?:password|passwd|pass|pwd|passphrase|token|secret|api[-_]?key|apikey|access[-_]?key|secret[-_]?key|auth[-_]?token|access[-_]?token|refresh[-_]?token|private[-_]?token|client[-_]?secret|storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass))(?![A-Za-z0-9_-])(=|[ \t]{1,4})/gi
const OPENSSL_PASS_RE = /(?<![A-Za-z0-9_-])-pass(?:in|out)?[ \t]{1,4}pass:/g
const CURL_USER_RE = /(?<![A-Za-z0-9_-])(?:-u|--user)(?:[ \t]{1,4}|=)/g

/** A flag's value: not the next flag, not a placeholder, not prose glue ("use --token to …"). */
function flagValueOk(v: string, spaced: boolean, mask: string): boolean {
  if (!v || v.startsWith('-') || !/[A-Za-z0-9]/.test(v) || isPlaceholder(v, mask)) return false
  if (spaced && (isStopword(v) || v.length < 3)) return false
  if (isPathLike(v)) return false
  return true
}

/** `--password=x`, `--password x`, `--token x`, `--api-key=x`, `-storepass x`, `-passin pass:x`, `curl -u user:pass`. */
function scanLongFlags(text: string, mask: string, out: Span[]): void {
  LONG_FLAG_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = LONG_FLAG_RE.exec(text)) !== null) {
    const i = m.index + m[0].length
    const spaced = m[2] !== '='
    // The next flag (`--token --token …`) or a command substitution is not a value; checked before any read.
    if (text[i] === '`' || text[i] === '-') continue
    const v = readValue(text, i, 'shell', 4096)
    if (!v || v.unclosed) continue
    const value = text.slice(v.start, v.end)
    if (!flagValueOk(value, spaced && !v.quoted, mask)) continue
    push(out, v.start, v.end, 'cli-flag', PRIORITY.context)
  }
  if (text.includes('pass:')) {
    OPENSSL_PASS_RE.lastIndex = 0
    while ((m = OPENSSL_PASS_RE.exec(text)) !== null) {
      const v = readValue(text, m.index + m[0].length, 'shell', 1024)
      if (v && !isPlaceholder(text.slice(v.start, v.end), mask)) push(out, v.start, v.end, 'cli-flag', PRIORITY.context)
    }
  }
  CURL_USER_RE.lastIndex = 0
  while ((m = CURL_USER_RE.exec(text)) !== null) {
    const ls = lineStart(text, m.index, 600)
    if (!/\b(?:curl|wget|http|https|xh|httpie)\b/.test(text.slice(ls, m.index))) continue
    const v = readValue(text, m.index + m[0].length, 'shell', 1024)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    const colon = value.indexOf(':')
    if (colon <= 0 || colon === value.length - 1) continue
    const pw = value.slice(colon + 1)
    if (isPlaceholder(pw, mask)) continue
    push(out, v.start + colon + 1, v.end, 'cli-flag', PRIORITY.context)
  }
}

/** Short password flags that only mean "password" for particular commands. `attached`: `-pX`; `spaced`: `-p X`. */
const COMMANDS: Array<{ re: RegExp; flag: string; attached: boolean; spaced: boolean; needs?: RegExp }> = [
  { re: /^(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|mycli)$/, flag: 'p', attached: true, spaced: false },
  { re: /^sshpass$/, flag: 'p', attached: true, spaced: true },
  { re: /^redis-cli$/, flag: 'a', attached: true, spaced: true },
  { re: /^(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)$/, flag: 'p', attached: true, spaced: true },
  { re: /^(?:sqlcmd|bcp)$/, flag: 'P', attached: true, spaced: true },
  { re: /^(?:zip|unzip)$/, flag: 'P', attached: false, spaced: true },
  { re: /^7za?$/, flag: 'p', attached: true, spaced: false },
  { re: /^(?:docker|podman|nerdctl|buildah|helm|skopeo|oras)$/, flag: 'p', attached: true, spaced: true, needs: /\blogin\b/ },
]
const COMMAND_RE = /(?<![A-Za-z0-9_.\/-])(mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|mycli|sshpass|redis-cli|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|sqlcmd|bcp|zip|unzip|7z|7za|docker|podman|nerdctl|buildah|helm|skopeo|oras)(?![A-Za-z0-9_-])/g
const SHORT_FLAG_RE = /(?<=[ \t])-([pPa])/g // run on a segment that starts right after the command word

/**
 * `mysql -uroot -pS3cret`, `sshpass -p pw ssh …`, `redis-cli -a pw`, `docker login -u x -p pw`, `sqlcmd -P pw`.
 * Each command word owns the text up to the next command word, line break, pipe or command separator (at most
 * 1000 characters), so the segments are disjoint and the scan stays linear even on a line of nothing but commands.
 */
function scanCommandFlags(text: string, mask: string, out: Span[]): void {
  COMMAND_RE.lastIndex = 0
  let prev: { name: string; end: number } | null = null
  let m: RegExpExecArray | null
  // Each command is handled once the next one (or the end of the text) bounds its segment.
  while ((m = COMMAND_RE.exec(text)) !== null) {
    if (prev) commandSegment(text, prev.name, prev.end, m.index, mask, out)
    prev = { name: m[1], end: m.index + m[0].length }
  }
  if (prev) commandSegment(text, prev.name, prev.end, text.length, mask, out)
}

/** The short password flag of one command, between the command word and `bound`. */
function commandSegment(text: string, name: string, segStart: number, bound: number, mask: string, out: Span[]): void {
  const spec = COMMANDS.find((x) => x.re.test(name))
  if (!spec) return
  let segEnd = Math.min(text.length, segStart + 1000, bound)
  segEnd = Math.min(segEnd, lineEnd(text, segStart, segEnd - segStart))
  const seg = text.slice(segStart, segEnd)
  const cut = seg.search(/[|;]|&&/)
  const segment = cut === -1 ? seg : seg.slice(0, cut)
  if (spec.needs && !spec.needs.test(segment)) return
  segEnd = segStart + segment.length
  SHORT_FLAG_RE.lastIndex = 0
  let f: RegExpExecArray | null
  while ((f = SHORT_FLAG_RE.exec(segment)) !== null) {
    if (f[1] !== spec.flag) continue
    const after = segStart + f.index + 2
    const next = text[after]
    let v = null
    let spaced = false
    if (after < segEnd && next !== ' ' && next !== '\t') {
      if (!spec.attached || next === '`') continue
      v = readValue(text, after, 'shell', 1024)
    } else {
      if (!spec.spaced) continue
      const j = skipSpaces(text, after, 4)
      if (j >= segEnd) continue
      v = readValue(text, j, 'shell', 1024)
      spaced = true
    }
    if (!v || v.end > segEnd + 1 || v.unclosed) continue
    const value = text.slice(v.start, v.end)
    if (!flagValueOk(value, spaced && !v.quoted, mask)) continue
    push(out, v.start, v.end, 'cli-flag', PRIORITY.context)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Connection-string and signed-URL parameters

const PARAM_RE = /(AccountKey|SharedAccessKey|SharedSecretValue|SharedAccessSignature|sig|X-Amz-Signature|X-Amz-Security-Token|X-Goog-Signature|Signature)=/gi
const PARAM_VALUE_RE = /[A-Za-z0-9%+/=._~-]{16,4096}(?![^\s;&"'<>\\,)])/y
const PARAM_FAMILY: Record<string, string> = {
  accountkey: 'azure',
  sharedaccesskey: 'azure',
  sharedsecretvalue: 'azure',
  sharedaccesssignature: 'azure',
  sig: 'azure',
  'x-amz-signature': 'aws',
  'x-amz-security-token': 'aws',
  'x-goog-signature': 'signed-url',
  signature: 'signed-url',
}

/** `AccountKey=…;` (Azure storage), `SharedAccessKey=…` (Service Bus), `?sig=…` (SAS), `X-Amz-Signature=…`. */
function scanSignedParams(text: string, mask: string, out: Span[]): void {
  PARAM_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PARAM_RE.exec(text)) !== null) {
    if (m.index > 0 && !/[?&;,\s"']/.test(text[m.index - 1])) { PARAM_RE.lastIndex = m.index + 1; continue }
    const i = m.index + m[0].length
    PARAM_VALUE_RE.lastIndex = i
    const v = PARAM_VALUE_RE.exec(text)
    if (!v || isPlaceholder(v[0], mask) || shannon(v[0]) < 3) continue
    push(out, i, i + v[0].length, PARAM_FAMILY[m[1].toLowerCase()] ?? 'azure', PRIORITY.context)
  }
}

const KEY_VALUE_ATTR_RE = /(?<![A-Za-z0-9_-])(?:key|name)[ \t]*=[ \t]*(\\?["'])([A-Za-z0-9_.:-]{1,80})\1[ \t]+value[ \t]*=[ \t]*/g

/** .NET/Java XML settings: `<add key="StorageKey" value="…"/>`, `<property name="db.password" value="…"/>`. */
function scanKeyValueAttributes(text: string, mask: string, out: Span[]): void {
  KEY_VALUE_ATTR_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = KEY_VALUE_ATTR_RE.exec(text)) !== null) {
    const cls = classify(m[2])
    if (!cls) continue
    const v = readValue(text, m.index + m[0].length, 'inline', 4096)
    if (!v || !v.quoted) continue
    const value = text.slice(v.start, v.end)
    if (!acceptValue(value, cls.kind, cls.keyword, true, false, false, mask)) continue
    push(out, v.start, v.end, 'generic-secret', PRIORITY.generic)
  }
}

const NETRC_RE = /(?<![A-Za-z0-9_-])password[ \t]+(?=[^\s])/g

/** `.netrc`: `machine host login me password s3cret` (same line or following lines). */
function scanNetrc(text: string, mask: string, out: Span[]): void {
  NETRC_RE.lastIndex = 0
  let m: RegExpExecArray | null
  // The last `machine` keyword before each hit, found by one forward walk (not a look-back per hit).
  let lastMachine = -1
  let nextMachine = text.indexOf('machine')
  while ((m = NETRC_RE.exec(text)) !== null) {
    while (nextMachine !== -1 && nextMachine < m.index) {
      if (!/[A-Za-z0-9_]/.test(text[nextMachine - 1] ?? ' ') && /\s/.test(text[nextMachine + 7] ?? '')) lastMachine = nextMachine
      nextMachine = text.indexOf('machine', nextMachine + 7)
    }
    if (lastMachine === -1 || m.index - lastMachine > 300) continue
    const v = readValue(text, m.index + m[0].length, 'shell', 1024)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    if (isPlaceholder(value, mask)) continue
    push(out, v.start, v.end, 'generic-secret', PRIORITY.generic)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Assignments to secret-like names: .env, export, YAML, JSON, code, INI, query strings, XML

const KEYWORD_RE = /pass|pw|secret|token|key|auth|cred/gi
const MAX_NAME = 80
/** Names judged inside one value before the rest of it is skipped (real command lines nest a few, not dozens). */
const NESTED_MAX = 2

/** `[A-Za-z0-9_.-]` by char code. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45
}

/** How strongly a name says "secret", which sets how much evidence its value needs. */
type Kind = 'password' | 'secret' | 'weak'

const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'pw', 'passcode', 'pswd', 'passwort', 'userpassword', 'dbpassword'])
const PASS_PREFIXES = new Set(['db', 'database', 'user', 'admin', 'root', 'mysql', 'postgres', 'pg', 'redis', 'smtp', 'mail', 'email', 'ftp', 'sftp', 'ssh', 'ldap', 'proxy', 'basic', 'http', 'login', 'app', 'api', 'rabbit', 'rabbitmq', 'amqp', 'mongo', 'mq', 'sql', 'vnc', 'wifi', 'wlan', 'key', 'store', 'keystore', 'truststore', 'cert', 'master', 'sa'])
const SECRET_TAILS = new Set(['secret', 'token', 'apikey', 'accesskey', 'secretkey', 'privatekey', 'authtoken', 'accesstoken', 'refreshtoken', 'clientsecret', 'credential', 'credentials', 'creds', 'bearertoken', 'sessiontoken', 'apitoken', 'apisecret', 'masterkey', 'signingkey', 'encryptionkey'])
const KEY_PREFIXES = new Set(
  ('api access secret private signing sign encryption encrypt master auth client app application license licence consumer ' +
    'service account session shared webhook deploy admin root storage subscription integration hmac jwt crypt cipher aes ' +
    'bot server write read mgmt management rest secure security gpg pgp tls ssl x509 rsa ec ed25519 dkim recaptcha captcha ' +
    'stripe sendgrid mailgun twilio openai anthropic deepseek google gemini mapbox maps algolia firebase pusher sentry ' +
    'datadog dd newrelic segment mixpanel cloudflare cf heroku netlify vercel supabase openrouter mistral cohere groq ' +
    'together replicate hf huggingface pinecone elastic grafana jira atlassian notion linear figma airtable shopify ' +
    'paypal braintree plaid coinbase binance smtp mail email db database redis wallet moonshot qwen dashscope zhipu ' +
    'azure aws gcp do linode hetzner s3secret cosmos cosmosdb search translator speech vision openweather weather').split(' '),
)
const NOT_SECRET_KEY_PREFIXES = new Set(
  ('public pub primary foreign sort partition idempotency i18n translation hash host s3 object bucket cache lookup map ' +
    'dict item row column field message label list react group route query search keyboard shortcut hot modifier press ' +
    'unique composite range index dedup dedupe lock event metric feature flag experiment kid ssh known publishable').split(' '),
)
const NOT_SECRET_TOKEN_PREFIXES = new Set(
  ('next page pagination continuation sync cancellation cancel max min input output total prompt completion end start ' +
    'eos bos pad unk sep cls mask special stop num count first last prev previous cursor resume lexer parse parser design ' +
    'css color theme word sentence reasoning cached cache image audio text tool').split(' '),
)
const NOT_SECRET_SECRET_PREFIXES = new Set(['is', 'has', 'no', 'use', 'sealed', 'external', 'top', 'dirty', 'little', 'kube', 'k8s'])
const IGNORABLE_SUFFIX = /^(?:b64|base64|hex|value|val|raw|base|str|txt|enc|encoded|plain|plaintext|v?[0-9]{1,3}|prod|production|dev|staging|live|test)$/

/** Splits `dbPassword`, `DB_PASSWORD`, `db.password`, `x-api-key` into lowercase words. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.\-]+/)
    .filter(Boolean)
}

type Classification = { kind: Kind; keyword: string; special?: string } | null
const CLASSIFY_CACHE = new Map<string, Classification>()

/** Whether a name (`DB_PASSWORD`, `apiKey`, `x-auth-token`) announces a credential; used by the forms rules. */
export function isCredentialName(name: string): boolean {
  return classify(name) !== null
}

/** {@link classifyName}, memoised: the same few names recur thousands of times in big inputs. */
function classify(name: string): Classification {
  let c = CLASSIFY_CACHE.get(name)
  if (c === undefined) {
    c = classifyName(name)
    if (CLASSIFY_CACHE.size >= 4096) CLASSIFY_CACHE.clear()
    CLASSIFY_CACHE.set(name, c)
  }
  return c
}

/** The kind of secret a name announces, and the keyword a code reference would repeat; null: not secret-like. */
function classifyName(name: string): Classification {
  const lower = name.toLowerCase()
  if (lower === 'private_key_id' || lower === 'privatekeyid') return { kind: 'secret', keyword: 'key', special: 'gcp-service-account' }
  if (lower === '_authtoken' || lower === '_auth' || lower === '_password') return { kind: 'secret', keyword: 'auth', special: 'npm' }
  const words = nameWords(name)
  while (words.length > 1 && IGNORABLE_SUFFIX.test(words[words.length - 1])) words.pop()
  // A numbered name (`token1`, `sumoKey2`) is the same kind of name.
  if (words.length && /^[a-z]{2,}[0-9]{1,3}$/.test(words[words.length - 1])) words[words.length - 1] = words[words.length - 1].replace(/[0-9]+$/, '')
  const last = words[words.length - 1]
  const prev = words.length > 1 ? words[words.length - 2] : ''
  if (!last) return null
  const aws = words.includes('aws')
  if (PASSWORD_WORDS.has(last) || /^[a-z]{2,12}(?:password|passwd)$/.test(last)) return { kind: 'password', keyword: last === 'pw' || last === 'pwd' ? 'pw' : 'pass' }
  if (last === 'pass') return !prev || PASS_PREFIXES.has(prev) ? { kind: 'password', keyword: 'pass' } : null
  if (SECRET_TAILS.has(last) || /^[a-z]{2,12}(?:token|secret|apikey|secretkey|accesskey|privatekey)$/.test(last)) {
    if (last === 'token' && NOT_SECRET_TOKEN_PREFIXES.has(prev)) return null
    if (last === 'secret' && NOT_SECRET_SECRET_PREFIXES.has(prev)) return null
    const keyword = last.includes('token') ? 'token' : last.includes('secret') ? 'secret' : last.includes('cred') ? 'cred' : 'key'
    return { kind: 'secret', keyword, special: aws && /secret/.test(last) ? 'aws' : undefined }
  }
  if (last === 'key') {
    // A bare `key` is a credential only with a key-shaped value that is not a hash or an id (see acceptValue).
    if (!prev) return { kind: 'weak', keyword: 'key', special: 'bare' }
    if (NOT_SECRET_KEY_PREFIXES.has(prev)) return null
    if (KEY_PREFIXES.has(prev)) return { kind: 'secret', keyword: 'key', special: aws && words.includes('secret') ? 'aws' : undefined }
    return { kind: 'weak', keyword: 'key' }
  }
  if (last === 'auth' || last === 'cookie' || last === 'sessionid' || last === 'dsn') return { kind: 'weak', keyword: last }
  return null
}

/** Where a separator sits after a name, what it is, whether spaces surround it, and whether the name was quoted. */
interface Sep { valueAt: number; sep: '=' | ':' | '>'; spaced: boolean; spacedAfter: boolean; nameQuoted: boolean }

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
function acceptValue(value: string, kind: Kind, keyword: string, quoted: boolean, trailing: boolean, env: boolean, mask: string, code = false, spacedEquals = false): boolean {
  // Length floors first (cheap): every kind below needs at least this many characters.
  if (value.length < (kind === 'password' ? 3 : kind === 'secret' ? 6 : 16)) return false
  // A bare stopword (`password: password`) is rejected before the placeholder patterns run.
  if (value.length <= 16 && isStopword(value)) return false
  if (isPlaceholder(value, mask) || !/[A-Za-z0-9]/.test(value)) return false
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
    if (quoted) return value.length >= 8 && (looksRandom(value) || (c.lower || c.upper) && !isWordLike(value))
    return looksRandom(value)
  }
  return looksRandom(value, 16) && shannon(value) >= 3.5
}

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
function scanAssignments(text: string, mask: string, out: Span[]): void {
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
    if (sep.sep === ':' && !sep.nameQuoted && !sep.spacedAfter && valueQuote !== '"' && valueQuote !== "'") continue
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
      if (++read.nested > NESTED_MAX) { KEYWORD_RE.lastIndex = Math.max(KEYWORD_RE.lastIndex, read.end); continue }
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
    push(out, v.start, end, family, priority)
    if (v.end > KEYWORD_RE.lastIndex) KEYWORD_RE.lastIndex = v.end
  }
}
