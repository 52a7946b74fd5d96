import { describe, expect, it } from 'vitest'
import { DocumentError, formatDocument, isValidId, parseDocument, readSimpleFrontMatter, splitFrontMatter } from '../../src/knowledge/documents/document.js'
import { parse as parseYaml } from 'yaml'
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
    // A title is one line when read (issue 10.9: no field can add lines to a tool's output).
    expect(parsed.meta.title).toBe('a: b --- id: evil # c')
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

describe('the fast front-matter reader', () => {
  const awkward = [
    'plain',
    'true',
    'No',
    'null',
    '~',
    '0123',
    '1.5',
    '-x',
    '.inf',
    'a: b',
    'x #y',
    '"q"',
    "it's",
    '{{ v }}',
    '[a]',
    '2026-11-30T07:00:00.000Z',
    '2026-11-30',
    '8460c413-t1',
    '12345678-n2',
    '1e5',
    '0x1F',
    '0o17',
    '0b101',
    '1_000',
    '12:30',
    '1.2.3',
    '3f2a9c1e',
    '/home/me/proj',
    'C:\\work',
    'tab\there',
    'line\nbreak',
    '\u2028',
    '中文标题',
    '🎉',
    '',
    ' lead',
    'trail ',
    '---',
    '...',
    '%TAG',
    '@at',
    '`tick`',
    '!tag',
    '&anchor',
    '*alias',
    '? q',
    '| pipe',
    '> fold',
  ]
  it('reads what formatDocument writes exactly as a YAML parser does, for awkward values', () => {
    for (const value of awkward) {
      const meta = { ...meta0(), title: value, cwd: value, tags: [value, 'x'], extra: { nested: value, n: 3 } }
      const yaml = splitFrontMatter(formatDocument(meta, 'body'))!.yaml
      const fast = readSimpleFrontMatter(yaml)
      expect(fast, JSON.stringify(value)).toBeDefined()
      expect(fast).toEqual(parseYaml(yaml))
      expect(fast!.title).toBe(value)
    }
  })
  it('writes ids unquoted, also when they start with a digit, so `id: <id>` greps', () => {
    for (const id of ['8460c413-t1', 'abc12345-n2', '00000000-t9']) expect(formatDocument({ ...meta0(), id }, 'b')).toContain(`\nid: ${id}\n`)
  })
  it('declines hand-written YAML, which then goes through the full parser', () => {
    expect(readSimpleFrontMatter('tags:\n  - a\n  - b\n')).toBeUndefined()
    expect(readSimpleFrontMatter('title: hello world\n')).toBeUndefined()
    expect(readSimpleFrontMatter('# comment\nid: x\n')).toBeUndefined()
    expect(parseDocument('---\ntitle: hello world\ntags:\n  - a\n---\nbody', 'h.md', 'h', 0).meta).toMatchObject({ title: 'hello world', tags: ['a'] })
  })
})

const meta0 = (): FrontMatter => ({ ...meta })

describe('ids', () => {
  it('refuses path tricks, NUL and oversize ids', () => {
    for (const bad of ['../x', '/etc/passwd', 'a/b', 'a\\b', '.hidden', 'x\0y', '', 'a..b', 'x'.repeat(200), 'a b']) expect(isValidId(bad)).toBe(false)
    for (const good of ['abc12345-t1', 'deploy', 'v1.2.3-notes', 'a_b']) expect(isValidId(good)).toBe(true)
  })
})
