/**
 * Redaction engine: recall and false-positive rate over the labelled corpus, context-keeping masks, merged
 * overlaps, custom patterns, configuration errors, the disabled switch, and bounded time on 10 MB adversarial input.
 * @module dsh-knowledge-sync/test/unit/redact.spec
 */
import { describe, expect, it } from 'vitest'
import { compilePatterns, createRedactor, DEFAULT_MASK, RedactConfigError, type Redactor } from '../../src/redact/redactor.js'
import { buildCorpus, type PositiveItem } from '../fixtures/redact-corpus.js'

const corpus = buildCorpus()
const redactor = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })

interface Miss {
  id: string
  why: string
  out: string
}

/** Why a positive item failed, or null: a secret survived, a family is missing, the count is off, or context was lost. */
function judge(item: PositiveItem, out: { text: string; count: number; families: Record<string, number> }): string | null {
  const left = item.secrets.filter((s) => out.text.includes(s))
  if (left.length) return `secret survived: ${left.map((s) => s.slice(0, 24)).join(', ')}`
  if (!out.families[item.family]) return `family ${item.family} not reported (got ${JSON.stringify(out.families)})`
  if (out.count !== item.count) return `count ${out.count}, expected ${item.count} (${JSON.stringify(out.families)})`
  const lost = item.keep.filter((k) => !out.text.includes(k))
  if (lost.length) return `context lost: ${lost.join(' | ')}`
  if (!out.text.includes(DEFAULT_MASK)) return 'mask text missing'
  return null
}

async function score(r: Redactor, sync: boolean) {
  const misses: Miss[] = []
  const perFamily = new Map<string, { hit: number; total: number }>()
  for (const item of corpus.positives) {
    const out = sync ? r.redactSync(item.text) : await r.redact(item.text)
    const why = judge(item, out)
    const f = perFamily.get(item.family) ?? { hit: 0, total: 0 }
    f.total++
    if (why) misses.push({ id: item.id, why, out: out.text.slice(0, 300) })
    else f.hit++
    perFamily.set(item.family, f)
  }
  const falsePositives: Miss[] = []
  for (const item of corpus.negatives) {
    const out = sync ? r.redactSync(item.text) : await r.redact(item.text)
    if (out.count !== 0 || out.text !== item.text) falsePositives.push({ id: item.id, why: JSON.stringify(out.families), out: out.text.slice(0, 300) })
  }
  return { misses, perFamily, falsePositives }
}

