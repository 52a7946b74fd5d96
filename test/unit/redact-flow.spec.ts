/**
 * Redact first, then cut (issue 10, item 1): a secret of every family of the labelled corpus is placed across every
 * place the product cuts a text (a section at 64 KiB, a title from a long first line, tool arguments shown at 2,000
 * characters, compacted or not, a failure excerpt at 1,000, a note's title and tags, a distill request's argument and
 * data bounds, the redaction window's own edge) and no part of it may reach the document or the request. Also:
 * what is redacted is exactly what is written (a `\u`-escaped token is decoded before redaction, not after), and a
 * multi-MB field costs a bounded redaction.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { LIMITS, redactDraft } from '../../src/knowledge/documents/draft.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { cutRedacted, redactFields, REDACT_MARGIN, windowOf } from '../../src/redact/fields.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { distillPrompt, redactRoundForModel } from '../../src/capture/distill.js'
import { noteDraft, parseNoteArgs } from '../../src/note/note-args.js'
import type { Round } from '../../src/types.js'
import { buildCorpus, type PositiveItem } from '../fixtures/redact-corpus.ts'

const MASK = '[REDACTED]'
const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})
const redactor = () => createRedactor({ enabled: true, mask: MASK, patterns: [] })
function open(): KnowledgeStore {
  const store = new KnowledgeStore({ root: join(mkdtempSync(join(tmpdir(), 'dsh-ks-flow-')), 'kb'), redactor: redactor(), watch: false })
  stores.push(store)
  return store
}

// Fake credentials of real shapes, assembled so no scanner flags this file itself.
const GH = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
const AKIA = 'AKIA' + 'QYLPMN5HFIQR7XZT'

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '
/** `n` characters of prose ending in a newline, so the corpus item after it starts a line as it does in the corpus. */
const fill = (n: number): string => (n <= 0 ? '' : WORDS.repeat(Math.ceil(n / WORDS.length) + 1).slice(0, n - 1) + '\n')

/** One item per family: the first positive whose secrets all appear literally in its text. */
const FAMILIES: PositiveItem[] = (() => {
  const seen = new Map<string, PositiveItem>()
  for (const item of buildCorpus().positives) {
    if (!seen.has(item.family) && item.secrets.length && item.secrets.every((s) => item.text.includes(s))) seen.set(item.family, item)
  }
  return [...seen.values()]
})()

/**
 * The first piece of any secret (6 characters, or the whole of a shorter one) that `text` still holds; pieces that
 * the item's kept context also contains (`pk_live_` holds `k_live`) do not count.
 */
function leaked(text: string, secrets: string[], keep: string[] = []): string | undefined {
  for (const s of secrets) {
    const k = Math.min(6, s.length)
    for (let i = 0; i + k <= s.length; i++) {
      const part = s.slice(i, i + k)
      if (text.includes(part) && !keep.some((c) => c.includes(part))) return `${part} (of ${s.slice(0, 12)}…)`
    }
  }
  return undefined
}

/** Offsets into the secret where a cut is placed: just after its start, its middle, just before its end. */
const offsets = (s: string) => [...new Set([1, Math.floor(s.length / 2), s.length - 1])]

const round = (over: Partial<Round>): Round => ({
  session: 'session-3f2a9c1e-1111-4222-8333-444455556666',
  turn: 1,
  cwd: '/work/proj',
  created: '2025-01-02T03:04:05.000Z',
  question: 'Why does the deploy fail?',
  answer: 'The cause was a stale credential; rotated it.',
  outcome: 'completed',
  tools: [],
  ...over,
})

/** The document a round would be written as (dry run: the exact text a real capture writes). */
async function documentOf(store: KnowledgeStore, r: Round, keepFailedResults = false): Promise<string> {
  const result = await captureRound(store, r, { minScore: 0, dryRun: true, keepFailedResults })
  expect(result.kept, result.reasons.join(' ')).toBe(true)
  return result.document!
}

