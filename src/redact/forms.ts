/**
 * The forms people really paste, by principle rather than one pattern per sighting:
 * - a credential word in any language with any separator, full-width ones included (`密码：x`, `PASSWORD＝x`,
 *   `令牌=x`, `パスワード: x`, `Passwort = x`), or plain prose that says what the value is (`the password is x`,
 *   `my password for the db is x`, `数据库密码 x 不对`, `我的 API key 是 x`, `Using token x`);
 * - a command-line option of any tool (`-u user -p x` in one command, `aws configure set <name> x`,
 *   `echo x | … --password-stdin`, `htpasswd -b file user x`, `ssh-keygen -P x`, `openssl enc -k x`);
 * - a positional slot of a credential API (`auth=("user", "x")`, `HTTPBasicAuth("user", "x")`, `smtp.login(u, "x")`);
 * - a field of a structured secret container (`.pgpass` lines, Terraform `variable "db_password" { default = "x" }`,
 *   fields of a `secrets`/`credentials` object or YAML block, `Cookie:`/`Set-Cookie:` session values);
 * - a value split by string concatenation (`"API_KEY=" + "x"`), and an encoded blob (base64) that decodes to text
 *   holding a credential.
 * Each value must still look like a credential (see {@link passwordShaped}, {@link keyShaped}): prose words, code
 * references, placeholders and paths are never masked.
 * @module dsh-knowledge-sync/redact/forms
 */
import { isPlaceholder, shannon } from './allow.js'
import { scanApiSlots, scanCommandLines } from './commands.js'
import { PRIORITY, type Span } from './scan.js'
import { keyShaped, passwordShaped, push, readLoose } from './shape.js'
import { trieSource } from './tokens.js'

export { keyShaped, passwordShaped } from './shape.js'

// ---------------------------------------------------------------------------------------------------------------
// Credential words in any language, any separator, and prose

const PASSWORD_WORD = /^(?:password|passwd|passphrase|pwd|passcode|密码|口令|暗码|パスワード|暗証番号|비밀번호|암호|passwort|kennwort|contraseña|contrasena|senha|mot de passe|пароль)$/i
const CRED_WORDS = [
  '密码',
  '口令',
  '密钥',
  '秘钥',
  '私钥',
  '令牌',
  '凭证',
  '凭据',
  '授权码',
  'パスワード',
  '暗証番号',
  'トークン',
  '秘密鍵',
  'シークレット',
  '비밀번호',
  '암호',
  '토큰',
  ...['api', 'access', 'secret'].flatMap((a) => ['', ' ', '_', '-'].map((sep) => a + sep + 'key')),
  ...['access', 'auth'].flatMap((a) => ['', ' ', '_', '-'].map((sep) => a + sep + 'token')),
  'password',
  'passwort',
  'passwd',
  'passphrase',
  'pwd',
  'token',
  'secret',
  'kennwort',
  'contraseña',
  'contrasena',
  'senha',
  'mot de passe',
  'пароль',
  'токен',
  'ключ',
]
/** Credential words in several languages, one trie-shaped alternation (see {@link trieSource}). */
const CRED_WORD_RE = new RegExp(trieSource(CRED_WORDS), 'gi')
/** A letter, digit, `_` or `-` (any script): a Latin or Cyrillic credential word must not sit inside a longer word. */
const WORD_CHAR = /[\p{L}\p{N}_-]/u
/** Before the word, `_` is allowed: an identifier whose last word is the credential word (`the_db_password is x`). */
const WORD_BEFORE = /[\p{L}\p{N}-]/u
/** After a non-ASCII word: an optional copula (`是`, `为`, `は`, `：`, `=`) and spaces. */
const CJK_SEP_RE = /[ \t\u3000]*(?:是|为|為|は|が|：|:|＝|=|->|→)?[ \t\u3000]*/uy
/** After any credential word: a copula of Chinese or Japanese prose (`API key 是 x`). */
const COPULA_RE = /[ \t\u3000]*(?:是|为|為|は|が)[ \t\u3000]*/uy
/** After an English word: a full-width separator (ASCII ones are the assignment rule's). */
const WIDE_SEP_RE = /[ \t]*[：＝][ \t\u3000]*/uy
/** Prose: `password is x`, `password for the db is x`, `token was x`, `password is now x`, `password = x`. */
const PROSE_RE =
  /(?:[ \t]+(?:for|of|on|to)[ \t]+(?:the[ \t]+|my[ \t]+|our[ \t]+|your[ \t]+|user[ \t]+)?[\w.@-]{1,40}(?:[ \t]+[\w.@-]{1,40})?)?[ \t]+(?:is|was|are|were)[ \t]+(?:still[ \t]+|now[ \t]+|just[ \t]+|set[ \t]+to[ \t]+|simply[ \t]+)?/iy