describe('redaction corpus', () => {
  it('has at least 150 labelled items, several positives per family in different contexts, and more negatives than positives', () => {
    expect(corpus.positives.length + corpus.negatives.length).toBeGreaterThanOrEqual(150)
    expect(corpus.negatives.length).toBeGreaterThanOrEqual(corpus.positives.length)
    const families = new Map<string, Set<string>>()
    for (const p of corpus.positives) families.set(p.family, (families.get(p.family) ?? new Set()).add(p.context))
    for (const core of [
      'aws',
      'google-api-key',
      'gcp-service-account',
      'azure',
      'github',
      'gitlab',
      'npm',
      'pypi',
      'circleci',
      'slack',
      'discord',
      'telegram',
      'stripe',
      'twilio',
      'sendgrid',
      'openai',
      'anthropic',
      'deepseek',
      'huggingface',
      'jwt',
      'private-key',
      'url-password',
      'auth-header',
      'cli-flag',
      'env-assignment',
      'generic-secret',
    ]) {
      expect(families.get(core)?.size ?? 0, core).toBeGreaterThanOrEqual(2)
    }
    for (const [family, _contexts] of families) expect(corpus.positives.filter((p) => p.family === family).length, family).toBeGreaterThanOrEqual(2)
    expect(new Set(corpus.negatives.map((n) => n.kind))).toEqual(new Set(['git-sha', 'uuid', 'integrity', 'public-key', 'placeholder', 'base64', 'identifier', 'prose', 'code', 'misc']))
  })

  it('masks every labelled secret with recall 1 per family and a false-positive rate of at most 0.02 (full redactor)', async () => {
    const { misses, perFamily, falsePositives } = await score(redactor, false)
    const hit = corpus.positives.length - misses.length
    const recall = hit / corpus.positives.length
    const fpRate = falsePositives.length / corpus.negatives.length
    console.log(
      `redaction corpus: recall ${recall.toFixed(3)} (${hit}/${corpus.positives.length}), false-positive rate ${fpRate.toFixed(3)} (${falsePositives.length}/${corpus.negatives.length}), ${perFamily.size} families`,
    )
    if (misses.length) console.log('misses:\n' + misses.map((m) => `  ${m.id}: ${m.why}\n    ${JSON.stringify(m.out)}`).join('\n'))
    if (falsePositives.length) console.log('false positives:\n' + falsePositives.map((m) => `  ${m.id}: ${m.why}\n    ${JSON.stringify(m.out)}`).join('\n'))
    for (const [family, f] of perFamily) expect(f.hit / f.total, `recall of ${family}`).toBe(1)
    expect(fpRate).toBeLessThanOrEqual(0.02)
  })

  it('reaches the same recall with the synchronous own rules alone (the secretlint backstop adds nothing on the corpus)', async () => {
    const { misses, falsePositives } = await score(redactor, true)
    expect(misses.map((m) => `${m.id}: ${m.why}`)).toEqual([])
    expect(falsePositives.length / corpus.negatives.length).toBeLessThanOrEqual(0.02)
    let novel = 0
    const probe = createRedactor(
      { enabled: true, mask: DEFAULT_MASK, patterns: [] },
      {
        onBackstop: (r) => {
          novel += r.novel
        },
      },
    )
    for (const item of corpus.positives) await probe.redact(item.text)
    expect(novel).toBe(0)
  })

  it('is idempotent: redacting already-redacted text masks nothing more', async () => {
    for (const item of corpus.positives) {
      const once = await redactor.redact(item.text)
      const twice = await redactor.redact(once.text)
      expect(twice.count, item.id).toBe(0)
      expect(twice.text, item.id).toBe(once.text)
    }
  })
})

