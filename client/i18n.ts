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
  searchKeys: 'Keys: / search, j/k move, Enter opens, Escape goes back',
  sortBy: 'Sort hits',
  sortRelevance: 'Most relevant',
  sortDate: 'Newest first',
  aboutList: 'About this list',
  freshCount: '{count} new',
  backKeys: 'Back to the list (Escape)',
  copyId: 'Copy id',
  copyPath: 'Copy path',
  copied: 'Copied',
  filterByTag: 'Show documents tagged {tag}',
  redactedOne: '1 value masked',
  kindHint_raw: 'raw: a captured conversation round, as it happened',
  kindHint_note: 'note: a finding the agent recorded on purpose',
  kindHint_distilled: 'distilled: a captured round condensed by a small model call',
  kindHint_manual: 'manual: a file a person wrote or a synced source',
  kindHint_preference: 'preference: how the person wants things done, quoted from them',
  'reason_cause': 'cause',
  'reason_decision': 'decision',
  'reason_workaround': 'workaround',
  'reason_correction': 'correction',
  'reason_error-code': 'error code',
  'reason_command': 'command',
  'reason_config': 'config value',
  'reason_version': 'version',
  'reason_fix': 'fix',
  'reason_rule': 'rule',
  'reason_path': 'path',
  'reason_code-block': 'code block',
  'reason_length': 'length',
  'reason_echo': 'echoes the question',
  'reason_terse-status': 'terse status',
  'reason_ack': 'acknowledgement',
  'reason_too-short': 'too short',
  'reason_no-signal': 'no signal',
  'reason_weak-signal': 'weak signal',
  'reason_no-answer': 'no answer',
  'reason_below-bar': 'below the raised bar',
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
  readOnlyHint: 'Documents are plain files under {root}: your editor is the place to change one (the index follows). Here you can retire a wrong document (with a reason) and restore it; nothing is deleted.',
  statsDocuments: '{count} documents',
  statsKept: '{count} rounds kept',
  statsDropped: '{count} dropped',
  statsTopReason: ' (mostly {reason})',
  statsRedacted: '{count} values masked',
  statsRedactedOne: '1 value masked',
  loading: 'Loading…',
  empty: 'No documents yet. Every conversation round worth keeping (a cause found, a decision, a fix; not "12 passed") is saved as a Markdown file under {root}, with credentials masked. To try it, ask the agent in a chat why something fails, then come back here.',
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
  kind_preference: 'preference',
  filterStatus: 'Status',
  statusCurrent: 'Current (not retired)',
  status_active: 'active',
  status_all: 'all, retired included',
  status_superseded: 'superseded',
  status_retired: 'retired',
  supersededBy: 'Superseded by',
  supersedesLabel: 'Supersedes',
  linkedFrom: 'Linked from',
  retireButton: 'Retire…',
  retireReason: 'Why is this document wrong?',
  retireConfirm: 'Retire',
  retireCancel: 'Cancel',
  restoreButton: 'Restore',
  retiredNotice: 'Retired on {at} — “{reason}”. It no longer appears in search; restore it to bring it back.',
  statusFailed: 'Could not change the document: {message}',
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
  inheritedHint: 'Not set here: the value comes from the row\'s own config (its cordis.patch.yml row, or the default).',
  overriddenHint: 'Set here (stored in $DSH_HOME/settings.yaml); Reset returns to the row\'s own value.',
  unsaved: 'Unsaved',
  unsavedHint: 'This edit is not applied yet: press Save (or Enter).',
  resetHint: 'Remove the value set here and return to the row\'s own config.',
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
  // Sources
  tabSources: 'Sources',
  sourcesIntro: 'Sections of curated documents kept current with their upstream sources ({file}). Only the text between the upstream markers changes.',
  sourcesOff: 'The knowledge-sync row is not running, so there is nothing to show. Enable it in the profile to keep curated documents current.',
  sourcesNone: 'No sources yet. Declare them in {file}.',
  sourcesError: 'sources.yml cannot be read: {message}',
  sourcesUnreachable: 'The sources route is not answering ({message}).',
  sourcesLastRun: 'Last sync: {time}',
  sourcesNever: 'never synced',
  dryRun: 'Preview changes',
  syncNow: 'Sync now',
  syncing: 'Working…',
  syncDone: 'Done: {summary}',
  syncFailed: 'Failed: {message}',
  colSource: 'Source',
  colTarget: 'Target',
  colStatus: 'Last status',
  colCache: 'Cache',
  cacheFresh: 'fresh, fetched {time}',
  cacheStale: 'stale, fetched {time}',
  cacheNone: 'not cached',
  cacheLocal: 'local file',
  fromCache: 'from cache',
  noDiff: 'No change.',
  originDecision: 'curated',
  originInvalid: 'invalid entry',
  // Masking switch (issue 16.2)
  maskingOff: 'Credential masking is OFF. New rounds and notes are written to disk with tokens, passwords and keys exactly as they appeared, and later sessions can read them back.',
  maskingOn: 'Turn masking back on',
  confirmMaskingOffTitle: 'Turn off credential masking?',
  confirmMaskingOffBody: 'From now on, every round and note is written to disk as it is: a token, password or key in a question, an answer or a tool call lands in a plain Markdown file under the knowledge root, where later sessions, the page and anyone who can read the folder see it. Documents already written stay masked. Applies at once, to every dsh process that reads these settings.',
  confirmMaskingOff: 'Turn masking off',
  keepMasking: 'Keep masking on',
  unreadableFiles: '{count} file(s) under the root are not indexed: {first}',
  filtersToggle: 'Filters',
  filtersCount: 'Filters ({count})',
  roundsTitle: 'What the bar does',
  roundsHint: 'The last {count} rounds this root scored (from the ledger, titles only): {kept} kept, {dropped} dropped. Filled dots were kept; the line is the minScore in force.',
  roundsAria: 'Salience scores of the last {count} rounds: {kept} kept; minScore {bar}',
  roundsNone: 'No rounds scored yet: the chart of what the bar keeps appears after the first chat round.',
  roundsTry: 'Try a bar',
  roundsTrialLine: 'try {bar}',
  roundsNow: 'Now {kept} of {count} were kept. Type a bar to see what it would keep; nothing is saved.',
  roundsWouldKeep: 'At {bar}: {kept} of {count} would be kept (now {now}). Nothing is saved until you save minScore above.',
  roundsDropped: 'Recently dropped ({count})',
}

