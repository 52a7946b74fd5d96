/**
 * Which names are secret-like: a name is split into words and classified as a password, a secret or a weak
 * credential word (`DB_PASSWORD`, `clientSecret`, `api-key`), with the prefixes that make a name harmless
 * (`isSecret`, `tokenizer`). Used by the assignment rules and by the redactor's JSON field walk.
 * @module dsh-knowledge-sync/redact/credential-names
 */

export const KEYWORD_RE = /pass|pw|secret|token|key|auth|cred/gi
export const MAX_NAME = 80
/** Names judged inside one value before the rest of it is skipped (real command lines nest a few, not dozens). */
export const NESTED_MAX = 2

/** `[A-Za-z0-9_.-]` by char code. */
export function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45
}

/** How strongly a name says "secret", which sets how much evidence its value needs. */
export type Kind = 'password' | 'secret' | 'weak'

const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'pw', 'passcode', 'pswd', 'passwort', 'userpassword', 'dbpassword'])
const PASS_PREFIXES = new Set([
  'db',
  'database',
  'user',
  'admin',
  'root',
  'mysql',
  'postgres',
  'pg',
  'redis',
  'smtp',
  'mail',
  'email',
  'ftp',
  'sftp',
  'ssh',
  'ldap',
  'proxy',
  'basic',
  'http',
  'login',
  'app',
  'api',
  'rabbit',
  'rabbitmq',
  'amqp',
  'mongo',
  'mq',
  'sql',
  'vnc',
  'wifi',
  'wlan',
  'key',
  'store',
  'keystore',
  'truststore',
  'cert',
  'master',
  'sa',
])
const SECRET_TAILS = new Set([
  'secret',
  'token',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'authtoken',
  'accesstoken',
  'refreshtoken',
  'clientsecret',
  'credential',
  'credentials',
  'creds',
  'bearertoken',
  'sessiontoken',
  'apitoken',
  'apisecret',
  'masterkey',
  'signingkey',
  'encryptionkey',
])
const KEY_PREFIXES = new Set(
  (
    'api access secret private signing sign encryption encrypt master auth client app application license licence consumer ' +
    'service account session shared webhook deploy admin root storage subscription integration hmac jwt crypt cipher aes ' +
    'bot server write read mgmt management rest secure security gpg pgp tls ssl x509 rsa ec ed25519 dkim recaptcha captcha ' +
    'stripe sendgrid mailgun twilio openai anthropic deepseek google gemini mapbox maps algolia firebase pusher sentry ' +
    'datadog dd newrelic segment mixpanel cloudflare cf heroku netlify vercel supabase openrouter mistral cohere groq ' +
    'together replicate hf huggingface pinecone elastic grafana jira atlassian notion linear figma airtable shopify ' +
    'paypal braintree plaid coinbase binance smtp mail email db database redis wallet moonshot qwen dashscope zhipu ' +
    'azure aws gcp do linode hetzner s3secret cosmos cosmosdb search translator speech vision openweather weather'
  ).split(' '),
)
const NOT_SECRET_KEY_PREFIXES = new Set(
  (
    'public pub primary foreign sort partition idempotency i18n translation hash host s3 object bucket cache lookup map ' +
    'dict item row column field message label list react group route query search keyboard shortcut hot modifier press ' +
    'unique composite range index dedup dedupe lock event metric feature flag experiment kid ssh known publishable'
  ).split(' '),
)
const NOT_SECRET_TOKEN_PREFIXES = new Set(
  (
    'next page pagination continuation sync cancellation cancel max min input output total prompt completion end start ' +
    'eos bos pad unk sep cls mask special stop num count first last prev previous cursor resume lexer parse parser design ' +
    'css color theme word sentence reasoning cached cache image audio text tool'
  ).split(' '),
)
const NOT_SECRET_SECRET_PREFIXES = new Set(['is', 'has', 'no', 'use', 'sealed', 'external', 'top', 'dirty', 'little', 'kube', 'k8s'])
const IGNORABLE_SUFFIX = /^(?:b64|base64|hex|value|val|raw|base|str|txt|enc|encoded|plain|plaintext|v?[0-9]{1,6}|prod|production|dev|staging|live|test)$/

/** Splits `dbPassword`, `DB_PASSWORD`, `db.password`, `x-api-key` into lowercase words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.-]+/)
    .filter(Boolean)
}

type Classification = { kind: Kind; keyword: string; special?: string } | null
const CLASSIFY_CACHE = new Map<string, Classification>()

/** Whether a name (`DB_PASSWORD`, `apiKey`, `x-auth-token`) announces a credential; used by the forms rules. */
export function isCredentialName(name: string): boolean {
  return classify(name) !== null
}

/** {@link classifyName}, memoised: the same few names recur thousands of times in big inputs. */
export function classify(name: string): Classification {
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