describe('masks keep their context', () => {
  it('keeps the variable name, the URL user and host, and the auth scheme', async () => {
    expect((await redactor.redact('DB_PASSWORD=hunter2')).text).toBe('DB_PASSWORD=[REDACTED]')
    expect((await redactor.redact('postgres://app:s3cr3t-pw@db:5432/x')).text).toBe('postgres://app:[REDACTED]@db:5432/x')
    expect((await redactor.redact('Authorization: Bearer abcDEF123456ghiJKL789mno')).text).toBe('Authorization: Bearer [REDACTED]')
    expect((await redactor.redact('mysql -uroot -pS3cret! -h db')).text).toBe('mysql -uroot -p[REDACTED] -h db')
    expect((await redactor.redact('run --password=hunter22 --host db')).text).toBe('run --password=[REDACTED] --host db')
    expect((await redactor.redact('export TOKEN=abc123def456ghi')).text).toBe('export TOKEN=[REDACTED]')
  })

  it('masks a PEM key inside JSON tool arguments with literal \\n escapes, keeping the BEGIN/END lines and the JSON valid', async () => {
    const body = Array.from({ length: 6 }, (_, i) => 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' + String(i).repeat(4) + 'AbCdEfGhIjKlMnOpQrStUvWxYz01').join('\n')
    const pem = '-----BEGIN ' + 'PRIVATE KEY-----\n' + body + '\n-----END ' + 'PRIVATE KEY-----\n'
    const args = JSON.stringify({ path: 'key.pem', content: pem })
    const out = await redactor.redact(args)
    expect(out.families).toEqual({ 'private-key': 1 })
    const parsed = JSON.parse(out.text) as { content: string }
    expect(parsed.content).toBe('-----BEGIN ' + 'PRIVATE KEY-----\n[REDACTED]\n-----END ' + 'PRIVATE KEY-----\n')
  })

  it('masks a GCP service-account key id and key in escaped JSON as one family', async () => {
    const sa = JSON.stringify({
      type: 'service_account',
      private_key_id: '0123456789abcdef0123456789abcdef01234567',
      private_key: '-----BEGIN ' + 'PRIVATE KEY-----\n' + 'MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ'.repeat(3) + '\n-----END ' + 'PRIVATE KEY-----\n',
      client_email: 'a@b.iam.gserviceaccount.com',
    })
    const out = await redactor.redact(JSON.stringify({ content: sa }))
    expect(out.families).toEqual({ 'gcp-service-account': 2 })
    const inner = JSON.parse(JSON.parse(out.text).content)
    expect(inner).toMatchObject({ private_key_id: '[REDACTED]', private_key: '[REDACTED]', client_email: 'a@b.iam.gserviceaccount.com' })
  })

  it('uses options.mask as the mask text and does not re-count it', async () => {
    const r = createRedactor({ enabled: true, mask: '«secret»', patterns: [] })
    const out = await r.redact('API_TOKEN=abc123def456ghi789')
    expect(out.text).toBe('API_TOKEN=«secret»')
    expect((await r.redact(out.text)).count).toBe(0)
    // Replacement patterns mean nothing to the engine: the mask is inserted literally.
    expect((await createRedactor({ enabled: true, mask: '$&', patterns: [] }).redact('DB_PASSWORD=hunter2')).text).toBe('DB_PASSWORD=$&')
  })

  it('cannot be switched off by a secretlint-disable comment inside the text', async () => {
    const gh = 'gh' + 'p_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
    const out = await redactor.redact(`// secretlint-disable
const token = "${gh}"
// secretlint-enable`)
    expect(out.text).not.toContain(gh)
    expect(out.families).toEqual({ github: 1 })
  })

  it('merges overlapping matches of different rules into one mask and one count', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIzNDU2Nzg5MGFiY2RlZg'
    const a = await redactor.redact(`curl -H "Authorization: Bearer ${jwt}" https://x`)
    expect(a).toEqual({ text: 'curl -H "Authorization: Bearer [REDACTED]" https://x', count: 1, families: { jwt: 1 } })
    const gh = 'gh' + 'p_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
    const b = await redactor.redact(`git remote add origin https://octocat:${gh}@github.com/acme/x.git`)
    expect(b).toEqual({ text: 'git remote add origin https://octocat:[REDACTED]@github.com/acme/x.git', count: 1, families: { github: 1 } })
    const c = await redactor.redact(`GITHUB_TOKEN=${gh} ${gh}`)
    expect(c).toEqual({ text: 'GITHUB_TOKEN=[REDACTED] [REDACTED]', count: 2, families: { github: 2 } })
  })

  it('leaves prose, placeholders and non-secret hashes alone', async () => {
    for (const text of [
      'the password field is required',
      'token expired',
      'password: string;',
      'GITHUB_TOKEN=${GITHUB_TOKEN}',
      'NPM_TOKEN: ${{ secrets.NPM_TOKEN }}',
      'API_KEY=YOUR_API_KEY',
      'Authorization: Bearer $TOKEN',
      'commit 3f2a9c1d5e7b8a0c4d6e8f1a2b3c4d5e6f7a8b9c',
      'id 123e4567-e89b-42d3-a456-426614174000',
    ]) {
      const out = await redactor.redact(text)
      expect(out, text).toEqual({ text, count: 0, families: {} })
    }
  })
})

describe('custom patterns', () => {
  it('masks the whole match when the pattern has no capturing group, counted as family custom', async () => {
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['ACME-[0-9]{6}'] })
    expect(await r.redact('ticket ACME-123456 and ACME-654321')).toEqual({ text: 'ticket [REDACTED] and [REDACTED]', count: 2, families: { custom: 2 } })
  })

  it('masks only group 1 when the pattern has a capturing group, and honours /source/flags', async () => {
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['internal-id=(\\w+)', '/employee (\\d{5})/i'] })
    const out = await r.redact('internal-id=abc123 EMPLOYEE 12345 employee 54321')
    expect(out.text).toBe('internal-id=[REDACTED] EMPLOYEE [REDACTED] employee [REDACTED]')
    expect(out.families).toEqual({ custom: 3 })
    expect(r.redactSync('internal-id=zzz').text).toBe('internal-id=[REDACTED]')
  })

  it('does not double-count a custom match that a built-in rule also found', async () => {
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['hunter\\d'] })
    expect(await r.redact('DB_PASSWORD=hunter2')).toEqual({ text: 'DB_PASSWORD=[REDACTED]', count: 1, families: { 'env-assignment': 1 } })
  })

  it('throws RedactConfigError naming a bad pattern and why', () => {
    expect(() => compilePatterns(['ok', '('])).toThrow(RedactConfigError)
    expect(() => compilePatterns(['ok', '('])).toThrow(/^knowledge: redact\.patterns\[1\] "\(" is not a valid regular expression: /)
    expect(() => createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['a', 'b', '[z-a]'] })).toThrow(/redact\.patterns\[2\] "\[z-a\]" is not a valid regular expression/)
    expect(() => compilePatterns(['x*'])).toThrow(/redact\.patterns\[0\] "x\*" matches the empty string/)
    expect(() => compilePatterns(['/abc/g'])).toThrow(/unsupported flags "g"/)
    expect(() => createRedactor({ enabled: false, mask: DEFAULT_MASK, patterns: ['('] })).toThrow(RedactConfigError)
  })
})

