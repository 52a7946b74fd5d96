/**
 * A value masked once is masked everywhere (issue 18, item 1): in the same text, in every field of a document (title,
 * question, answer, tool arguments, failure excerpts, tags), in notes and distilled documents, and in the encodings
 * that travel with it (JSON-escaped, URL-encoded, base64 of `user:value`), with `redacted` counting every mask.
 * Plain words are not propagated, and the pass is linear (one automaton, one scan).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore, type DocumentDraft } from '../../src/knowledge/store.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { cpuMs } from '../../src/redact/cpu-clock.js'
import { base64Middles, propagatable, ValueMatcher } from '../../src/redact/propagate.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { noteDraft, parseNoteArgs } from '../../src/note/note-args.js'
import type { Round } from '../../src/types.js'

const MASK = '[REDACTED]'
const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})
const redactor = () => createRedactor({ enabled: true, mask: MASK, patterns: [] })
function open(): KnowledgeStore {
  const store = new KnowledgeStore({ root: join(mkdtempSync(join(tmpdir(), 'dsh-ks-prop-')), 'kb'), redactor: redactor(), watch: false })
  stores.push(store)
  return store
}
const masks = (text: string) => text.split(MASK).length - 1

// A context-only secret: no prefix, so only a rule that sees its name (`API_TOKEN=`) can recognise it.
const VALUE = 'Xq7Lr2Vb9Nw4Kp6Tz3Hd8Mf'

describe('the examples of issue 18', () => {
  it('masks the password in the shell comment once the .env line has given it away', async () => {
    const r = await redactor().redact('DB_PASSWORD=vB50756EHugmANq7x\npsql -h db -U app # password vB50756EHugmANq7x did not work')
    expect(r.text).toBe(`DB_PASSWORD=${MASK}\npsql -h db -U app # password ${MASK} did not work`)
    expect(r.count).toBe(2)
  })

  it("masks the second copy in `token = '<32 hex>' | '<32 hex>'`", async () => {
    const hex = '9f86d081884c7d659a2feaa0c55ad015'
    const r = await redactor().redact(`token = '${hex}' | '${hex}'`)
    expect(r.text).not.toContain(hex)
    expect(r.count).toBe(2)
  })

  it('is the same in the synchronous path, and the masked values never reach JSON output', () => {
    const r = redactor().redactSync('DB_PASSWORD=vB50756EHugmANq7x\necho vB50756EHugmANq7x')
    expect(r.count).toBe(2)
    expect(r.values?.map((v) => v.value)).toEqual(['vB50756EHugmANq7x'])
    expect(JSON.stringify(r)).not.toContain('vB50756EHugmANq7x')
  })
})

describe('every field of a round', () => {
  const round: Round = {
    session: 'session-3f2a9c1e-1111-4222-8333-444455556666',
    turn: 4,
    cwd: '/work/proj',
    created: '2025-01-02T03:04:05.000Z',
    question: `Why does the API answer 401 for ${VALUE}?`,
    answer: `The cause: ${VALUE} was revoked last week; a new token fixed it. Rotate it in the vault, not in .env.`,
    outcome: 'completed',
    tools: [
      { name: 'bash', arguments: JSON.stringify({ command: `export API_TOKEN=${VALUE} && curl -sf https://api.internal/v1/me` }) },
      { name: 'bash', arguments: JSON.stringify({ command: 'curl -sf https://api.internal/v1/me' }), result: `401 Unauthorized: token ${VALUE} revoked`, isError: true },
    ],
  }

  it('masks a token that appears in the title, question, answer, a tool argument and a failure excerpt, and counts each mask', async () => {
    const store = open()
    const result = await captureRound(store, round, { minScore: 0, dryRun: true, keepFailedResults: true })
    const doc = result.document!
    expect(doc).not.toContain(VALUE)
    const { meta, body } = parseDocument(doc, 'x.md', 'x', 0)
    expect(meta.title).toBe(`Why does the API answer 401 for ${MASK}?`)
    expect(body).toContain(`export API_TOKEN=${MASK}`)
    expect(body).toContain(`failed: 401 Unauthorized: token ${MASK} revoked`)
    // Title (its heading), question, answer, argument, excerpt: five masks, and `redacted` says five.
    expect(masks(body)).toBe(5)
    expect(meta.redacted).toBe(5)
    expect(result.redacted).toBe(5)
  })

  it('counts a secret on the second line of the question once: the title (from the first line) does not show it', async () => {
    const store = open()
    const result = await captureRound(store, { ...round, question: `Why does the API answer 401?\nexport API_TOKEN=${VALUE}`, tools: [] }, { minScore: 0, dryRun: true })
    const { meta, body } = parseDocument(result.document!, 'x.md', 'x', 0)
    expect(meta.title).toBe('Why does the API answer 401?')
    expect(masks(body)).toBe(2) // question and answer
    expect(meta.redacted).toBe(2)
  })

  it('writes the same to disk and to the ledger', async () => {
    const store = open()
    const written = await captureRound(store, round, { minScore: 0, keepFailedResults: true })
    const doc = await store.read(written.id!)
    expect(JSON.stringify(doc)).not.toContain(VALUE)
    expect(doc!.meta.redacted).toBe(5)
  })

  it('masks the encodings that travel with it: JSON-escaped, URL-encoded and base64 of user:value', async () => {
    const secret = 'Tr0ub4dor"&3xQ9'
    const basic = Buffer.from(`admin:${secret}`).toString('base64')
    const urlSafe = Buffer.from(`deploy:${secret}`).toString('base64url')
    const store = open()
    const result = await captureRound(
      store,
      {
        ...round,
        question: 'Why does login fail?',
        answer: `DB_PASSWORD="${secret.replace('"', '\\"')}" was right; the proxy decoded it twice.`,
        tools: [
          { name: 'bash', arguments: JSON.stringify({ command: `echo ${basic} | base64 -d; curl "https://db.internal/login?pw=${encodeURIComponent(secret)}"` }) },
          { name: 'bash', arguments: JSON.stringify({ command: `printf '%s' ${urlSafe}`, note: `literal ${secret}` }) },
        ],
      },
      { minScore: 0, dryRun: true },
    )
    const doc = result.document!
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), basic, urlSafe, 'Tr0ub4dor']) expect(doc, form).not.toContain(form)
    expect(masks(parseDocument(doc, 'x.md', 'x', 0).body)).toBe(result.redacted)
  })

  it('masks it in a distilled document: model output and appendix alike', async () => {
    const store = open()
    const draft: DocumentDraft = {
      kind: 'distilled',
      title: 'Why does the API answer 401?',
      cwd: '/w',
      session: round.session,
      turn: 4,
      sections: [
        { heading: 'Summary', text: `The token ${VALUE} had been revoked.` },
        { heading: 'Finding', text: `Rotate ${VALUE} in the vault.` },
        { heading: 'Appendix: the raw round', text: `### Question\n\nWhy 401?\n\n### Answer\n\nexport API_TOKEN=${VALUE} was stale.` },
      ],
    }
    const prepared = await store.prepare(draft, { dryRun: true })
    expect(prepared.text).not.toContain(VALUE)
    expect(prepared.redaction.count).toBe(3)
  })

  it('masks it in a note: a finding that names it gives it away in the evidence and the title', async () => {
    const store = open()
    const note = parseNoteArgs({ title: `Staging login uses ${VALUE}`, finding: `export API_TOKEN=${VALUE}`, evidence: `curl -H "X: ${VALUE}" worked`, tags: ['auth'] })
    const prepared = await store.prepare(noteDraft(note, { session: 'notes-s1', cwd: '/w', suffix: 'n1' }), { dryRun: true })
    expect(prepared.text).not.toContain(VALUE)
    expect(prepared.redaction.count).toBe(masks(prepared.body))
  })
})

describe('what is not propagated, and the cost', () => {
  it('leaves a plain word alone even when it was a password: POSTGRES_PASSWORD=postgres', async () => {
    const r = await redactor().redact('POSTGRES_PASSWORD=postgres\nthen connect with psql to postgres on port 5432')
    expect(r.text).toContain('to postgres on port')
    expect(propagatable('postgres', MASK)).toBe(false)
    expect(propagatable('hunter2x', MASK)).toBe(true)
    expect(propagatable('12345', MASK)).toBe(false)
    expect(propagatable(MASK, MASK)).toBe(false)
  })

  it('finds base64 of any prefix followed by the value, at every alignment', () => {
    const value = 'vB50756EHugmANq7x'
    const matcher = new ValueMatcher([{ value, family: 'test' }])
    for (const user of ['', 'a', 'ab', 'abc', 'deploy-bot', 'ünï']) {
      for (const suffix of ['', '\n', 'xy']) {
        const b64 = Buffer.from(`${user}:${value}${suffix}`).toString('base64')
        const spans = matcher.spans(`Authorization: Basic ${b64} ok`)
        expect(
          spans.map((s) => [s.start, s.end]),
          `${user}|${suffix}`,
        ).toEqual([[21, 21 + b64.length]])
      }
    }
    expect(base64Middles(value).every((m) => m.length >= 8)).toBe(true)
    // A base64 run that merely shares a middle but does not decode to the value is not masked.
    expect(matcher.spans(Buffer.from('some other text entirely').toString('base64'))).toEqual([])
  })

  it('stays linear on crafted near-misses of a periodic value (past a confirmation budget it over-masks instead)', () => {
    const value = 'abcdef'.repeat(40) + 'Z9'
    expect(propagatable(value, MASK)).toBe(true)
    const matcher = new ValueMatcher([{ value, family: 'test' }])
    const time = (n: number) => {
      const text = 'abcdef'.repeat(n)
      const t0 = cpuMs() // CPU time: work done, not how long a busy machine kept this process waiting
      const spans = matcher.spans(text)
      return { ms: cpuMs() - t0, spans: spans.length }
    }
    time(10_000)
    const small = time(200_000),
      big = time(800_000)
    expect(big.ms / Math.max(small.ms, 1)).toBeLessThan(8) // 4× the text: linear, not 16×
    expect(big.spans).toBeGreaterThan(0) // over-masked once the budget is spent
  })

  it('scans in linear time: 5,000 masked values over 2 MB and 4 MB of text', () => {
    const values = Array.from({ length: 5000 }, (_, k) => ({ value: `Zx${k.toString(36)}Q9${(k * 7919).toString(36)}vT`, family: 'test' }))
    const matcher = new ValueMatcher(values)
    const chunk = 'lorem ipsum dolor sit amet Zx0Q90vT consectetur aaaaaaaaaaaaaaaaaaaa ZxZxZxZxZx ' // repeats and near-misses
    const time = (mb: number) => {
      const text = chunk.repeat(Math.ceil((mb * 1024 * 1024) / chunk.length))
      const t0 = cpuMs()
      const n = matcher.spans(text).length
      return { ms: cpuMs() - t0, n }
    }
    time(0.5)
    const two = time(2),
      four = time(4)
    expect(two.n).toBeGreaterThan(0)
    expect(four.ms / two.ms).toBeLessThan(3.5)
    expect(four.ms).toBeLessThan(2000)
  })
})
