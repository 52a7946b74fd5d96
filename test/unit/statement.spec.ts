/**
 * The person's side of the salience bar (issue 25): rounds where the person states a rule, fact, owner, schedule,
 * channel, correction, decision or way of working and the agent only acknowledges are kept; their look-alikes
 * (thanks, chit-chat, "ok", status lines, "continue", unanswered questions, one-off task imperatives) are not.
 * Measured per family on test/fixtures/statement-set.json (written before the rules; its `blind` batch after).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MIN_SCORE, isKept, scoreRound, statedIn } from '../../src/capture/salience.js'

interface Stated {
  id: string
  lang: 'en' | 'zh' | 'mixed'
  family: string
  keep: boolean
  batch?: 'blind' | 'found'
  question: string
  answer: string
}
const set: Stated[] = JSON.parse(readFileSync(new URL('../fixtures/statement-set.json', import.meta.url), 'utf8')).rounds

/** Precision/recall of the default bar per family (a look-alike family has only true negatives and false positives). */
function perFamily(rounds: Stated[]) {
  const families = new Map<string, { tp: number; fp: number; fn: number; tn: number }>()
  const wrong: string[] = []
  for (const r of rounds) {
    const kept = isKept(scoreRound({ question: r.question, answer: r.answer, tools: [] }), DEFAULT_MIN_SCORE)
    const f = families.get(r.family) ?? { tp: 0, fp: 0, fn: 0, tn: 0 }
    families.set(r.family, f)
    if (kept && r.keep) f.tp++
    else if (kept) f.fp++
    else if (r.keep) f.fn++
    else f.tn++
    if (kept !== r.keep) wrong.push(`${r.id} ${r.keep ? 'FN' : 'FP'}: ${r.question}`)
  }
  const sum = [...families.values()].reduce((a, f) => ({ tp: a.tp + f.tp, fp: a.fp + f.fp, fn: a.fn + f.fn, tn: a.tn + f.tn }), { tp: 0, fp: 0, fn: 0, tn: 0 })
  return { families, precision: sum.tp / (sum.tp + sum.fp), recall: sum.tp / (sum.tp + sum.fn), wrong }
}

function report(label: string, m: ReturnType<typeof perFamily>) {
  const rows = [...m.families].map(
    ([family, f]) =>
      `${family.padEnd(18)} keep ${String(f.tp + f.fn).padStart(2)} recall ${f.tp + f.fn ? (f.tp / (f.tp + f.fn)).toFixed(2) : '  - '}  look-alikes ${String(f.tn + f.fp).padStart(2)} kept ${f.fp}`,
  )
  console.log(`${label}: precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)}\n${rows.join('\n')}\n${m.wrong.join('\n')}`)
}

describe('the statement set', () => {
  it('holds 150+ rounds in English, Chinese and mixed, half worth keeping, in a dozen families', () => {
    expect(set.length).toBeGreaterThanOrEqual(150)
    for (const lang of ['en', 'zh', 'mixed']) expect(set.filter((r) => r.lang === lang).length).toBeGreaterThan(15)
    const keep = set.filter((r) => r.keep)
    expect(keep.length / set.length).toBeGreaterThan(0.4)
    expect(keep.length / set.length).toBeLessThan(0.6)
    expect(new Set(keep.map((r) => r.family)).size).toBeGreaterThanOrEqual(10)
    expect(new Set(set.map((r) => r.id)).size).toBe(set.length)
  })

  it('keeps stated rounds and drops their look-alikes at the default bar (the set the rules were written on)', () => {
    const m = perFamily(set.filter((r) => !r.batch))
    report('written-before batch', m)
    expect(m.precision).toBeGreaterThanOrEqual(0.95)
    expect(m.recall).toBeGreaterThanOrEqual(0.9)
  })

  it('generalizes to the blind batch, written after the rules were frozen', () => {
    const m = perFamily(set.filter((r) => r.batch === 'blind'))
    report('blind batch', m)
    expect(set.filter((r) => r.batch === 'blind').length).toBeGreaterThanOrEqual(40)
    expect(m.precision).toBeGreaterThanOrEqual(0.85)
    expect(m.recall).toBeGreaterThanOrEqual(0.7)
  })

  it('keeps the earlier rounds the correction set needed, and drops their look-alikes (batch found)', () => {
    const found = set.filter((r) => r.batch === 'found')
    const wrong = found.filter((r) => isKept(scoreRound({ question: r.question, answer: r.answer, tools: [] }), DEFAULT_MIN_SCORE) !== r.keep).map((r) => r.id)
    expect(found.length).toBeGreaterThanOrEqual(8)
    expect(wrong).toEqual([])
  })
})

describe('person-side reasons', () => {
  it('names what was stated, and an acknowledgement answering a statement is no penalty', () => {
    const s = scoreRound({ question: 'Never push straight to main; always a feature branch and a PR.', answer: 'Got it.', tools: [] })
    expect(s.reasons).toContain('+stated-rule')
    expect(s.reasons).not.toContain('-ack')
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(true)
    expect(statedIn('the staging database is on port 5433, not 5432')).toEqual(['correction', 'fact'])
  })

  it('still drops "12 passed", "continue" and thanks answered with an acknowledgement', () => {
    for (const question of ['12 passed', 'continue', 'thanks!', '继续', '好的谢谢', 'try again'])
      expect(isKept(scoreRound({ question, answer: 'Got it.', tools: [] }), DEFAULT_MIN_SCORE), question).toBe(false)
  })
})
