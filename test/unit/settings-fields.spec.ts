/**
 * One declaration per setting: every field of src/knowledge/settings/fields.ts reaches the row's Config (with its default and
 * range), the live settings schema (without a default, same range), the page's form and both languages' labels.
 */
import { describe, expect, it } from 'vitest'
import { LIVE_FIELDS, SECTION_DECLS } from '../../src/knowledge/settings/fields.js'
import { KnowledgeSettings } from '../../src/knowledge/settings/settings.js'
import { Config as KnowledgeConfig } from '../../src/knowledge/index.js'
import { Config as CaptureConfig } from '../../src/capture/index.js'
import { Config as RecallConfig } from '../../src/recall/index.js'
import { DEFAULT_MASK } from '../../src/redact/redactor.js'
import { SECTIONS } from '../../client/config.js'
import { translator } from '../../client/i18n.js'

const rowConfig = { redact: (v: unknown) => KnowledgeConfig({ redact: v } as never).redact, capture: CaptureConfig, recall: RecallConfig }
const at = (value: unknown, path: string) => path.split('.').reduce<any>((v, k) => v?.[k], value)
const nest = (path: string, leaf: unknown) => path.split('.').reduceRight<unknown>((v, k) => ({ [k]: v }), leaf)

describe('each live setting is declared once', () => {
  it.each(LIVE_FIELDS.map((f) => [`${f.section}.${f.path}`, f] as const))('%s: row default, live schema range, form and labels', (_key, field) => {
    const row = rowConfig[field.section]
    expect(at(row({} as never), field.path)).toEqual(field.default)
    if (field.max !== undefined && (field.type === 'number' || field.type === 'integer')) {
      expect(() => row(nest(field.path, field.max! + 1) as never)).toThrow(/expected number <=/)
      expect(() => KnowledgeSettings({ [field.section]: nest(field.path, field.max! + 1) } as never)).toThrow(/expected number <=/)
    }
    // The live layer has no defaults: an empty section stays empty, so an unset field inherits the row's value.
    expect(at(KnowledgeSettings({} as never), `${field.section}.${field.path}`) ?? undefined).toEqual(field.type === 'lines' ? [] : undefined)
    const section = SECTIONS.find((s) => s.name === field.section)!
    expect(section.fields.map((f) => f.key)).toContain(`${field.section}.${field.path}`)
    expect(translator('en')(`f_${field.section}.${field.path}`)).toBe(field.label.en)
    expect(translator('zh')(`h_${field.section}.${field.path}`)).toBe(field.hint.zh)
  })

  it('sections keep their order and owning rows, and shared defaults agree with the engine', () => {
    expect(SECTIONS.map((s) => [s.name, s.row])).toEqual(SECTION_DECLS.map((s) => [s.name, s.row]))
    expect(LIVE_FIELDS.find((f) => f.section === 'redact' && f.path === 'mask')!.default).toBe(DEFAULT_MASK)
    expect(translator('zh')('section_redact')).toBe('脱敏')
  })
})
