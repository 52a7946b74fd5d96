/**
 * Deterministic tags: stable, from a fixed vocabulary, kebab-case, capped, and never built from free text.
 * @module dsh-knowledge-sync/test/unit/tags
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Round, ToolCall } from '../../src/types.js'
import { MAX_TAGS, TAG_VOCABULARY, deriveTags, programsOf, sanitizeTag } from '../../src/capture/tags.js'

type TagRound = Pick<Round, 'question' | 'answer' | 'tools' | 'cwd'>
const set: TagRound[] = JSON.parse(readFileSync(new URL('../fixtures/salience-set.json', import.meta.url), 'utf8')).rounds.map((r: TagRound) => ({ ...r, cwd: '/home/dev/shop-api' }))
const bash = (command: string, result = ''): ToolCall => ({ name: 'bash', arguments: JSON.stringify({ command }), result })
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

describe('deriveTags', () => {
  it('gives the same tags for the same round, every time', () => {
    for (const r of set) expect(deriveTags(structuredClone(r))).toEqual(deriveTags(r))
  })

  it('only emits kebab-case tags from the vocabulary, at most MAX_TAGS, in vocabulary order', () => {
    for (const r of set) {
      const tags = deriveTags(r)
      expect(tags.length).toBeLessThanOrEqual(MAX_TAGS)
      for (const t of tags) {
        expect(t).toMatch(KEBAB)
        expect(TAG_VOCABULARY).toContain(t)
      }
      const positions = tags.map((t) => TAG_VOCABULARY.indexOf(t))
      expect(positions).toEqual([...positions].sort((a, b) => a - b))
    }
  })

  it('tags a TypeScript error diagnosis with its kind, language and the programs it ran', () => {
    const tags = deriveTags({
      cwd: '/w',
      question: 'TS2345 in src/store/index.ts after upgrading yaml',
      answer: 'TS2345: `parseDocument` returns `Document.Parsed`, so I changed the parameter to take `Document.Parsed`.',
      tools: [bash('cd /w && pnpm exec tsc --noEmit', 'error TS2345'), { name: 'edit', arguments: '{"file_path":"src/store/index.ts"}' }],
    })
    expect(tags).toEqual(expect.arrayContaining(['error', 'fix', 'typescript', 'node', 'pnpm']))
  })

  it('gives a Chinese round sensible tags', () => {
    const slowDocker = deriveTags({
      cwd: '/w',
      question: 'docker 构建太慢',
      answer: 'Docker 构建慢是因为 `COPY . .` 放在 `pnpm install` 前面，导致每次改代码缓存都失效。',
      tools: [{ name: 'read', arguments: '{"file_path":"Dockerfile"}', result: 'FROM node:22' }],
    })
    expect(slowDocker).toEqual(expect.arrayContaining(['performance', 'docker', 'node']))
    const ciDates = deriveTags({ cwd: '/w', question: '日期测试在 CI 上失败', answer: '因为 CI 上的时区是 UTC，测试里写死了北京时间。改成用 `toISOString()` 比较。', tools: [] })
    expect(ciDates).toEqual(expect.arrayContaining(['error', 'fix', 'test', 'ci']))
    expect(deriveTags({ cwd: '/w', question: '怎么让所有轮次都保存？', answer: '配置项是 `capture.minScore`，设成 0 即可。', tools: [] })).toContain('config')
  })

  it('derives program tags from shell commands and ignores programs outside the vocabulary', () => {
    const tags = deriveTags({
      cwd: '/w',
      question: 'run it',
      answer: 'ok',
      tools: [bash('FOO=1 npx vitest run && git status | grep modified; ./ghp_notatoken --x; cargo build')],
    })
    expect(tags).toEqual(expect.arrayContaining(['test', 'node', 'rust', 'git', 'npm', 'vitest', 'cargo']))
    expect(tags.join(' ')).not.toMatch(/ghp|notatoken|grep|foo/)
  })

  it('never turns free text, secrets or arguments into tags', () => {
    const secret = 'AKIAIOSFODNN7EXAMPLE'
    const tags = deriveTags({
      cwd: `/home/dev/${secret}`,
      question: `why does login fail for acme-corp? key ${secret}`,
      answer: `The cause was the expired key ${secret}; rotate it in \`.env\` (AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI).`,
      tools: [bash(`curl -H "Authorization: Bearer ${secret}" https://acme-corp.example/api`, 'HTTP 401')],
    })
    const joined = tags.join(' ')
    expect(joined).not.toMatch(/akia|acme|wjalr|bearer|authorization/i)
    for (const t of tags) expect(TAG_VOCABULARY).toContain(t)
  })

  it('adds a sanitized MCP server name and a workspace tag only when asked', () => {
    const r: TagRound = {
      cwd: '/home/dev/My Shop_API/',
      question: 'file an issue',
      answer: 'Filed.',
      tools: [{ name: 'mcp__Git Hub!__create_issue', arguments: '{}' }],
    }
    expect(deriveTags(r)).toEqual(['git-hub'])
    expect(deriveTags(r, { workspace: true })).toEqual(['git-hub', 'ws-my-shop-api'])
    expect(deriveTags(r).some((t) => t.startsWith('ws-'))).toBe(false)
  })

  it('caps a round that touches everything at MAX_TAGS', () => {
    const tags = deriveTags(
      {
        cwd: '/w',
        question: 'CI fails: TS2345, a Python Traceback (most recent call last), cargo errors and a slow SQL query',
        answer: 'The cause was a pinned dependency; we decided to switch it to the new API. Set `LOG_LEVEL=debug`. Files: a.ts b.py c.rs d.go e.java f.rb Dockerfile, kubectl, redis, vue, vite.',
        tools: [bash('docker build . && kubectl apply -f k.yaml && pytest -q && terraform plan && make')],
      },
      { workspace: true },
    )
    expect(tags).toHaveLength(MAX_TAGS)
    expect(tags.slice(0, 5)).toEqual(['error', 'fix', 'decision', 'workaround', 'config'])
    expect(tags[MAX_TAGS - 1]).toBe('ws-w')
  })
})

describe('kind tags that earn their place', () => {
  const round = (question: string, answer: string) => deriveTags({ cwd: '/w', question, answer, tools: [] })
  it('tags "Fix:" and 解决办法 answers as fix', () => {
    expect(round('Why does the login test fail?', 'The cause is a frozen clock.\n\nFix: set FAKE_NOW in `.env.test`.')).toContain('fix')
    expect(round('为什么登录测试失败？', '原因是时钟被冻结了。\n解决办法：在测试环境里设置 FAKE_NOW。')).toContain('fix')
  })
  it('tags config only when the round sets a value or speaks of configuration, not for any identifier in code', () => {
    expect(round('Why is the cache cold?', 'Because `buildCache.get` is called before `CACHE_DIR` exists; create it first, then call `warmUp()`.')).not.toContain('config')
    expect(round('Why is the cache cold?', 'Because `CACHE_DIR` points at /tmp. Set `CACHE_DIR=/var/cache/app` and restart.')).toContain('config')
    expect(round('Which setting controls retries?', 'The `http.retries` setting in `app.yaml` controls it; the default is 3.')).toContain('config')
  })
})

describe('programsOf', () => {
  it('reads the programs of every segment, past env assignments, sudo and npx', () => {
    expect(programsOf('cd app && NODE_ENV=test sudo npx jest --ci | tee log; node node_modules/vitest/vitest.mjs run')).toEqual(['cd', 'npx', 'jest', 'tee', 'node', 'vitest'])
  })
})

describe('sanitizeTag', () => {
  it('lowercases to [a-z0-9-] without stray dashes and caps the length', () => {
    expect(sanitizeTag('  Hello, World__v2! ')).toBe('hello-world-v2')
    expect(sanitizeTag('名字')).toBe('')
    expect(sanitizeTag('x'.repeat(80))).toHaveLength(32)
  })
})
