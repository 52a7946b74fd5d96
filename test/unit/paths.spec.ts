import { describe, expect, it } from 'vitest'
import { insideRoot, resolveRoot, sessionFolder, sessionShortId, slugify } from '../../src/knowledge/documents/paths.js'

describe('paths', () => {
  it('takes the first 8 characters of the session uuid', () => {
    expect(sessionShortId('session-3f2a9c1e-1111-4222-8333-444455556666')).toBe('3f2a9c1e')
    expect(sessionShortId('session-3f2a9c1e-1111-4222-8333-444455556666', 12)).toBe('3f2a9c1e1111')
    expect(sessionShortId('../../')).toMatch(/^[a-f0-9]{8}$/)
  })

  it('makes safe folder names from any session id', () => {
    expect(sessionFolder('session-abc')).toBe('session-abc')
    for (const hostile of ['../../etc', '/abs/path', '..', '.', 'a/b\\c', 'x\0y']) {
      const folder = sessionFolder(hostile)
      expect(folder).not.toMatch(/[/\\\0]/)
      expect(folder).not.toMatch(/^\.+$/)
      expect(folder.length).toBeGreaterThan(0)
    }
  })

  it('slugs are lowercase ASCII, bounded, never empty', () => {
    expect(slugify('Why does `pnpm install` fail with ERR_PNPM_FETCH_404?')).toBe('why-does-pnpm-install-fail-with-err-pnpm-fetch')
    expect(slugify('为什么构建失败')).toMatch(/^round-[a-f0-9]{8}$/)
    expect(slugify('🎉🎉')).toMatch(/^round-[a-f0-9]{8}$/)
    expect(slugify('Café crème')).toBe('cafe-creme')
    expect(slugify('../../etc/passwd')).toBe('etc-passwd')
    expect(slugify('x'.repeat(500)).length).toBeLessThanOrEqual(48)
  })

  it('never resolves outside the root', () => {
    expect(insideRoot('/r', 'a/b.md')).toBe('/r/a/b.md')
    for (const bad of ['../x', '/etc/passwd', 'a/../../x', '', 'a\0b']) expect(() => insideRoot('/r', bad)).toThrow()
  })

  it('resolves the root from the flag, then the environment, then ./knowledge', () => {
    expect(resolveRoot('/x', { DSH_KNOWLEDGE_ROOT: '/y' }, '/c')).toBe('/x')
    expect(resolveRoot(undefined, { DSH_KNOWLEDGE_ROOT: '/y' }, '/c')).toBe('/y')
    expect(resolveRoot('', {}, '/c')).toBe('/c/knowledge')
  })
})