/** A key of the page's own messages, or of a settings label derived from the field declarations. */
export type MessageKey = keyof typeof en | `section_${string}` | `f_${string}` | `h_${string}` | `kindHint_${string}` | `reason_${string}`

const zh: Record<keyof typeof en, string> = {
  nav: '知识库',
  title: '知识库',
  intro: '值得保留的对话轮次，以 Markdown 文件保存，凭据已脱敏。之后的会话用 knowledge_search 检索它们。',
  tabs: '知识库视图',
  tabDocuments: '文档',
  tabConfig: '配置',
  tabHealth: '健康度',
  searchKeys: '快捷键：/ 搜索，j/k 移动，Enter 打开，Escape 返回',
  sortBy: '结果排序',
  sortRelevance: '最相关',
  sortDate: '最新优先',
  aboutList: '关于这个列表',
  freshCount: '新增 {count} 篇',
  backKeys: '返回列表（Escape）',
  copyId: '复制 ID',
  copyPath: '复制路径',
  copied: '已复制',
  filterByTag: '只看带 {tag} 标签的文档',
  redactedOne: '已脱敏 1 处',
  kindHint_raw: 'raw：采集到的对话轮次，原样保存',
  kindHint_note: 'note：智能体主动记录的发现',
  kindHint_distilled: 'distilled：经一次小模型调用提炼过的轮次',
  kindHint_manual: 'manual：人手写的文件或同步来的来源',
  kindHint_preference: 'preference：用户的偏好，引用其原话',
  'reason_cause': '原因',
  'reason_decision': '决定',
  'reason_workaround': '绕过办法',
  'reason_correction': '更正',
  'reason_error-code': '错误码',
  'reason_command': '命令',
  'reason_config': '配置值',
  'reason_version': '版本',
  'reason_fix': '修复',
  'reason_rule': '规则',
  'reason_path': '路径',
  'reason_code-block': '代码块',
  'reason_length': '篇幅',
  'reason_echo': '复述问题',
  'reason_terse-status': '简短状态',
  'reason_ack': '确认语',
  'reason_too-short': '过短',
  'reason_no-signal': '无信号',
  'reason_weak-signal': '信号太弱',
  'reason_no-answer': '没有回答',
  'reason_below-bar': '低于调高后的门槛',
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
  readOnlyHint: '文档是 {root} 下的普通文件：请用编辑器修改（索引会随之更新）。在这里可以停用一篇有误的文档（需写明原因）并恢复它；不会删除任何文件。',
  statsDocuments: '{count} 篇文档',
  statsKept: '保留 {count} 轮',
  statsDropped: '丢弃 {count} 轮',
  statsTopReason: '（主要原因 {reason}）',
  statsRedacted: '已脱敏 {count} 处',
  statsRedactedOne: '已脱敏 1 处',
  loading: '加载中…',
  empty: '还没有文档。每个值得保留的对话轮次（找到了原因、做了决定、给出了修复；不包括 “12 passed”）都会以 Markdown 文件保存在 {root} 下，凭据已脱敏。想试试的话，在对话里问智能体某个东西为什么失败，然后回到这里。',
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
  kind_preference: '偏好',
  filterStatus: '状态',
  statusCurrent: '当前（不含已停用）',
  status_active: '生效中',
  status_all: '全部（含已停用）',
  status_superseded: '已被取代',
  status_retired: '已停用',
  supersededBy: '已被取代为',
  supersedesLabel: '取代了',
  linkedFrom: '被以下文档链接',
  retireButton: '停用…',
  retireReason: '这篇文档错在哪里？',
  retireConfirm: '停用',
  retireCancel: '取消',
  restoreButton: '恢复',
  retiredNotice: '于 {at} 停用——“{reason}”。它已不再出现在搜索中；恢复后即可重新搜索到。',
  statusFailed: '无法更改文档：{message}',
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
  inheritedHint: '这里没有设置：该值来自行自身的配置（cordis.patch.yml 中的行，或默认值）。',
  overriddenHint: '在这里设置（保存在 $DSH_HOME/settings.yaml）；“重置”会回到行自身的值。',
  unsaved: '未保存',
  unsavedHint: '这个修改还没有生效：请按“保存”（或回车）。',
  resetHint: '删除这里设置的值，回到行自身的配置。',
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
  tabSources: '来源',
  sourcesIntro: '精选文档中与上游来源保持同步的段落（{file}）。只有上游标记之间的文本会被替换。',
  sourcesOff: 'knowledge-sync 行未运行，因此这里没有内容。在 profile 中启用它即可让精选文档保持最新。',
  sourcesNone: '还没有来源。请在 {file} 中声明。',
  sourcesError: '无法读取 sources.yml：{message}',
  sourcesUnreachable: '来源路由没有响应（{message}）。',
  sourcesLastRun: '上次同步：{time}',
  sourcesNever: '从未同步',
  dryRun: '预览变更',
  syncNow: '立即同步',
  syncing: '处理中…',
  syncDone: '完成：{summary}',
  syncFailed: '失败：{message}',
  colSource: '来源',
  colTarget: '目标',
  colStatus: '上次状态',
  colCache: '缓存',
  cacheFresh: '有效，获取于 {time}',
  cacheStale: '已过期，获取于 {time}',
  cacheNone: '未缓存',
  cacheLocal: '本地文件',
  fromCache: '来自缓存',
  noDiff: '没有变更。',
  originDecision: '精选',
  originInvalid: '无效条目',
  maskingOff: '凭据脱敏已关闭。新的对话轮次和笔记会把令牌、密码和密钥原样写入磁盘，之后的会话可以读到它们。',
  maskingOn: '重新打开脱敏',
  confirmMaskingOffTitle: '关闭凭据脱敏？',
  confirmMaskingOffBody: '从现在起，每个对话轮次和笔记都按原样写入磁盘：问题、回答或工具调用中的令牌、密码或密钥会留在知识库根目录下的普通 Markdown 文件里，之后的会话、本页面以及任何能读取该目录的人都能看到。已写入的文档保持脱敏。立即生效，作用于读取这些设置的每个 dsh 进程。',
  confirmMaskingOff: '关闭脱敏',
  keepMasking: '保持脱敏',
  unreadableFiles: '根目录下有 {count} 个文件未被索引：{first}',
  filtersToggle: '筛选',
  filtersCount: '筛选（{count}）',
  roundsTitle: '门槛的效果',
  roundsHint: '此根目录最近评分的 {count} 个轮次（来自台账，仅标题）：保留 {kept} 个，丢弃 {dropped} 个。实心点为保留；横线是当前的 minScore。',
  roundsAria: '最近 {count} 个轮次的显著性得分：保留 {kept} 个；minScore {bar}',
  roundsNone: '还没有评分过的轮次：第一个对话轮次之后，这里会显示门槛保留了哪些。',
  roundsTry: '试一个门槛',
  roundsTrialLine: '试 {bar}',
  roundsNow: '目前 {count} 个中保留了 {kept} 个。输入一个门槛看看会保留多少；不会保存。',
  roundsWouldKeep: '门槛为 {bar} 时：{count} 个中会保留 {kept} 个（目前 {now} 个）。在上方保存 minScore 之前不会生效。',
  roundsDropped: '最近丢弃的轮次（{count}）',
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
