/**
 * The salience bar: precision and recall of the default bar on the labelled set, plus the behaviours capture relies
 * on (terse status dropped with a telling reason, minScore 0 keeps everything, echoes dropped, bounded cost).
 * @module dsh-knowledge-sync/test/unit/salience
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../src/types.js'
import { DEFAULT_MIN_SCORE, NO_ANSWER, detectSignals, dropReason, echoRatio, isKept, measureWords, scoreRound } from '../../src/capture/salience.js'
import { cpuMs } from '../../src/redact/cpu-clock.js'

interface Labelled {
  id: string
  lang: 'en' | 'zh'
  keep: boolean
  why: string
  question: string
  answer: string
  tools: ToolCall[]
}

const set: Labelled[] = JSON.parse(readFileSync(new URL('../fixtures/salience-set.json', import.meta.url), 'utf8')).rounds

/** Precision and recall of the default bar over some rounds, with the misjudged ids for a readable failure. */
function measure(rounds: Labelled[]) {
  let tp = 0
  let fp = 0
  let fn = 0
  const wrong: string[] = []
  for (const r of rounds) {
    const kept = isKept(scoreRound(r), DEFAULT_MIN_SCORE)
    if (kept && r.keep) tp++
    else if (kept) fp++
    else if (r.keep) fn++
    if (kept !== r.keep) wrong.push(`${r.id}(${r.keep ? 'FN' : 'FP'})`)
  }
  return { precision: tp / (tp + fp), recall: tp / (tp + fn), wrong }
}

const round = (answer: string, tools: ToolCall[] = [], question = 'q') => ({ question, answer, tools })
const bash = (command: string, result: string): ToolCall => ({ name: 'bash', arguments: JSON.stringify({ command }), result })

describe('the labelled set', () => {
  it('holds at least 120 labelled rounds, 40 of them Chinese, with both labels in each language', () => {
    expect(set.length).toBeGreaterThanOrEqual(120)
    expect(set.filter((r) => r.lang === 'zh').length).toBeGreaterThanOrEqual(40)
    for (const lang of ['en', 'zh']) {
      expect(set.filter((r) => r.lang === lang && r.keep).length).toBeGreaterThan(20)
      expect(set.filter((r) => r.lang === lang && !r.keep).length).toBeGreaterThan(20)
    }
    for (const r of set) {
      expect(typeof r.keep).toBe('boolean')
      expect(r.why.trim().length).toBeGreaterThan(0)
      expect(r.answer.length).toBeGreaterThan(0)
    }
    expect(new Set(set.map((r) => r.id)).size).toBe(set.length)
  })

  it('keeps findings and drops terse rounds at the default bar (precision and recall >= 0.9)', () => {
    const all = measure(set)
    const en = measure(set.filter((r) => r.lang === 'en'))
    const zh = measure(set.filter((r) => r.lang === 'zh'))
    const n = (lang: string) => set.filter((r) => r.lang === lang).length
    const f = (x: number) => x.toFixed(2)
    console.log(`salience (default bar ${DEFAULT_MIN_SCORE}): precision ${f(all.precision)}, recall ${f(all.recall)} over ${set.length} rounds (EN ${n('en')}, ZH ${n('zh')})`)
    console.log(`salience EN: precision ${f(en.precision)}, recall ${f(en.recall)}; ZH: precision ${f(zh.precision)}, recall ${f(zh.recall)}; misjudged: ${all.wrong.join(' ') || 'none'}`)
    expect(all.precision).toBeGreaterThanOrEqual(0.9)
    expect(all.recall).toBeGreaterThanOrEqual(0.9)
    for (const lang of [en, zh]) {
      expect(lang.precision).toBeGreaterThanOrEqual(0.9)
      expect(lang.recall).toBeGreaterThanOrEqual(0.9)
    }
  })

  it('gives every dropped round of the set a penalty as its top reason', () => {
    for (const r of set) {
      const s = scoreRound(r)
      if (!isKept(s, DEFAULT_MIN_SCORE)) expect(s.reasons[0], r.id).toMatch(/^-/)
    }
  })
})