describe('a secret of every family across every cut', () => {
  it(`covers the corpus's families (${FAMILIES.length})`, () => {
    expect(FAMILIES.length).toBeGreaterThanOrEqual(50)
  })

  it('never leaves any part of a secret across the 64 KiB section cut', async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      for (const off of offsets(s)) {
        const at = item.text.indexOf(s)
        const answer = fill(LIMITS.section - at - off) + item.text + '\n' + fill(2000)
        const doc = await documentOf(store, round({ answer }))
        const leak = leaked(doc, item.secrets, item.keep)
        if (leak) misses.push(`${item.family}@${off}: ${leak}`)
      }
    }
    expect(misses).toEqual([])
  })

  it('never leaves any part of a secret across the 2,000-character tool-argument cut (compacted JSON and raw text over 64 KiB)', async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      for (const off of offsets(s)) {
        // Compacted: the arguments are JSON; the shown text is their compact form, the item JSON-escaped inside it.
        const probe = JSON.stringify({ command: `${fill(10)}${item.text}` })
        const at = probe.indexOf(JSON.stringify(s).slice(1, -1)) - 10
        const compact = JSON.stringify({ command: fill(LIMITS.toolArguments - at - off) + item.text })
        const doc1 = await documentOf(store, round({ tools: [{ name: 'bash', arguments: compact }] }))
        // Raw: not JSON and over 64 KiB, shown as a JSON string of its window.
        const head = JSON.stringify(`${fill(10)}${item.text}`)
        const at2 = head.indexOf(JSON.stringify(s).slice(1, -1)) - 10
        const raw = fill(LIMITS.toolArguments - at2 - off) + item.text + '\n' + fill(70_000)
        const doc2 = await documentOf(store, round({ tools: [{ name: 'write', arguments: raw }] }))
        for (const [kind, doc] of [
          ['compact', doc1],
          ['raw', doc2],
        ]) {
          const leak = leaked(doc, item.secrets, item.keep)
          if (leak) misses.push(`${item.family}@${off} ${kind}: ${leak}`)
        }
      }
    }
    expect(misses).toEqual([])
  })

  it('never leaves any part of a secret across the 1,000-character failure excerpt', async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      for (const off of offsets(s)) {
        const result = fill(LIMITS.toolResultExcerpt - item.text.indexOf(s) - off) + item.text + '\n' + fill(3000)
        const doc = await documentOf(store, round({ tools: [{ name: 'bash', arguments: '{"command":"make deploy"}', result, isError: true }] }), true)
        expect(doc).toContain('failed: lorem')
        const leak = leaked(doc, item.secrets, item.keep)
        if (leak) misses.push(`${item.family}@${off}: ${leak}`)
      }
    }
    expect(misses).toEqual([])
  })

  it('never puts a secret from a long first line into the title or the heading', async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      const line = item.text.split('\n').find((l) => l.includes(s))
      if (!line) continue
      // Early in a long first line, and pushed across the 80-character title cut by words before it on the line.
      const questions = [`${line} ${WORDS.repeat(80)}`, ...offsets(s).map((off) => `${WORDS.repeat(3).slice(0, Math.max(0, 80 - line.indexOf(s) - off))}${line} ${WORDS}`)]
      for (const question of questions) {
        const doc = await documentOf(store, round({ question }))
        const title = /^title: (.*)$/m.exec(doc)![1] + '\n' + /^# (.*)$/m.exec(doc)![1]
        // The question section holds the whole line: the redactor's verdict there is the control.
        const control = leaked(doc.slice(doc.indexOf('## Question')), item.secrets, item.keep)
        const leak = leaked(title, item.secrets, item.keep)
        if (leak && !control) misses.push(`${item.family}: ${leak}`)
      }
    }
    expect(misses).toEqual([])
  })

  it('never leaves any part of a secret across the distill request bounds (500 per argument, 24,000 of data)', async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      for (const off of offsets(s)) {
        const probe = JSON.stringify({ command: `${fill(10)}${item.text}` })
        const at = probe.indexOf(JSON.stringify(s).slice(1, -1)) - 10
        const args = JSON.stringify({ command: fill(500 - '- bash '.length * 0 - at - off) + item.text })
        const answerAt = 'Question:\nq\n\nAnswer:\n'.length
        const answer = fill(24_000 - answerAt - item.text.indexOf(s) - off) + item.text + '\n' + fill(5000)
        const safe = await redactRoundForModel(store, round({ question: 'q', answer, tools: [{ name: 'bash', arguments: args }] }))
        const leak = leaked(distillPrompt(safe, MASK), item.secrets, item.keep)
        if (leak) misses.push(`${item.family}@${off}: ${leak}`)
      }
    }
    expect(misses).toEqual([])
  })

  it("never leaves any part of a secret across a note's title cut", async () => {
    const store = open()
    const misses: string[] = []
    for (const item of FAMILIES) {
      const s = item.secrets[0]
      const line = item.text.split('\n').find((l) => l.includes(s))
      if (!line || line.length > 190) continue
      for (const off of offsets(s)) {
        const pad = Math.max(0, LIMITS.title - line.indexOf(s) - off)
        if (pad + line.length > 200) continue
        const title = `${WORDS.repeat(3).slice(0, pad)}${line}`
        const prepared = await store.prepare(noteDraft(parseNoteArgs({ title, finding: 'See the title.' }), { session: 'notes-s1', cwd: '/w', suffix: 'n1' }), { dryRun: true })
        const control = (await redactor().redact(title)).text
        const leak = leaked(prepared.text, item.secrets, item.keep)
        if (leak && !leaked(control, item.secrets)) misses.push(`${item.family}@${off}: ${leak}`)
      }
    }
    expect(misses).toEqual([])
  })
})

