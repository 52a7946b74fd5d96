/**
 * The tools' output budgets as pure functions (issue 10, item 9): knowledge_read pages through a long document with
 * the offsets it names and loses or repeats nothing; no cut splits a surrogate pair; knowledge_search keeps whole
 * hits within its budget and bounds every field of a hit.
 */
import { describe, expect, it } from 'vitest'
import { boundRead, parseOffset } from '../../src/recall/read-tool.js'
import { renderHits } from '../../src/recall/search-tool.js'
import { formatDocument, parseDocument, PARSE_LIMITS } from '../../src/knowledge/documents/document.js'
import { OUTPUT_BUDGET, withinBudget } from '../../src/tool-output.js'
import type { KnowledgeDoc, SearchHit } from '../../src/types.js'

const longDoc = (): KnowledgeDoc => {
  const lines = Array.from({ length: 4000 }, (_, k) => `line ${k} 😀 naïve 中文 ${'x'.repeat(k % 50)}`)
  const body = `# Long\n\n${lines.join('\n')}\n`
  const { meta } = parseDocument(formatDocument({ id: 'long', title: 'Long', kind: 'manual', created: '2026-01-01T00:00:00.000Z', cwd: '', tools: [], tags: [] }, body), 'long.md', 'long', 0)
  return { id: 'long', path: 'long.md', meta, body, mtimeMs: 0 }
}

describe('knowledge_read budget', () => {
  it('pages through a long document with the offsets it names: every character once, in order', () => {
    const doc = longDoc()
    const full = `${doc.path}\n\n${formatDocument(doc.meta, doc.body)}`
    expect(full.length).toBeGreaterThan(OUTPUT_BUDGET.knowledge_read * 4)
    let offset = 0
    let rebuilt = ''
    for (let parts = 0; parts < 50; parts++) {
      const text = boundRead(full, doc.id, offset)
      expect(text.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_read)
      let content = offset ? text.replace(/^\[long from character \d+ of \d+\]\n/, '') : text
      const next = /\nContinue with|"offset": (\d+)\}\)\]$/.exec(text)
      const cont = /\[cut: [^\]]*"offset": (\d+)\}\)\]$/.exec(text)
      if (cont) content = content.slice(0, content.lastIndexOf('\n[cut: '))
      rebuilt += content
      if (!cont) break
      expect(next).not.toBeNull()
      const nextOffset = Number(cont[1])
      expect(nextOffset).toBe(offset + content.length)
      offset = nextOffset
    }
    expect(rebuilt).toBe(full)
  })

  it('never splits a surrogate pair, and refuses a bad offset', () => {
    const text = '😀'.repeat(1000)
    for (const max of [101, 102, 333, 500]) {
      const out = withinBudget(text, max, () => '[cut]')
      expect(out.length).toBeLessThanOrEqual(max)
      expect(out.replace('\n[cut]', '')).toMatch(/^(?:😀)+$/u)
    }
    expect(() => parseOffset(-1)).toThrow(/offset/)
    expect(() => parseOffset(1.5)).toThrow(/offset/)
    expect(parseOffset(undefined)).toBe(0)
    expect(boundRead('short', 'long', 10_000_000)).toMatch(/past its end/)
  })
})

describe('knowledge_search budget', () => {
  const hit = (k: number, over: Partial<SearchHit> = {}): SearchHit => ({
    id: `doc-${k}`,
    title: 'T'.repeat(5000),
    kind: 'manual',
    score: 1,
    snippet: 's'.repeat(5000),
    path: `d${k}.md`,
    cwd: '/w/'.repeat(2000),
    tags: Array.from({ length: 500 }, (_, t) => `tag-${t}`),
    tools: [],
    created: '2026-01-01T00:00:00Z',
    ...over,
  })

  it('keeps whole hits within the budget, says how many were left out, and bounds each field', () => {
    const hits = Array.from({ length: 50 }, (_, k) => hit(k))
    const text = renderHits('q'.repeat(20_000), hits, '/scope/'.repeat(1000))
    expect(text.length).toBeLessThanOrEqual(OUTPUT_BUDGET.knowledge_search)
    const shown = text.match(/^\d+\. doc-\d+/gm)!.length
    expect(shown).toBeGreaterThan(3)
    expect(text).toContain(`${50 - shown} more hit(s) left out`)
    expect(text).toContain('(+492)')
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(1200)
  })

  it('parse bounds: a 100k-tag, multi-line-title hand-written file becomes a bounded document', () => {
    const tags = Array.from({ length: 100_000 }, (_, k) => `t${k}`)
    const { meta } = parseDocument(`---\ntitle: "a\\nb ${'c'.repeat(10_000)}"\ntags: ${JSON.stringify(tags)}\ntools: ${JSON.stringify(tags)}\n---\n\nbody\n`, 'x.md', 'x', 0)
    expect(meta.title.length).toBeLessThanOrEqual(PARSE_LIMITS.title)
    expect(meta.title).not.toContain('\n')
    expect(meta.tags).toHaveLength(PARSE_LIMITS.tags)
    expect(meta.tools).toHaveLength(PARSE_LIMITS.tools)
    expect(() => parseDocument(`---\ncwd: ${JSON.stringify('/a'.repeat(3000))}\n---\n\nbody\n`, 'y.md', 'y', 0)).toThrow(/cwd is 6000 characters/)
  })
})