describe('scoreRound', () => {
  it('drops "12 passed" with -terse-status as its top reason', () => {
    const s = scoreRound(round('12 passed', [bash('npx vitest run', 'Tests  12 passed (12)')]))
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(false)
    expect(s.reasons[0]).toBe('-terse-status')
  })

  it('drops Chinese terse status and acknowledgements with a telling top reason', () => {
    expect(scoreRound(round('已提交。')).reasons[0]).toBe('-terse-status')
    expect(scoreRound(round('测试通过')).reasons[0]).toBe('-terse-status')
    expect(scoreRound(round('好的，明白了。')).reasons[0]).toBe('-ack')
    expect(scoreRound(round('Sure! Glad it helped.')).reasons[0]).toBe('-ack')
  })

  it('gives the same score and reasons for the same input every time', () => {
    const r = set.find((x) => x.id === 'en-002')!
    const first = scoreRound(r)
    for (let i = 0; i < 5; i++) expect(scoreRound(structuredClone(r))).toEqual(first)
  })

  it('keeps a short Chinese diagnosis', () => {
    const s = scoreRound(round('原因是 pnpm 缓存里还是旧版本的 hmr，删掉 node_modules/.pnpm 后重新安装就好了。'))
    expect(s.reasons[0]).toBe('+cause')
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(true)
  })

  it('keeps a one-line pin with its reason', () => {
    const s = scoreRound(round('Pin hmr to 1.0.17 — 1.0.19 dropped registerConfig.'))
    expect(s.reasons).toEqual(['+workaround', '+version'])
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(true)
  })

  it('drops an answer that only echoes its tool output, and only because of the tools', () => {
    const output = 'src/store/read.ts:12:  const meta = parseFront(text)\nsrc/store/index.ts:40:    parseFront(raw)\nsrc/cli/show.ts:8:  print(parseFront(body))'
    const answer = 'parseFront is called in src/store/read.ts line 12, src/store/index.ts line 40, and src/cli/show.ts line 8.'
    const echoed = scoreRound(round(answer, [{ name: 'grep', arguments: '{"pattern":"parseFront"}', result: output }]))
    expect(echoed.reasons[0]).toBe('-echo')
    expect(isKept(echoed, DEFAULT_MIN_SCORE)).toBe(false)
    const alone = scoreRound(round(answer))
    expect(alone.reasons).not.toContain('-echo')
    expect(echoRatio(answer, [{ name: 'grep', arguments: '{}', result: output }])).toBeGreaterThan(0.6)
  })

  it('does not call a diagnosis that quotes its error output an echo', () => {
    const tools = [bash('kubectl describe pod api', 'Last State: Terminated\n  Reason: OOMKilled\n  Exit Code: 137')]
    const s = scoreRound(round('OOMKilled: the JVM sized its heap from node memory because `-XX:MaxRAMPercentage` was not set, while the container limit is 1Gi.', tools))
    expect(s.reasons).not.toContain('-echo')
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(true)
  })

  it('caps length so a long chatty answer without a signal is dropped', () => {
    const chat = 'It really depends on what you and your team prefer, and there are good arguments on every side of it. '.repeat(40)
    const s = scoreRound(round(chat))
    expect(s.reasons).toContain('+length')
    expect(s.reasons[0]).toBe('-no-signal')
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(false)
    expect(scoreRound(round('好的，这个问题其实取决于你们团队的习惯，每种做法都有各自的优点和缺点，慢慢来就好。'.repeat(20))).score).toBeLessThan(DEFAULT_MIN_SCORE)
  })

  it('does not treat a status verb inside a finding as terse status', () => {
    const s = scoreRound(round('Store `created` as ISO 8601 UTC, not local time: files are synced between machines in different zones.'))
    expect(s.reasons).not.toContain('-terse-status')
    expect(scoreRound(round('Done — renamed the variable.')).reasons[0]).toBe('-terse-status')
  })

  it('detects each signal in English and Chinese', () => {
    const cases: Array<[string, string]> = [
      ['cause', 'The root cause was a stale cache.'],
      ['cause', '构建失败是因为缓存过期。'],
      ['decision', 'We chose pnpm over npm because of the strict lockfile.'],
      ['decision', '我们选择 pnpm 而不是 npm。'],
      ['workaround', 'Workaround: downgrade to the previous release.'],
      ['workaround', '临时方案是绕过代理。'],
      ['correction', 'The host is the service name, not localhost.'],
      ['correction', '是预发环境，不是生产环境。'],
      ['error-code', 'It fails with ENOENT.'],
      ['error-code', 'TS2345 again, plus HTTP 429 from the registry and SIGSEGV in the worker.'],
      ['command', 'Run `git commit --amend -S --no-edit`.'],
      ['command', '执行 `pnpm install --frozen-lockfile` 即可。'],
      ['config', 'Set `NODE_OPTIONS=--max-old-space-size=4096`.'],
      ['config', '配置项是 `capture.minScore`。'],
      ['version', 'Requires node@22 or v22.19 or 1.2.3.'],
      ['path', 'See src/capture/salience.ts and /etc/hosts.'],
      ['fix', 'I switched it to fake timers.'],
      ['fix', '改成 upsert。'],
    ]
    for (const [signal, text] of cases) expect(detectSignals(text), text).toContain(signal)
    expect(detectSignals('Sounds good to me, thanks for the update.')).toEqual([])
  })

  it('scores a 1 MB answer quickly (regex work is bounded)', () => {
    const big = 'The cache was invalidated because `COPY . .` ran before `pnpm install --frozen-lockfile` in src/Dockerfile. '.repeat(10_000)
    const nasty = ['a/'.repeat(500_000), '`'.repeat(1 << 20), 'ab.cd/'.repeat(180_000), '因为缓存失效导致构建很慢'.repeat(90_000)]
    const times: number[] = []
    for (const answer of [big, ...nasty]) {
      const tools = [bash('cat big.log', answer)]
      const t0 = cpuMs()
      scoreRound(round(answer, tools))
      times.push(cpuMs() - t0)
    }
    // measured at ~10 ms on a 2-core runner; the bound only catches catastrophic backtracking
    expect(Math.max(...times)).toBeLessThan(250)
    expect(isKept(scoreRound(round(big)), DEFAULT_MIN_SCORE)).toBe(true)
  })
})