describe('the cuts themselves', () => {
  it("masks a token across the redaction window's edge: the redactor cannot see it whole", async () => {
    const text = `${'word '.repeat(6)}${GH} and more words after it`
    for (let edge = 31; edge < 30 + GH.length; edge += 3) {
      const { text: window, edgeMasked } = windowOf(text, edge, MASK)
      expect(edgeMasked).toBe(true)
      expect(window).toBe(`${'word '.repeat(6)}${MASK}`)
    }
    // Through the field pipeline with a small window: nothing of the token survives, wherever the edge falls.
    for (let margin = 1; margin < GH.length + 2; margin++) {
      const { texts } = await redactFields(redactor(), [{ text, limit: 30, cut: 'none' }], { margin })
      expect(leaked(texts[0], [GH]), `margin ${margin}`).toBeUndefined()
    }
  })

  it('never splits the mask, and moves back to the start of a short token it would cut in two', () => {
    const sha = '0123456789abcdef0123456789abcdef01234567'
    const text = `the key is ${MASK} and the sha is ${sha} ok`
    for (let limit = 12; limit < text.length; limit++) {
      const out = cutRedacted(text, limit, MASK, 'none')
      expect(out.length).toBeLessThanOrEqual(limit)
      // Never a piece of the mask at the end (`[RED`), never half of the SHA.
      expect(/\[[A-Z]*$/.test(out) && !out.endsWith(MASK), out).toBe(false)
      expect(out.includes(sha) || !out.includes(sha.slice(0, 4)), out).toBe(true)
    }
  })

  it('decodes what it shows before redacting it: a \\u-escaped token in tool arguments is caught', async () => {
    const escaped = GH.replace('g', '\\u0067').replace('p', '\\u0070')
    const store = open()
    const doc = await documentOf(store, round({ tools: [{ name: 'bash', arguments: `{"command":"curl -H 'X-Token: ${escaped}' https://api.example.com"}` }] }))
    expect(leaked(doc, [GH])).toBeUndefined()
    expect(doc).toContain(MASK)
    // Over the 64 KiB parse window the arguments are shown as a string of their window: decoded there too.
    const long = `{"command":"curl -H 'X-Token: ${escaped}' https://api.example.com","data":"${'x '.repeat(40_000)}"}`
    const doc2 = await documentOf(store, round({ tools: [{ name: 'bash', arguments: long }] }))
    expect(leaked(doc2, [GH.slice(4)])).toBeUndefined()
    // In a failure excerpt (results are not compacted) and in the answer: decoded when that reveals a secret.
    const doc3 = await documentOf(
      store,
      round({ answer: `The header was X-Token: ${escaped} and it expired.`, tools: [{ name: 'bash', arguments: '{}', result: `{"error":"bad token ${escaped}"}`, isError: true }] }),
      true,
    )
    expect(leaked(doc3, [GH.slice(4)])).toBeUndefined()
    // Text whose escapes hide nothing stays as written.
    const doc4 = await documentOf(store, round({ answer: 'The cause: JSON escapes such as \\u0041 were double-encoded; fixed the serializer.' }))
    expect(doc4).toContain('\\u0041')
  })

  it("redacts a note's tags before they are lowercased and cut: an AWS key id and a token across the 40-character cut", async () => {
    const store = open()
    const tags = [AKIA, `deploy-${GH}`]
    const prepared = await store.prepare(noteDraft(parseNoteArgs({ title: 'Deploy credentials', finding: 'Rotated.', tags }), { session: 'notes-s1', cwd: '/w', suffix: 'n1' }), { dryRun: true })
    expect(leaked(prepared.text.toLowerCase(), [AKIA.toLowerCase(), GH.toLowerCase()])).toBeUndefined()
    expect(prepared.meta.tags).toContain('deploy')
  })

  it('keeps redaction of multi-MB fields bounded: ten 5 MB arguments and a 5 MB answer in well under the time of redacting them whole', async () => {
    const big = (seed: string) => (`${seed} ` + 'token=' + 'a'.repeat(40) + ' ').repeat(Math.ceil((5 * 1024 * 1024) / 60)).slice(0, 5 * 1024 * 1024)
    const store = open()
    const t0 = performance.now()
    const doc = await documentOf(store, round({ answer: big('answer'), tools: Array.from({ length: 10 }, (_, k) => ({ name: 'write', arguments: big(`arg${k}`) })) }))
    const ms = performance.now() - t0
    // Each field is redacted over at most its kept length plus an 8 KiB margin: 11 fields ≈ 170 KB, not 55 MB.
    expect(ms).toBeLessThan(5000)
    expect(doc.length).toBeLessThan(LIMITS.section + 11 * (LIMITS.toolArguments + 200) + 5000)
  })

  it('writes to disk what the dry run shows: the straddling secret is not in the file either', async () => {
    const store = open()
    const item = FAMILIES.find((f) => f.family === 'github')!
    const s = item.secrets[0]
    const answer = fill(LIMITS.section - item.text.indexOf(s) - 10) + item.text + '\n' + fill(100)
    const written = await store.write((await import('../../src/capture/keep-round.js')).roundDraft(round({ answer }), { score: 5, reasons: [] }))
    const text = readFileSync(join(store.root, written.path), 'utf8')
    expect(leaked(text, item.secrets, item.keep)).toBeUndefined()
    expect(text).toContain('more characters]')
  })

  it('exposes a margin large enough for a PEM block across a cut', () => {
    expect(REDACT_MARGIN).toBeGreaterThanOrEqual(4096)
  })
})

describe('what redaction of a draft returns', () => {
  it('counts only the masks the kept text shows', async () => {
    const answer = `First ${GH} here.\n` + fill(LIMITS.section + 100) + `\nexport GITHUB_TOKEN=${'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'}\n`
    const out = await redactDraft({ kind: 'raw', title: 'A title', cwd: '/w', sections: [{ heading: 'Answer', text: answer }] }, redactor())
    expect(out.sections[0].text.split(MASK).length - 1).toBe(1)
    expect(out.redaction.count).toBe(1)
  })
})
