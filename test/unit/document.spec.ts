import { describe, expect, it } from 'vitest'
import { DocumentError, formatDocument, isValidId, parseDocument, splitFrontMatter } from '../../src/knowledge/document.js'
import type { FrontMatter } from '../../src/types.js'

const meta: FrontMatter = { id: 'abc12345-t1', title: 'Why: "quotes" & colons', kind: 'raw', created: '2026-11-30T07:00:00.000Z', cwd: '/w', tools: ['bash'], tags: ['ci'] }

describe('document format', () => {
  it('round-trips front matter and a body that contains delimiters, YAML and {{', () => {
    const body = '# T\n\n## Answer\n\n---\nkey: value\n---\n{{ not a var }}\n'
    const text = formatDocument({ ...meta, salience: { score: 5, reasons: ['+cause'] }, redacted: 2 }, body)
    const parsed = parseDocument(text, 'x.md', 'fallback', 0)
    expect(parsed.meta.id).toBe('abc12345-t1')
    expect(parsed.meta.title).toBe(meta.title)
    expect(parsed.meta.salience).toEqual({ score: 5, reasons: ['+cause'] })
    expect(parsed.body).toBe(body)
  })

  it('keeps YAML-breaking titles inside their field', () => {
    const title = 'a: b\n---\nid: evil\n# c'
    const parsed = parseDocument(formatDocument({ ...meta, title }, 'x'), 'x.md', 'f', 0)
    expect(parsed.meta.id).toBe('abc12345-t1')
    expect(parsed.meta.title).toBe(title)
  })

  it('fills what a hand-written file leaves out', () => {
    const parsed = parseDocument('---\ntags: deploy, k8s\n---\n# Deploy checklist\n\nsteps', 'notes/deploy.md', 'deploy', Date.UTC(2026, 0, 2))
    expect(parsed.meta).toMatchObject({ id: 'deploy', title: 'Deploy checklist', kind: 'manual', cwd: '', tags: ['deploy', 'k8s'], tools: [] })
    expect(parsed.meta.created).toBe('2026-01-02T00:00:00.000Z')
  })

  it('refuses malformed front matter with a message naming the file', () => {
    expect(() => parseDocument('---\ntitle: [unclosed\n---\nbody', 'a/b.md', 'b', 0)).toThrow(DocumentError)
    expect(() => parseDocument('---\ntitle: [unclosed\n---\nbody', 'a/b.md', 'b', 0)).toThrow(/a\/b\.md: malformed front matter/)
    expect(() => parseDocument('no front matter', 'c.md', 'c', 0)).toThrow(/c\.md: no YAML front matter/)
    expect(() => parseDocument('---\n- a list\n---\n', 'd.md', 'd', 0)).toThrow(/not a mapping/)
    expect(() => parseDocument('---\nid: ../../etc/passwd\n---\n', 'e.md', 'e', 0)).toThrow(/invalid id/)
  })

  it('accepts CRLF files and a BOM', () => {
    expect(splitFrontMatter('\ufeff---\r\nid: x\r\n---\r\nbody')).toEqual({ yaml: 'id: x\r\n', body: 'body' })
  })
})

describe('ids', () => {
  it('refuses path tricks, NUL and oversize ids', () => {
    for (const bad of ['../x', '/etc/passwd', 'a/b', 'a\\b', '.hidden', 'x\0y', '', 'a..b', 'x'.repeat(200), 'a b']) expect(isValidId(bad)).toBe(false)
    for (const good of ['abc12345-t1', 'deploy', 'v1.2.3-notes', 'a_b']) expect(isValidId(good)).toBe(true)
  })
})