/** Only a space: `Using token x`, `token x`, `数据库密码 x`. */
const SPACE_RE = /[ \t]+/y

function scanCredentialWords(text: string, mask: string, out: Span[]): void {
  CRED_WORD_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = CRED_WORD_RE.exec(text)) !== null) {
    const word = m[0]
    const after = m.index + word.length
    // Fast exit: an English word followed by `=`, `:`, `_` or a letter is the assignment rule's business.
    const next = text.charCodeAt(after)
    const ascii = !/[^\x00-\x7F]/.test(word)
    if (ascii && word !== 'mot de passe' && next !== 32 && next !== 9 && next !== 0xff1a && next !== 0xff1d) continue
    if (word.charCodeAt(0) < 0x3000 && ((m.index > 0 && WORD_BEFORE.test(text[m.index - 1])) || (after < text.length && WORD_CHAR.test(text[after])))) continue
    // Sticky separators read at `after` directly (no slice per hit).
    const at$ = (re: RegExp): RegExpExecArray | null => {
      re.lastIndex = after
      return re.exec(text)
    }
    // Words the assignment rule cannot see (non-ASCII letters or several words) take any separator here.
    const cjk = /[^\x00-\x7F]|^mot de passe$/i.test(word)
    const password = PASSWORD_WORD.test(word)
    const ok = (v: string, strict: boolean): boolean =>
      strict
        ? keyShaped(v, mask) || (password && passwordShaped(v, mask) && v.length >= 8 && /[0-9]/.test(v))
        : password || cjk
          ? passwordShaped(v, mask) || keyShaped(v, mask, true)
          : keyShaped(v, mask, true) || (passwordShaped(v, mask) && v.length >= 8)
    let sep: RegExpExecArray | null = null
    let strict = false
    if (cjk) sep = at$(CJK_SEP_RE)
    else sep = at$(WIDE_SEP_RE) ?? at$(COPULA_RE) ?? at$(PROSE_RE) ?? ((strict = true), at$(SPACE_RE))
    // `密码|口令`, `密码框`: a word glued to what follows, with no separator or space, is a compound, not a value.
    if (!sep || (cjk && sep[0] === '')) continue
    const at = after + sep[0].length
    if (at >= text.length) continue
    const v = readLoose(text, at)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    // A value that was read is not searched again for credential words (`密码：密码：…` stays linear).
    CRED_WORD_RE.lastIndex = Math.max(CRED_WORD_RE.lastIndex, v.end)
    if (!ok(value, strict)) continue
    push(out, v.start, v.end, 'prose-secret', PRIORITY.generic - 5)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Structured containers: cookies, .pgpass, Terraform variables, secrets objects, concatenation, encoded blobs

const COOKIE_RE = /(?:^|[\s"'{,(])(Set-Cookie|Cookie|--cookie|-b)(?:["']?\s*:\s*|\s+|=)(["']?)/gim
const SESSIONISH = /sess|sid|auth|token|jwt|csrf|xsrf|remember|login|secret|key|_session|connect\.sid/i

const PAIR_RE = /[ \t]*([A-Za-z0-9_.$!#%&'*+^`|~-]{1,80})=([^;\s"'\\,]{0,4096})/y
const CURL_RE = /\bcurl\b/g

function scanCookies(text: string, mask: string, out: Span[]): void {
  if (!/cookie|-b\s/i.test(text)) return
  COOKIE_RE.lastIndex = 0
  CURL_RE.lastIndex = 0
  let curl = -1
  let nextCurl = CURL_RE.exec(text)
  let m: RegExpExecArray | null
  while ((m = COOKIE_RE.exec(text)) !== null) {
    const set = /^set-cookie$/i.test(m[1])
    while (nextCurl && nextCurl.index < m.index) {
      curl = nextCurl.index
      nextCurl = CURL_RE.exec(text)
    }
    if (m[1] === '-b' && (curl === -1 || m.index - curl > 300)) continue
    let at = m.index + m[0].length
    for (let k = 0; at < text.length && k < 40; k++) {
      PAIR_RE.lastIndex = at
      const pair = PAIR_RE.exec(text)
      if (!pair) break
      const value = pair[2]
      const vs = at + pair[0].length - value.length
      if (value.length >= 8 && !isPlaceholder(value, mask) && (SESSIONISH.test(pair[1]) ? shannon(value) >= 2.5 : keyShaped(value, mask, true))) push(out, vs, vs + value.length, 'cookie')
      at += pair[0].length
      // Read values are not searched again for a header (`Cookie:a=Cookie:a=…` stays linear).
      COOKIE_RE.lastIndex = Math.max(COOKIE_RE.lastIndex, at)
      if (set || text[at] !== ';') break
      at++
    }
  }
}

const PGPASS_RE = /^[ \t]*([A-Za-z0-9_.*-]{1,253}):([0-9]{1,5}|\*):([^:\s]{1,63}):([^:\s]{1,63}):([^\s]{1,200})[ \t]*$/gm
const TF_VAR_RE = /\bvariable\s+"([^"\n]{1,80})"\s*\{([^{}]{0,600}?)\bdefault\s*=\s*"((?:\\.|[^"\\\n]){1,500})"/g

function scanFiles(text: string, mask: string, out: Span[], classify: (name: string) => unknown): void {
  // One quick pass decides whether any line could be a .pgpass entry (`host:port:db:user:password`).
  if (/:(?:[0-9]{1,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:/.test(text)) {
    PGPASS_RE.lastIndex = 0
    let m: RegExpExecArray | null
    while ((m = PGPASS_RE.exec(text)) !== null) {
      const value = m[5]
      if (value === '*' || isPlaceholder(value, mask)) continue
      const start = m.index + m[0].lastIndexOf(value)
      push(out, start, start + value.length, 'pgpass')
    }
  }
  if (text.includes('variable')) {
    TF_VAR_RE.lastIndex = 0
    let m: RegExpExecArray | null
    while ((m = TF_VAR_RE.exec(text)) !== null) {
      if (!classify(m[1]) && !/\bsensitive\s*=\s*true\b/.test(m[0])) continue
      const value = m[3]
      if (isPlaceholder(value, mask) || value.length < 3) continue
      const start = m.index + m[0].length - value.length - 1
      push(out, start, start + value.length, 'terraform-variable')
    }
  }
}

const CONTAINER_WORD_RE = /secret|credential|creds|auth|apikeys|tokens/gi
const CONTAINER_SEP_RE = /(["']?)[ \t]*[:=][ \t]*(\{|\r?\n)/y

/** `[A-Za-z0-9_.-]` by char code. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45
}

const FIELD_RE = /(["']?)([A-Za-z0-9_.-]{1,80})\1[ \t]*[:=][ \t]*(["']?)([^"'\s,}{]{1,1024})\3/g

/** Fields of a `"secrets": {…}`, `credentials = {…}` or `secrets:` YAML block: key-shaped values are masked. */
function scanContainers(text: string, mask: string, out: Span[]): void {
  CONTAINER_WORD_RE.lastIndex = 0
  let nextBrace = 0
  let w: RegExpExecArray | null
  while ((w = CONTAINER_WORD_RE.exec(text)) !== null) {
    // The name around the keyword, by a bounded walk each way (no backtracking regex over long runs).
    let ns = w.index
    while (ns > 0 && w.index - ns < 40 && isNameChar(text.charCodeAt(ns - 1))) ns--
    let ne = w.index + w[0].length
    while (ne < text.length && ne - w.index < 60 && isNameChar(text.charCodeAt(ne))) ne++
    CONTAINER_WORD_RE.lastIndex = ne
    const name = text.slice(ns, ne)
    if (!/(?:secrets?|credentials?|creds|auth|apikeys|tokens)$/i.test(name)) continue
    CONTAINER_SEP_RE.lastIndex = ne
    const sep = CONTAINER_SEP_RE.exec(text)
    if (!sep) continue
    const m = { index: ns, 0: text.slice(ns, sep.index + sep[0].length), 2: name, 3: sep[2] }
    if (/^(?:is|has|no|use|with|without)_|_(?:type|method|mode|url|uri|path|file|dir|name|id|enabled|required|provider|header)s?$|^(?:auth|oauth)$/i.test(m[2]) && m[3] !== '{') continue
    const bodyStart = m.index + m[0].length
    let bodyEnd: number
    if (m[3] === '{') {
      // The next `}` is cached: many unclosed containers must not each scan the rest of the text.
      if (nextBrace !== -1 && nextBrace < bodyStart) nextBrace = text.indexOf('}', bodyStart)
      bodyEnd = nextBrace
      if (bodyEnd === -1 || bodyEnd - bodyStart > 4096 || text.slice(bodyStart, bodyEnd).includes('{')) continue
    } else {
      // YAML: the lines indented deeper than the container's key.
      const ls = text.lastIndexOf('\n', m.index) + 1
      const indent = /^[ \t-]*/.exec(text.slice(ls, m.index + 1))![0].length
      let i = bodyStart
      bodyEnd = bodyStart
      for (let lines = 0; i < text.length && lines < 40; lines++) {
        const le = text.indexOf('\n', i)
        const line = text.slice(i, le === -1 ? text.length : le)
        if (line.trim() && /^[ \t]*/.exec(line)![0].length <= indent) break
        bodyEnd = le === -1 ? text.length : le
        if (le === -1) break
        i = le + 1
      }
      if (bodyEnd - bodyStart > 4096) continue
    }
    const body = text.slice(bodyStart, bodyEnd)
    FIELD_RE.lastIndex = 0
    let f: RegExpExecArray | null
    while ((f = FIELD_RE.exec(body)) !== null) {
      const value = f[4]
      if (!keyShaped(value, mask, true) || /^(?:https?|wss?):\/\//.test(value)) continue
      const start = bodyStart + f.index + f[0].length - value.length - f[3].length
      push(out, start, start + value.length, 'secret-container', PRIORITY.generic - 4)
    }
    CONTAINER_WORD_RE.lastIndex = Math.max(CONTAINER_WORD_RE.lastIndex, bodyEnd)
  }
}

const JOINT_RE = /(["'])[ \t]*(?:\+|\.\.?|\|\|)[ \t]*(?:\\?\r?\n[ \t]*)?(["'])/g

/** `"API_KEY=" +\n"value"`: a string literal ending in a credential name's separator, continued by another. */
function scanConcatenation(text: string, mask: string, out: Span[], classify: (name: string) => unknown): void {
  if (!/["'][ \t]*(?:\+|\.\.?|\|\|)/.test(text)) return
  JOINT_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = JOINT_RE.exec(text)) !== null) {
    // Walk back from the closing quote: spaces, `=` or `:`, spaces, then the name (bounded, no regex over a slice).
    let k = m.index
    while (k > 0 && m.index - k < 8 && (text[k - 1] === ' ' || text[k - 1] === '\t')) k--
    if (text[k - 1] !== '=' && text[k - 1] !== ':') continue
    k--
    while (k > 0 && m.index - k < 16 && (text[k - 1] === ' ' || text[k - 1] === '\t')) k--
    let ns = k
    while (ns > 0 && k - ns < 60 && isNameChar(text.charCodeAt(ns - 1))) ns--
    if (ns === k || !classify(text.slice(ns, k))) continue
    const v = readLoose(text, m.index + m[0].length - 1)
    if (!v) continue
    const value = text.slice(v.start, v.end)
    if (/[:=][ \t]*$/.test(value) || !(passwordShaped(value, mask) || keyShaped(value, mask, true))) continue
    push(out, v.start, v.end, 'concatenation', PRIORITY.generic - 2)
    JOINT_RE.lastIndex = Math.max(JOINT_RE.lastIndex, v.end)
  }
}

const BLOB_RE = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}/g

/**
 * A base64 blob that decodes to readable text holding a credential (a `.env` line, `user:password`, a JSON config):
 * the whole blob is masked. `inner` runs the rules on the decoded text. Runs come from one greedy class scan.
 */
function scanEncoded(text: string, _mask: string, out: Span[], inner: (decoded: string) => Span[]): void {
  BLOB_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = BLOB_RE.exec(text)) !== null) {
    // The lookbehind makes every run start once: a position inside a run fails at once instead of re-matching it.
    if (m[0].length > 8192) continue
    const start = m.index
    if (start > 0 && text.charCodeAt(start - 1) === 61) continue // glued to a previous blob's padding
    let e = start + m[0].length
    while (e < text.length && e - start - m[0].length < 2 && text.charCodeAt(e) === 61) e++
    const blob = text.slice(start, e)
    // Encoded text mixes cases and digits; identifiers, hex and words do not.
    if (blob.length % 4 === 1 || !/[0-9]/.test(blob) || !/[a-z]/.test(blob) || !/[A-Z]/.test(blob)) continue
    const decoded = Buffer.from(blob, blob.includes('-') || blob.includes('_') ? 'base64url' : 'base64').toString('latin1')
    if (decoded.length < 8 || !/[=:]/.test(decoded)) continue
    let printable = 0
    for (let k = 0; k < decoded.length; k++) {
      const c = decoded.charCodeAt(k)
      if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9) printable++
    }
    if (printable / decoded.length < 0.97) continue
    if (inner(decoded).length) push(out, start, e, 'encoded-secret')
  }
}

/** Every span of this module's rules. `classify` is the assignment rule's name test; `inner` scans decoded text. */
export function scanForms(text: string, mask: string, out: Span[], classify: (name: string) => unknown, inner: (decoded: string) => Span[]): void {
  scanCredentialWords(text, mask, out)
  if (text.includes('-') || /\b(?:set|config|echo|printf)\b/.test(text)) scanCommandLines(text, mask, out)
  if (text.includes('(')) scanApiSlots(text, mask, out)
  scanCookies(text, mask, out)
  scanFiles(text, mask, out, classify)
  scanContainers(text, mask, out)
  scanConcatenation(text, mask, out, classify)
  scanEncoded(text, mask, out, inner)
}