describe('isKept', () => {
  it('keeps a terse round that has an answer when minScore is 0', () => {
    const s = scoreRound(round('Done.'))
    expect(s.score).toBeLessThan(0)
    expect(isKept(s, DEFAULT_MIN_SCORE)).toBe(false)
    expect(isKept(s, 0)).toBe(true)
    expect(isKept(s, -5)).toBe(true)
  })

  it('never keeps a round without an answer', () => {
    const s = scoreRound(round('   '))
    expect(s.reasons).toEqual([NO_ANSWER])
    expect(isKept(s, 0)).toBe(false)
  })

  it('compares the score with a positive bar inclusively', () => {
    expect(isKept({ score: 2, reasons: ['+decision'] }, 2)).toBe(true)
    expect(isKept({ score: 1.9, reasons: ['+decision'] }, 2)).toBe(false)
  })
})

describe('dropReason', () => {
  it('names the first penalty, or -weak-signal when a higher bar drops a round without one', () => {
    expect(dropReason(scoreRound(round('Done.')))).toBe('-terse-status')
    const pin = scoreRound(round('Pin hmr to 1.0.17 — 1.0.19 dropped registerConfig.'))
    expect(isKept(pin, 10)).toBe(false)
    expect(dropReason(pin)).toBe('-weak-signal')
  })
})

describe('measureWords', () => {
  it('counts CJK text fairly against English of the same content', () => {
    const en = measureWords('The build was slow because the cache was invalidated on every change.')
    const zh = measureWords('构建慢是因为每次改动缓存都会失效。')
    expect(en).toBe(12)
    expect(zh).toBeGreaterThan(en * 0.5)
    expect(zh).toBeLessThan(en * 1.5)
    expect(measureWords("don't stop")).toBe(2)
  })
})
