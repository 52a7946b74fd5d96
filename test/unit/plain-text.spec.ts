/**
 * Snippets and the indexed body are what a person reads (issue 28, item 1): no status notice, no HTML comments, no
 * link targets, no Markdown emphasis made out of a glob; matches are offsets for the page and `**…**` for the model.
 * The bodies are the shapes the store and sync really write (relations.ts applyStatus, upstream.ts sectionBody).
 * @module dsh-knowledge-sync/test/unit/plain-text
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyStatus } from '../../src/knowledge/relations/relations.js'
import { sectionBody } from '../../src/knowledge/documents/upstream.js'
import { plainBody } from '../../src/search/plain-text.js'
import { SearchIndex } from '../../src/search/search-index.js'
import { markSnippet, snippet, snippetParts } from '../../src/search/snippet.js'
import type { KnowledgeDoc } from '../../src/types.js'

const superseded = applyStatus(
  {
    path: 'notes/notesab5-n2-ci-cache.md',
    meta: { id: 'notesab5-n2', title: 'CI cache key', kind: 'note', created: '2026-12-01T10:00:00Z', cwd: '/w', tools: [], tags: [] },
    body: '# CI cache key\n\n## Finding\n\nThe CI cache key must include the lockfile hash.\n\n## Links\n\n- [CI cache key for pnpm](./notesab5-n3-ci-cache-key-pnpm.md)\n',
  },
  { to: 'superseded', by: 'notesab5-n3', byPath: 'notes/notesab5-n3-ci-cache-key-pnpm.md', byTitle: 'CI cache key for pnpm', reason: 'pnpm store path changed' },
  '2026-12-01T12:00:00Z',
).body

const synced = `# Runbook\n\n<!-- upstream:start name="deploy" -->\n${sectionBody('https://example.test/deploy.md', '# Deploy\n\n- run the deploy script\n- tail /var/log/app/*.log for errors', '\n')}<!-- upstream:end -->\n`

describe('plainBody', () => {
  it('drops the status notice line, comments and link targets, and keeps the lines a reader sees', () => {
    expect(superseded).toContain('<!-- knowledge:status -->')
    const plain = plainBody(superseded)
    expect(plain).not.toContain('knowledge:status')
    expect(plain).not.toContain('Superseded')
    expect(plain).not.toContain('.md')
    expect(plain).toContain('- CI cache key for pnpm')
    expect(plain).toContain('## Finding\n\nThe CI cache key must include the lockfile hash.')
  })

  it('drops sync markers, keeps the synced text', () => {
    const plain = plainBody(synced)
    expect(plain).not.toMatch(/<!--|upstream:|example\.test/)
    expect(plain).toContain('- tail /var/log/app/*.log for errors')
  })

  it('leaves fenced code exactly as written, and closes a comment left open on its line where --> comes', () => {
    const code = '```html\n<!-- kept -->\n[a](b.md)\n```'
    expect(plainBody(code)).toBe(code)
    expect(plainBody('before <!-- open\nstill comment\nend --> after')).toBe('before \n after')
  })
})

describe('snippets are plain text', () => {
  it('a superseded note: no link target, no comment, no notice; matches offset and marked', () => {
    const parts = snippetParts(superseded, ['ci', 'cache'])
    expect(parts.text).not.toMatch(/\]\(|\.md|<!--|Superseded|\*\*/)
    expect(parts.marks.length).toBeGreaterThan(0)
    for (const [s, e] of parts.marks) expect(parts.text.slice(s, e).toLowerCase()).toMatch(/^(ci|cache)$/)
    expect(markSnippet(parts)).toBe(snippet(superseded, ['ci', 'cache']))
    expect(markSnippet(parts)).toContain('**CI** **cache** key')
  })

  it('a glob stays a glob (a single * is text, not emphasis) and the marks stay unambiguous beside it', () => {
    const parts = snippetParts(synced, ['log'])
    expect(parts.text).toContain('/var/log/app/*.log')
    expect(parts.marks.map(([s, e]) => parts.text.slice(s, e))).toEqual(['log', 'log'])
    const starred = snippetParts('***x** and **y***', ['x', 'y'])
    expect(starred.text).toBe('*x and y*')
    expect(starred.marks.map(([s, e]) => starred.text.slice(s, e))).toEqual(['x', 'y'])
  })
})

describe('the index holds plain text', () => {
  let index: SearchIndex
  beforeEach(() => {
    index = new SearchIndex()
  })
  afterEach(() => index.close())
  const doc = (id: string, body: string): KnowledgeDoc => ({
    id,
    path: `notes/${id}.md`,
    meta: { id, title: id, kind: 'note', created: '2026-12-01T10:00:00Z', cwd: '/w', tools: [], tags: [] },
    body,
    mtimeMs: 1,
  })

  it('the notice, the link paths and the markers are not searchable body text', () => {
    index.upsert(doc('old', superseded))
    index.upsert(doc('runbook', synced))
    expect(index.search('superseded').map((h) => h.id)).toEqual([])
    expect(index.search('notesab5').map((h) => h.id)).toEqual([])
    expect(index.search('upstream').map((h) => h.id)).toEqual([])
    expect(index.search('lockfile').map((h) => h.id)).toEqual(['old'])
    const [hit] = index.search('deploy script')
    expect(hit.id).toBe('runbook')
    expect(hit.snippet).not.toContain('<!--')
    expect(hit.excerpt?.text).toContain('run the deploy script')
  })
})