describe('disabled', () => {
  it('returns the text unchanged with count 0 when enabled is false', async () => {
    const r = createRedactor({ enabled: false, mask: DEFAULT_MASK, patterns: ['secret'] })
    const text = corpus.positives.map((p) => p.text).join('\n')
    expect(r.enabled).toBe(false)
    expect(await r.redact(text)).toEqual({ text, count: 0, families: {} })
    expect(r.redactSync(text)).toEqual({ text, count: 0, families: {} })
  })
})

describe('huge and hostile input', () => {
  const MB10 = 10 * 1024 * 1024
  const fill = (unit: string) => unit.repeat(Math.ceil(MB10 / unit.length)).slice(0, MB10)
  const hostile: Record<string, () => string> = {
    'repeated token prefixes': () => fill('ghs_1_'),
    'BEGIN without END': () => fill('-----BEGIN ' + 'PRIVATE KEY-----\\n'),
    'one 10 MB token-character run': () => fill('A'),
    'assignments without values': () => fill('password=\\n'),
    'URL authorities without hosts': () => fill('://a:'),
    'JWT-like fragments': () => fill('eyJ' + 'a'.repeat(50) + '.'),
    'binary-ish text with U+FFFD, NULs and template braces': () => {
      let s = ''
      const parts = ['\uFFFD', '\u0000', '\uD800', '\uDFFF', '{{', '}}', ': ', '- ', '---\n', '"', "'", '\\', '\n', 'key', 'token=', '--password ', 'Bearer ', 'AKIA', '@', '://', '-----BEGIN ']
      let x = 12345
      while (s.length < MB10) {
        x = (x * 1103515245 + 12345) >>> 0
        s += parts[x % parts.length] + String.fromCharCode(32 + ((x >>> 16) % 90))
      }
      return s.slice(0, MB10)
    },
  }
  for (const [name, make] of Object.entries(hostile)) {
    it(`finishes 10 MB of ${name} without throwing, in time linear in its length`, async () => {
      const text = make()
      // The time budget is the product's hard stop, not what this test checks: an unbounded one here, so a busy
      // machine cannot trip it; growth is checked against a tenth of the same text, measured in the same run.
      const unbounded = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { budgetMs: () => Number.POSITIVE_INFINITY })
      let t0 = performance.now()
      await unbounded.redact(text.slice(0, MB10 / 10))
      const tenth = performance.now() - t0
      t0 = performance.now()
      const out = await unbounded.redact(text)
      const ms = performance.now() - t0
      expect(typeof out.text).toBe('string')
      expect(out.count).toBeGreaterThanOrEqual(0)
      // Linear: about 10× the tenth (see bench/redact.bench.mjs for absolute figures); quadratic would be 100×.
      expect(ms).toBeLessThan(40 * tenth + 200)
    })
  }

  it('masks secrets scattered through 10 MB of ordinary text', async () => {
    const gh = 'gh' + 'p_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'
    const filler = 'INFO request served in 12ms path=/api/v1/items?page=2 user=alice@example.org\n'
    const lines: string[] = []
    let size = 0
    for (let i = 0; size < MB10; i++) {
      const line = i % 5000 === 0 ? `GITHUB_TOKEN=${gh}\n` : filler
      lines.push(line)
      size += line.length
    }
    const text = lines.join('')
    const expected = lines.filter((l) => l.startsWith('GITHUB_TOKEN')).length
    const out = await redactor.redact(text)
    expect(out.text.includes(gh)).toBe(false)
    expect(out.families).toEqual({ github: expected })
  })
})
