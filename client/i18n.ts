/**
 * The page's English and Chinese labels, and which of the two is active: the dsh locale (`ctx.locale`) when the
 * client provides one, else the browser's language. The page keeps its own dictionaries instead of registering a
 * namespace with dsh, so a missing locale service can never fail its rendering.
 * @module dsh-knowledge-sync/client/i18n
 */

import { LIVE_FIELDS, SECTION_DECLS } from '../src/knowledge/fields.js'

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

const en = {
  nav: 'Knowledge',
  title: 'Knowledge',
  intro: 'Conversation rounds worth keeping, saved as Markdown files with credentials masked. Later sessions search them with knowledge_search.',
  tabs: 'Knowledge views',
  tabDocuments: 'Documents',
  tabConfig: 'Config',
  tabHealth: 'Health',
  healthIntro: 'How findable the base is: every document is searched for with its own title and finding (no model call). Documents their own words do not find, and near-duplicates, are candidates to fix or supersede.',
  healthRun: 'Probe now',
  healthRunning: 'Probing…',
  healthFigures: 'recall@5 {recall}, MRR {mrr} ({probed} of {documents} documents probed)',
  healthUnfindable: 'Not found by their own words: {count}',
  healthDuplicates: 'Near-duplicates: {count}',
  healthGrowth: 'Rounds kept (up) and dropped (down) per day, last {days} days',
  healthRecallOverTime: 'Probe recall@5 over time',
  // Documents
  search: 'Search',
  searchPlaceholder: 'Search documents…',
  filterKind: 'Kind',
  filterTag: 'Tag',
  filterTool: 'Tool',
  filterWorkspace: 'Workspace',
  allKinds: 'All kinds',
  allTags: 'All tags',
  allTools: 'All tools',
  allWorkspaces: 'All workspaces',
  clear: 'Clear',
  refresh: 'Refresh',
  readOnlyHint: 'Documents are read-only here, on purpose: they are plain files under {root}, and your editor is the place to change or delete one (the index follows).',
  statsDocuments: '{count} documents',
  statsKept: '{count} rounds kept',
  statsDropped: '{count} dropped',
  statsTopReason: ' (mostly {reason})',
  statsRedacted: '{count} values masked',
  loading: 'Loading…',
  empty: 'No documents yet. Rounds worth keeping appear here as they are captured.',
  noMatches: 'No documents match.',
  shown: '{shown} of {total}',
  loadMore: 'Load more',
  unreachable: 'The knowledge routes are not answering ({message}). Is the knowledge-http row running?',
  back: '← All documents',
  notFound: 'This document is gone: {message}',
  kind_raw: 'round',
  kind_note: 'note',
  kind_distilled: 'distilled',
  kind_manual: 'manual',
  metaKind: 'Kind',
  metaCreated: 'Created',
  metaWorkspace: 'Workspace',
  metaSession: 'Session',
  metaTools: 'Tools',
  metaTags: 'Tags',
  metaSalience: 'Salience',
  metaRedacted: 'Redacted',
  metaFile: 'File',
  salienceScore: 'score {score}',
  redactedCount: '{count} values masked',
  turn: 'turn {turn}',
  none: 'none',
  // Config
  configIntro: 'Overrides live in the “knowledge” settings namespace ($DSH_HOME/settings.yaml). Saved values take effect without a restart; Reset returns a field to the value the row’s own config gives it.',
  settingsWaiting: 'Connecting to live settings…',
  settingsUnavailable: 'Live settings are unavailable: no settings service is mounted, so the rows’ own config stays authoritative. The effective config, read-only:',
  settingsReadOnly: 'The settings document is read-only, so nothing can be changed here. The effective config:',
  configUnreachable: 'The effective config could not be read ({message}).',
  rowNotRunning: 'The {row} row is not running: these settings have no effect until it is.',
  rowPatterns: 'Row patterns (always applied): {patterns}',
  inherited: 'Inherited: {value}',
  overridden: 'Overridden',
  notOverridden: 'Inherited',
  effective: 'Effective: {value}',
  save: 'Save',
  reset: 'Reset',
  saving: 'Saving…',
  saved: 'Saved.',
  refused: 'Refused: {message}',
  notANumber: 'Enter a number.',
  on: 'on',
  off: 'off',
  empty_value: '(empty)',
  crashed: 'The Knowledge page failed: {message}',
}

/** A key of the page's own messages, or of a settings label derived from the field declarations. */
export type MessageKey = keyof typeof en | `section_${string}` | `f_${string}` | `h_${string}`

