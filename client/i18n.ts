/**
 * The page's English and Chinese labels, and which of the two is active: the dsh locale (`ctx.locale`) when the
 * client provides one, else the browser's language. The page keeps its own dictionaries instead of registering a
 * namespace with dsh, so a missing locale service can never fail its rendering.
 * @module dsh-knowledge-sync/client/i18n
 */

/** The two shipped languages. */
export type Lang = 'en' | 'zh'

const en = {
  nav: 'Knowledge',
  title: 'Knowledge',
  intro: 'Conversation rounds worth keeping, saved as Markdown files with credentials masked. Later sessions search them with knowledge_search.',
  tabs: 'Knowledge views',
  tabDocuments: 'Documents',
  tabConfig: 'Config',
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
  section_redact: 'Redaction',
  section_capture: 'Capture',
  section_recall: 'Recall',
  'f_redact.enabled': 'Mask credentials',
  'h_redact.enabled': 'Mask credentials before anything is written to disk.',
  'f_redact.mask': 'Mask text',
  'h_redact.mask': 'Replaces each masked value (1–64 characters).',
  'f_redact.patterns': 'Extra patterns',
  'h_redact.patterns': 'Regular expressions to mask, one per line. They are added to the row’s own patterns, which always apply.',
  'f_capture.enabled': 'Capture rounds',
  'h_capture.enabled': 'Write conversation rounds worth keeping.',
  'f_capture.salience.minScore': 'Minimum salience score',
  'h_capture.salience.minScore': 'Rounds scoring below this are not written (0–100).',
  'f_capture.distill.enabled': 'Distill kept rounds',
  'h_capture.distill.enabled': 'Condense each kept round with one small model call.',
  'f_capture.distill.provider': 'Distill provider',
  'h_capture.distill.provider': 'LLM provider route; empty: the session’s own.',
  'f_capture.distill.model': 'Distill model',
  'h_capture.distill.model': 'Model id; empty: the session’s own.',
  'f_capture.distill.budgetPerDay': 'Distill calls per day',
  'h_capture.distill.budgetPerDay': 'Distill calls allowed per UTC day.',
  'f_recall.announce': 'Announce the knowledge base',
  'h_recall.announce': 'A two-sentence pointer in the system prompt.',
  'f_recall.sameWorkspaceOnly': 'Same workspace only',
  'h_recall.sameWorkspaceOnly': 'A session sees only the documents of its own workspace.',
  'f_recall.searchLimit': 'Search hits',
  'h_recall.searchLimit': 'Default number of search hits (1–50).',
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
  // Masking switch (issue 16.2)
  maskingOff: 'Credential masking is OFF. New rounds and notes are written to disk with tokens, passwords and keys exactly as they appeared, and later sessions can read them back.',
  maskingOn: 'Turn masking back on',
  confirmMaskingOffTitle: 'Turn off credential masking?',
  confirmMaskingOffBody: 'From now on, every round and note is written to disk as it is: a token, password or key in a question, an answer or a tool call lands in a plain Markdown file under the knowledge root, where later sessions, the page and anyone who can read the folder see it. Documents already written stay masked. Applies at once, to every dsh process that reads these settings.',
  confirmMaskingOff: 'Turn masking off',
  keepMasking: 'Keep masking on',
  unreadableFiles: '{count} file(s) under the root are not indexed: {first}',
}

export type MessageKey = keyof typeof en

