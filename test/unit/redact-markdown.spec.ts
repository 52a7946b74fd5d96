/**
 * Redaction sees through Markdown's backslash escapes: what the converter (or a model) writes as `API\_KEY=…` every
 * reader reads as `API_KEY=…`, so it is masked the same, in place, with the escapes outside the value kept.
 */
import { describe, expect, it } from 'vitest'
import { createRedactor } from '../../src/redact/redactor.js'

const redactor = createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })
const KEY = 'q8Zt4Lm2Vx9Rk1Pw7Hs3'
const PASSWORD = 'Tr0ub4dor&3xq'

describe('Markdown escapes', () => {
  const cases: Array<[string, string]> = [
    [`export API\\_KEY=${KEY}`, KEY],
    [`the\\_db\\_password is ${PASSWORD}`, PASSWORD],
    [`the_db_password is ${PASSWORD}`, PASSWORD],
    [`\\* DB\\_PASSWORD: ${PASSWORD}`, PASSWORD],
    [`AWS\\_SECRET\\_ACCESS\\_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, 'wJalrXUtnFEMI/K7MDENG'],
  ]
  it.each(cases)('masks %s (sync and async)', async (text, secret) => {
    for (const out of [redactor.redactSync(text).text, (await redactor.redact(text)).text]) {
      expect(out).not.toContain(secret)
      expect(out).toContain('[REDACTED]')
    }
  })

  it('maps a value that itself holds escapes back whole, and leaves the text around it as written', async () => {
    const text = `intro \\*bold\\* then export API\\_KEY=${KEY.slice(0, 8)}\\_${KEY.slice(8)} and more`
    const out = (await redactor.redact(text)).text
    expect(out).toBe('intro \\*bold\\* then export API\\_KEY=[REDACTED] and more')
  })

  it('changes nothing in escaped text without a secret', async () => {
    const text = 'Use `snake\\_case` names and \\[brackets\\]; 1\\. is not a list.'
    expect((await redactor.redact(text)).text).toBe(text)
  })
})

describe('synced HTML', () => {
  it('masks what the converter escaped: <p>export API_KEY=…</p> and the_db_password is …', async () => {
    const { htmlToMarkdown } = await import('../../src/sync/convert.js')
    const { markdown } = await htmlToMarkdown(`<html><body><p>export API_KEY=${KEY}</p><p>the_db_password is ${PASSWORD}</p></body></html>`)
    expect(markdown).toContain('API\\_KEY')
    const out = (await redactor.redact(markdown)).text
    expect(out).not.toContain(KEY)
    expect(out).not.toContain(PASSWORD)
  })
})
