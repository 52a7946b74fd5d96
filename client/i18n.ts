/**
 * The page's English and Chinese labels, and which of the two is active: the dsh locale (`ctx.locale`) when the
 * client provides one, else the browser's language. The page keeps its own dictionaries instead of registering a
 * namespace with dsh, so a missing locale service can never fail its rendering. The dictionaries themselves are in
 * `i18n/en.ts` and `i18n/zh.ts`.
 * @module dsh-knowledge-sync/client/i18n
 */

import { LIVE_FIELDS, SECTION_DECLS } from '../src/knowledge/settings/fields.js'
import { en } from './i18n/en.js'
import { zh } from './i18n/zh.js'
import { dailyEn, dailyZh } from './i18n/daily.js'

/** The two shipped languages. */
export type Lang = 'en' | 'zh'

/** The Config tab's section titles and field labels and hints, from the one declaration of each setting. */
function settingsLabels(lang: Lang): Record<string, string> {
  const out: Record<string, string> = {}
  for (const section of SECTION_DECLS) out[`section_${section.name}`] = section.label[lang]
  for (const field of LIVE_FIELDS) {
    out[`f_${field.section}.${field.path}`] = field.label[lang]
    out[`h_${field.section}.${field.path}`] = field.hint[lang]
  }
  return out
}

/** A key of the page's own messages, or of a settings label derived from the field declarations. */
export type MessageKey = keyof typeof en | keyof typeof dailyEn | `section_${string}` | `f_${string}` | `h_${string}` | `kindHint_${string}` | `reason_${string}`

const DICTS: Record<Lang, Record<string, string>> = { en: { ...en, ...dailyEn, ...settingsLabels('en') }, zh: { ...zh, ...dailyZh, ...settingsLabels('zh') } }

/** Translates one key with `{name}` parameters. */
export type Translate = (key: MessageKey, params?: Record<string, unknown>) => string

/** The translate function of one language (missing keys fall back to English, then to the key itself). */
export function translator(lang: Lang): Translate {
  const dict = DICTS[lang]
  return (key, params) => {
    const template = dict[key] ?? DICTS.en[key] ?? key
    if (!params) return template
    return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
  }
}

/** Maps a locale id or BCP 47 tag to a shipped language; anything but Chinese reads English. */
export function langOf(tag: string | undefined | null): Lang | undefined {
  if (!tag) return undefined
  const primary = tag.toLowerCase().split(/[-_]/)[0]
  if (primary === 'zh') return 'zh'
  if (primary === 'en') return 'en'
  return undefined
}

/** The browser's own first shipped language (what dsh itself would open in without a stored preference). */
export function browserLang(): Lang {
  if (typeof navigator === 'undefined') return 'en'
  for (const tag of [...(navigator.languages ?? []), navigator.language]) {
    const lang = langOf(tag)
    if (lang) return lang
  }
  return 'en'
}

/** The active language as an observable source: dsh's locale service once attached, else the browser's language. */
export class LocaleSource {
  private readonly fallback: Lang = browserLang()
  private readonly listeners = new Set<() => void>()
  private read: (() => string | undefined) | undefined
  private last: Lang = this.fallback

  /** The active language, read live (so a label read during dsh's own locale notification is already current). */
  get(): Lang {
    try {
      const lang = langOf(this.read?.())
      if (lang) return lang
    } catch {
      /* a failing locale service reads as absent */
    }
    return this.fallback
  }

  /** Follows dsh's locale service: `read` returns its active id. Returns the detach. */
  follow(read: () => string | undefined): () => void {
    this.read = read
    this.changed()
    return () => {
      if (this.read !== read) return
      this.read = undefined
      this.changed()
    }
  }

  /** Notifies listeners if the active language moved. */
  changed(): void {
    const next = this.get()
    if (next === this.last) return
    this.last = next
    for (const listener of [...this.listeners]) listener()
  }

  /** Observe language changes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Translate in the active language (for labels read outside React, like the nav row). */
  t(key: MessageKey, params?: Record<string, unknown>): string {
    return translator(this.get())(key, params)
  }
}
