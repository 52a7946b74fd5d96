/**
 * The forms people really paste and vendor keys by vendor: every labelled form of the forms corpus is masked (value
 * gone, context kept), recall and false positives are reported per family, and the real-code negatives of both
 * corpora stay untouched.
 * @module dsh-knowledge-sync/test/unit/redact-forms.spec
 */
import { describe, expect, it } from 'vitest'
import { createRedactor, DEFAULT_MASK } from '../../src/redact/redactor.js'
import { buildFormsCorpus } from '../fixtures/redact-corpus-forms.ts'
import { buildCorpus } from '../fixtures/redact-corpus.ts'

const redactor = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
const forms = buildFormsCorpus()

describe('the forms people really paste', () => {
  it('masks every form family with recall 1 and keeps the context; no real-code negative changes', async () => {
    const perFamily = new Map<string, { hit: number; total: number }>()
    const misses: string[] = []
    for (const item of forms.positives) {
      const out = await redactor.redact(item.text)
      const left = item.secrets.filter((s) => s && out.text.includes(s))
      const lost = item.keep.filter((k) => !out.text.includes(k))
      const f = perFamily.get(item.family) ?? { hit: 0, total: 0 }
      f.total++
      if (left.length || lost.length) misses.push(`${item.id}: ${left.length ? 'left ' + left.join(', ') : 'lost ' + lost.join(' | ')}\n    ${JSON.stringify(out.text.slice(0, 240))}`)
      else f.hit++
      perFamily.set(item.family, f)
    }
    const fps: string[] = []
    const negatives = [...forms.negatives, ...buildCorpus().negatives]
    const fpKinds = new Map<string, number>()
    for (const n of negatives) {
      const out = await redactor.redact(n.text)
      if (out.count) {
        fps.push(`${n.id}: ${JSON.stringify(out.text.slice(0, 200))}`)
        fpKinds.set(n.kind, (fpKinds.get(n.kind) ?? 0) + 1)
      }
    }
    console.log('forms recall per family: ' + [...perFamily].map(([k, f]) => `${k} ${f.hit}/${f.total}`).join(', '))
    console.log(`false positives: ${fps.length}/${negatives.length} negatives` + (fps.length ? '\n  ' + fps.join('\n  ') : ''))
    if (misses.length) console.log('misses:\n  ' + misses.join('\n  '))
    expect(misses).toEqual([])
    expect(fps).toEqual([])
    expect(perFamily.size).toBeGreaterThanOrEqual(20)
  })

  it('has at least as many families found from public rule sets as named by the issue', () => {
    const issue = new Set(['cli', 'auth-tuple', 'cjk', 'full-width', 'prose', 'cookie', 'pgpass', 'terraform', 'concatenation', 'base64-env', 'allowlist-bypass'])
    const found = new Set(forms.positives.map((p) => p.family).filter((f) => !issue.has(f)))
    expect(found.size).toBeGreaterThanOrEqual(issue.size)
  })

  it('is idempotent on the forms: redacting the output again masks nothing more', async () => {
    for (const item of forms.positives) {
      const once = await redactor.redact(item.text)
      expect((await redactor.redact(once.text)).count, item.id).toBe(0)
    }
  })
})

describe('numbered credential names', () => {
  it('masks a value under a name with a long numeric suffix, as under a short one', () => {
    for (const name of ['DB_PASSWORD_1', 'DB_PASSWORD_999', 'DB_PASSWORD_1000', 'DB_PASSWORD_20240', 'SECRET_KEY_123456']) {
      expect(redactor.redactSync(`${name}=Ab1000x9Qz1000k`).text, name).toBe(`${name}=${DEFAULT_MASK}`)
    }
    // A numbered name does not make a plain word or a short number a secret.
    expect(redactor.redactSync('DB_PASSWORD_1000=changeme').text).toBe('DB_PASSWORD_1000=changeme')
    expect(redactor.redactSync('MAX_TOKENS_4096=4096').text).toBe('MAX_TOKENS_4096=4096')
  })
})
