/**
 * Redaction cannot freeze the process: user patterns run on a linear-time engine (catastrophic JavaScript patterns
 * return at once, backtracking-only constructs are refused at load and by live settings validation), every built-in
 * rule is linear on crafted input, `redact()` yields to the event loop between chunks, and a call that exceeds its
 * budget rejects, so the store writes nothing and the capture row records the round as `failed` with the reason.
 * @module dsh-knowledge-sync/test/unit/redact-safety.spec
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compilePatterns, createRedactor, DEFAULT_MASK, RedactBudgetError, RedactConfigError } from '../../src/redact/redactor.js'
import { validateSettings } from '../../src/knowledge/settings/settings.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { allDocuments, ledgerEntries } from '../harness/files.ts'
import { ADVERSARIAL } from '../fixtures/redact-adversarial.ts'
import { buildCorpus } from '../fixtures/redact-corpus.ts'

const stores: KnowledgeStore[] = []
afterEach(async () => {
  while (stores.length) await stores.pop()!.close()
})

describe('user patterns cannot freeze the process', () => {
  it('runs the catastrophic (a+)+$ in linear time instead of backtracking for ever', async () => {
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['(a+)+$'] })
    // A backtracking engine needs about 2^34 steps here (minutes on any machine); compared with a plain pattern on
    // the same text in the same run, so a busy machine slows both alike.
    const plain = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['a+$'] })
    const timed = (redactor: typeof r, text: string): number => {
      let least = Infinity
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now()
        redactor.redactSync(text)
        least = Math.min(least, performance.now() - t0)
      }
      return least
    }
    expect((await r.redact('a'.repeat(34) + '!')).count).toBe(0)
    expect(timed(r, 'a'.repeat(34) + '!')).toBeLessThan(50 * timed(plain, 'a'.repeat(34) + '!') + 5)
    // A megabyte of the same shape, sync and async: linear, the same order as the plain pattern.
    const big = 'a'.repeat(1024 * 1024) + '!'
    expect(r.redactSync(big).count).toBe(0)
    expect(await r.redact('x ' + 'a'.repeat(40))).toEqual({ text: 'x ' + DEFAULT_MASK, count: 1, families: { custom: 1 } })
    expect((await r.redact(big)).count).toBe(0)
    expect(timed(r, big)).toBeLessThan(50 * timed(plain, big) + 5)
  })

  it('refuses at load, naming the pattern, what only a backtracking engine can run, and live settings refuse it too', () => {
    for (const bad of ['(a)\\1', '(?=x)y', '(?<!a)b', '(?<n>a)\\k<n>']) {
      expect(() => compilePatterns(['ok', bad]), bad).toThrow(RedactConfigError)
      expect(() => compilePatterns(['ok', bad]), bad).toThrow(`redact.patterns[1] ${JSON.stringify(bad)}`)
      expect(() => validateSettings({ redact: { patterns: [bad] } }), bad).toThrow(/backreference or lookaround/)
    }
    expect(() => validateSettings({ redact: { patterns: ['[a-z]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}x'] } })).toThrow(/too large/)
    // What RE2 runs is accepted, JavaScript syntax included: named groups, classes, flags.
    expect(() => compilePatterns(['(?<id>acme_[0-9a-f]{8})', '/employee (\\d{5})/i', '\\bint-\\w+', '/^row .+$/m'])).not.toThrow()
  })

  it('keeps JavaScript match semantics a user relies on: group 1, flags, anchors and word boundaries, also across chunks', async () => {
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['/^secret-row: (\\w+)$/m', '\\bACME-[0-9]{6}\\b'] })
    const filler = 'ordinary line with nothing to mask at all\n'.repeat(20000) // ~840 KB: several chunks
    const text = `secret-row: alpha1\n${filler}secret-row: beta2\nxACME-123456 ACME-654321\n${filler}secret-row: gamma3`
    const out = await r.redact(text)
    expect(out.text).not.toMatch(/alpha1|beta2|gamma3|654321/)
    expect(out.text).toContain('xACME-123456')
    expect(out.families).toEqual({ custom: 4 })
    expect(r.redactSync(text).text).toBe(out.text)
  })
})

describe('a round that cannot be redacted in time is not written', () => {
  it('rejects with RedactBudgetError naming the running pattern when the budget is exceeded', async () => {
    const text = ('abcdefghij'.repeat(50) + ' ').repeat(8000)
    // An explicit clock: one unit a reading, so the budget is counted in steps of work, not in the machine's speed.
    const counting = () => {
      const clock = { reads: 0, now: () => clock.reads++ }
      return clock
    }
    // The built-in rules alone finish in `own.reads` steps; the budget leaves them three more, the pattern needs many.
    const own = counting()
    await createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { budgetMs: () => 1e9, clock: own.now, secretlint: false }).redact(text)
    const budget = own.reads + 3
    const clock = counting()
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['[a-j]{1,200}[0-9]'] }, { budgetMs: () => budget, clock: clock.now, secretlint: false })
    const error = await r.redact(text).then(
      () => null,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(RedactBudgetError)
    expect(error!.message).toMatch(new RegExp(`did not finish within ${budget} ms on 4008000 characters \\(at redact\\.patterns\\[0\\] `))
    // It stops at the first check past the budget: a chunk of work at most, not the rest of the text.
    expect(clock.reads).toBeLessThanOrEqual(budget + 3)
  })

  it('store.write raises it and captureRound records the round as failed with the reason; no file reaches disk', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-budget-')), 'kb')
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { budgetMs: () => -1 }), watch: false })
    stores.push(store)
    const token = 'gh' + 'p_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B'
    const result = await captureRound(
      store,
      {
        session: 'session-11112222-0000-4000-8000-000000000000',
        turn: 3,
        cwd: '/ws',
        created: new Date().toISOString(),
        question: `Why does login fail with ${token}?`,
        answer: 'The cause was an expired token; rotated it because the old one was revoked.',
        outcome: 'completed',
        tools: [],
      },
      { minScore: 0 },
    )
    expect(result.kept).toBe(false)
    expect(result.error).toMatch(/redaction did not finish/)
    expect(allDocuments(root)).toEqual([])
    const failed = ledgerEntries(root).filter((e) => e.type === 'failed')
    expect(failed).toHaveLength(1)
    expect(failed[0].error).toMatch(/redaction did not finish/)
    expect(JSON.stringify(ledgerEntries(root))).not.toContain(token.slice(4))
  })
})

describe('built-in rules run in linear time', () => {
  const redactor = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })
  const logLine = 'INFO 2026-12-01 GET /api/v1/items?page=2 200 in 12 ms user=alice region=eu-west-1\n'
  const BASELINE = logLine.repeat(Math.ceil(262144 / logLine.length)).slice(0, 262144)
  for (const [name, unit] of Object.entries(ADVERSARIAL)) {
    it(`${name}: 256 KiB of ${JSON.stringify(unit).slice(0, 40)} in time linear in its length`, () => {
      const text = unit.repeat(Math.ceil(262144 / unit.length)).slice(0, 262144)
      redactor.redactSync(text.slice(0, 4096)) // warm-up
      // Against a baseline measured in the same run (the same size of ordinary log text), best of three each, so a
      // busy machine slows both: linear rules stay within some tens of times (netrc ~45x), a quadratic one would be thousands of times.
      const best = (t: string): number => {
        let least = Infinity
        for (let k = 0; k < 3; k++) {
          const t0 = performance.now()
          redactor.redactSync(t)
          least = Math.min(least, performance.now() - t0)
        }
        return least
      }
      expect(best(text)).toBeLessThan(200 * best(BASELINE) + 20)
    })
  }

  it('finds in chunks exactly what one pass finds: spans across chunk edges, long key blocks and values included', async () => {
    const corpus = buildCorpus()
    const items = [...corpus.positives.map((p) => p.text), ...corpus.negatives.map((n) => n.text)]
    const parts: string[] = []
    let size = 0
    // Filler of varying length moves every item across the 64 KiB chunk edges at different offsets.
    for (let i = 0; size < 3 * 1024 * 1024; i++) {
      const piece = items[(i * 7919) % items.length] + '\n' + 'x'.repeat((i * 997) % 9000) + '\n'
      parts.push(piece)
      size += piece.length
    }
    const pem = '-----BEGIN ' + 'PRIVATE KEY-----\n' + ('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' + 'AbCdEfGhIjKlMnOpQrStUvWxYz012345').repeat(900) + '\n-----END ' + 'PRIVATE KEY-----\n'
    parts.splice(40, 0, pem, 'GOOGLE_CREDENTIALS=' + 'eyJ0eXBlIjoic2VydmljZV9hY2NvdW50Ii'.repeat(900) + '\n')
    const text = parts.join('')
    const r = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }, { secretlint: false })
    const async = await r.redact(text)
    const sync = r.redactSync(text)
    expect(async.count).toBe(sync.count)
    expect(async.text === sync.text).toBe(true)
    expect(async.text).not.toContain('AbCdEfGhIjKlMnOpQrStUvWxYz012345')
  })

  it('never blocks the event loop for long inside redact(): it yields a turn per chunk', async () => {
    const line = 'INFO GET /api/v1/items?page=2 200 user=alice token=abc password: x --password y AKIA ghp_ eyJ auth=auth=\n'
    const text = line.repeat(Math.ceil((4 * 1024 * 1024) / line.length))
    const fast = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['int-[0-9]{6}'] }, { secretlint: false })
    await fast.redact(line.repeat(2000)) // warm-up: the first window also pays for compilation
    // A user pattern that is linear but slow on this text (~200 live threads per letter): chunks shrink to fit.
    const slow = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: ['[a-j]{1,200}[0-9]'] }, { secretlint: false })
    const letters = ('abcdefghij'.repeat(50) + ' ').repeat(40)
    // Event-loop turns taken while redacting, counted (not timed): the redactor must give the loop a turn per chunk.
    let turns = 0
    let counting = true
    const spin = (): void => {
      if (!counting) return
      turns++
      setImmediate(spin)
    }
    setImmediate(spin)
    await fast.redact(text)
    const fastTurns = turns
    await slow.redact(letters)
    counting = false
    expect(fastTurns).toBeGreaterThanOrEqual(Math.floor(text.length / (64 * 1024)) - 1)
    expect(turns - fastTurns).toBeGreaterThanOrEqual(2)
  })
})