const zh: Record<keyof typeof en, string> = {
  nav: '知识库',
  title: '知识库',
  intro: '值得保留的对话轮次，以 Markdown 文件保存，凭据已脱敏。之后的会话用 knowledge_search 检索它们。',
  tabs: '知识库视图',
  tabDocuments: '文档',
  tabConfig: '配置',
  tabHealth: '健康度',
  healthIntro: '知识库有多容易被找到：用每篇文档自己的标题和结论去检索它（不调用模型）。用自己的话都找不到的文档和近似重复的文档，适合修正或用新文档取代。',
  healthRun: '立即检测',
  healthRunning: '检测中…',
  healthFigures: 'recall@5 {recall}，MRR {mrr}（检测了 {documents} 篇中的 {probed} 篇）',
  healthUnfindable: '用自己的话找不到的文档：{count}',
  healthDuplicates: '近似重复：{count}',
  healthGrowth: '每天保留（上）和丢弃（下）的轮次，最近 {days} 天',
  healthRecallOverTime: '检测的 recall@5 随时间变化',
  search: '搜索',
  searchPlaceholder: '搜索文档…',
  filterKind: '类型',
  filterTag: '标签',
  filterTool: '工具',
  filterWorkspace: '工作区',
  allKinds: '全部类型',
  allTags: '全部标签',
  allTools: '全部工具',
  allWorkspaces: '全部工作区',
  clear: '清除',
  refresh: '刷新',
  readOnlyHint: '文档在此页面上是只读的，这是有意为之：它们是 {root} 下的普通文件，请用编辑器修改或删除（索引会随之更新）。',
  statsDocuments: '{count} 篇文档',
  statsKept: '保留 {count} 轮',
  statsDropped: '丢弃 {count} 轮',
  statsTopReason: '（主要原因 {reason}）',
  statsRedacted: '已脱敏 {count} 处',
  loading: '加载中…',
  empty: '还没有文档。值得保留的轮次被采集后会出现在这里。',
  noMatches: '没有匹配的文档。',
  shown: '{shown} / {total}',
  loadMore: '加载更多',
  unreachable: '知识库接口没有响应（{message}）。knowledge-http 行是否在运行？',
  back: '← 全部文档',
  notFound: '该文档已不存在：{message}',
  kind_raw: '轮次',
  kind_note: '笔记',
  kind_distilled: '提炼',
  kind_manual: '手写',
  metaKind: '类型',
  metaCreated: '创建时间',
  metaWorkspace: '工作区',
  metaSession: '会话',
  metaTools: '工具',
  metaTags: '标签',
  metaSalience: '显著性',
  metaRedacted: '脱敏',
  metaFile: '文件',
  salienceScore: '得分 {score}',
  redactedCount: '已脱敏 {count} 处',
  turn: '第 {turn} 轮',
  none: '无',
  configIntro: '覆盖值保存在 “knowledge” 设置命名空间（$DSH_HOME/settings.yaml）中。保存后无需重启即可生效；“重置”让字段回到行配置给出的值。',
  settingsWaiting: '正在连接实时设置…',
  settingsUnavailable: '实时设置不可用：没有挂载设置服务，因此以各行自身的配置为准。当前生效的配置（只读）：',
  settingsReadOnly: '设置文件是只读的，此处无法修改。当前生效的配置：',
  configUnreachable: '无法读取当前生效的配置（{message}）。',
  rowNotRunning: '{row} 行没有运行：在它运行之前这些设置不起作用。',
  rowPatterns: '行自身的模式（始终生效）：{patterns}',
  inherited: '继承值：{value}',
  overridden: '已覆盖',
  notOverridden: '继承',
  effective: '生效值：{value}',
  save: '保存',
  reset: '重置',
  saving: '保存中…',
  saved: '已保存。',
  refused: '被拒绝：{message}',
  notANumber: '请输入数字。',
  on: '开',
  off: '关',
  empty_value: '（空）',
  crashed: '知识库页面出错：{message}',
}

const DICTS: Record<Lang, Record<string, string>> = { en: { ...en, ...settingsLabels('en') }, zh: { ...zh, ...settingsLabels('zh') } }

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
    } catch { /* a failing locale service reads as absent */ }
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
    return () => { this.listeners.delete(listener) }
  }

  /** Translate in the active language (for labels read outside React, like the nav row). */
  t(key: MessageKey, params?: Record<string, unknown>): string {
    return translator(this.get())(key, params)
  }
}
