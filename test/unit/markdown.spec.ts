/**
 * The page's Markdown reader (client/markdown.tsx), which is the XSS-safety code: it builds React elements, never HTML.
 * Parsing only here (no DOM): links keep only http(s), raw HTML stays text, identifiers keep their underscores.
 */
import { describe, expect, it } from 'vitest'
import { parseBlocks, parseInline, safeHref } from '../../client/markdown.js'

const text = (spans: ReturnType<typeof parseInline>): string => spans.map((s: any) => s.text ?? (s.children ? text(s.children) : '')).join('')

describe('inline Markdown', () => {
  it('keeps identifiers with underscores exactly (no emphasis inside or at the edges of words)', () => {
    for (const id of [':_authToken=${NPM_TOKEN}', 'ERR_PNPM_FETCH_404', '__init__.py', '_private_helper', 'a_b_c_', 'snake_case and x_y', 'call obj._private and a.__dict__']) {
      const spans = parseInline(id)
      expect(text(spans), id).toBe(id)
    }
    expect(parseInline(':_authToken=${NPM_TOKEN}').some((s: any) => s.type === 'em' || s.type === 'strong')).toBe(false)
  })

  it('still reads real emphasis and the search marks', () => {
    expect(parseInline('a **bold** word').some((s: any) => s.type === 'strong')).toBe(true)
    expect(parseInline('an _emphasised_ word').some((s: any) => s.type === 'em')).toBe(true)
  })

  it('allows only absolute http(s) links; every other scheme is text', () => {
    expect(safeHref('https://example.com/a')).toBe('https://example.com/a')
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>', 'vbscript:x', '//evil.example', '/relative']) expect(safeHref(bad), bad).toBeUndefined()
    const spans = parseInline('[click](javascript:alert(1))')
    expect(spans.some((s: any) => s.type === 'link')).toBe(false)
  })

  it('keeps raw HTML as text', () => {
    const blocks = parseBlocks('<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>')
    expect(JSON.stringify(blocks)).toContain('<script>alert(1)</script>')
    expect(JSON.stringify(blocks)).not.toMatch(/"type":"html"/)
  })

  it('survives deep nesting and a huge source', () => {
    expect(() => parseBlocks('> '.repeat(10_000) + 'x')).not.toThrow()
    expect(() => parseInline('['.repeat(50_000) + 'x' + ']'.repeat(50_000))).not.toThrow()
  })
})