const zh: Record<MessageKey, string> = {
  nav: '知识库',
  title: '知识库',
  intro: '值得保留的对话轮次，以 Markdown 文件保存，凭据已遮蔽。之后的会话用 knowledge_search 检索它们。',
  tabs: '知识库视图',
  tabDocuments: '文档',
  tabConfig: '配置',
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
  statsDropped: '舍弃 {count} 轮',
  statsTopReason: '（主要原因 {reason}）',
  statsRedacted: '已遮蔽 {count} 处',
  loading: '加载中…',
  empty: '还没有文档。值得保留的轮次被记录后会出现在这里。',
  noMatches: '没有匹配的文档。',
  shown: '{shown} / {total}',
  loadMore: '加载更多',
  unreachable: '知识库接口没有响应（{message}）。knowledge-http 行是否在运行？',
  back: '← 全部文档',
  notFound: '该文档已不存在：{message}',
  kind_raw: '对话',
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
  metaRedacted: '遮蔽',
  metaFile: '文件',
  salienceScore: '得分 {score}',
  redactedCount: '已遮蔽 {count} 处',
  turn: '第 {turn} 轮',
  none: '无',
  configIntro: '覆盖值保存在 “knowledge” 设置命名空间（$DSH_HOME/settings.yaml）中。保存后无需重启即可生效；“重置”让字段回到行配置给出的值。',
  settingsWaiting: '正在连接实时设置…',
  settingsUnavailable: '实时设置不可用：没有挂载设置服务，因此以各行自身的配置为准。当前生效的配置（只读）：',
  settingsReadOnly: '设置文件是只读的，此处无法修改。当前生效的配置：',
  configUnreachable: '无法读取当前生效的配置（{message}）。',
  rowNotRunning: '{row} 行没有运行：在它运行之前这些设置不起作用。',
  section_redact: '遮蔽',
  section_capture: '记录',
  section_recall: '召回',
  'f_redact.enabled': '遮蔽凭据',
  'h_redact.enabled': '写入磁盘之前遮蔽凭据。',
  'f_redact.mask': '遮蔽文本',
  'h_redact.mask': '替换每个被遮蔽的值（1–64 个字符）。',
  'f_redact.patterns': '额外的模式',
  'h_redact.patterns': '要遮蔽的正则表达式，每行一个。它们追加在行自身的模式之后，行自身的模式始终生效。',
  'f_capture.enabled': '记录对话轮次',
  'h_capture.enabled': '写入值得保留的对话轮次。',
  'f_capture.salience.minScore': '最低显著性得分',
  'h_capture.salience.minScore': '得分低于此值的轮次不会写入（0–100）。',
  'f_capture.distill.enabled': '提炼保留的轮次',
  'h_capture.distill.enabled': '用一次小模型调用压缩每个保留的轮次。',
  'f_capture.distill.provider': '提炼所用服务商',
  'h_capture.distill.provider': 'LLM 服务商路由；留空则使用会话自己的。',
  'f_capture.distill.model': '提炼所用模型',
  'h_capture.distill.model': '模型 ID；留空则使用会话自己的。',
  'f_capture.distill.budgetPerDay': '每日提炼次数',
  'h_capture.distill.budgetPerDay': '每个 UTC 日允许的提炼调用次数。',
  'f_recall.announce': '在系统提示中提示知识库',
  'h_recall.announce': '系统提示中的两句说明。',
  'f_recall.sameWorkspaceOnly': '仅限同一工作区',
  'h_recall.sameWorkspaceOnly': '会话只能看到自己工作区的文档。',
  'f_recall.searchLimit': '搜索结果数',
  'h_recall.searchLimit': '默认的搜索结果数（1–50）。',
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
  maskingOff: '凭据脱敏已关闭。新的对话轮次和笔记会把令牌、密码和密钥原样写入磁盘，之后的会话可以读到它们。',
  maskingOn: '重新打开脱敏',
  confirmMaskingOffTitle: '关闭凭据脱敏？',
  confirmMaskingOffBody: '从现在起，每个对话轮次和笔记都按原样写入磁盘：问题、回答或工具调用中的令牌、密码或密钥会留在知识库根目录下的普通 Markdown 文件里，之后的会话、本页面以及任何能读取该目录的人都能看到。已写入的文档保持脱敏。立即生效，作用于读取这些设置的每个 dsh 进程。',
  confirmMaskingOff: '关闭脱敏',
  keepMasking: '保持脱敏',
  unreadableFiles: '根目录下有 {count} 个文件未被索引：{first}',
}

const DICTS: Record<Lang, Record<MessageKey, string>> = { en, zh }

/** Translates one key with `{name}` parameters. */
export type Translate = (key: MessageKey, params?: Record<string, unknown>) => string

/** The translate function of one language (missing keys fall back to English, then to the key itself). */
export function translator(lang: Lang): Translate {
  const dict = DICTS[lang]
  return (key, params) => {
    const template = dict[key] ?? en[key] ?? key
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
