/**
 * Every live-settable field, declared once: its section, path, control type, range, default, and its label and hint
 * in English and Chinese. The rows' `Config` schemas, the live settings schema (src/knowledge/settings/settings.ts) and the
 * page's form and labels (client/config.ts) are all derived from this table. Plain data with no imports, so the
 * browser module bundles it as it is.
 * @module dsh-knowledge-sync/knowledge/settings/fields
 */
import type { SettingsSection } from '../../wire.js'

export type FieldType = 'boolean' | 'text' | 'number' | 'integer' | 'lines'

export interface FieldDecl {
  section: SettingsSection
  /** Dotted path inside the section, e.g. `salience.minScore`. */
  path: string
  type: FieldType
  default: boolean | string | number | string[]
  /** Inclusive range of a number, or of a text's length. */
  min?: number
  max?: number
  label: { en: string; zh: string }
  /** The English hint is also the schema description (what `--dump-config` and settings clients show). */
  hint: { en: string; zh: string }
}

/** The sections in display order, with the row that owns each and its title. */
export const SECTION_DECLS: ReadonlyArray<{ name: SettingsSection; row: string; label: { en: string; zh: string } }> = [
  { name: 'redact', row: 'knowledge', label: { en: 'Redaction', zh: '脱敏' } },
  { name: 'capture', row: 'knowledge-capture', label: { en: 'Capture', zh: '采集' } },
  { name: 'recall', row: 'knowledge-recall', label: { en: 'Recall', zh: '召回' } },
]

/** The default salience bar (see docs/salience.md for how it was chosen). */
export const DEFAULT_MIN_SCORE = 2

export const LIVE_FIELDS: readonly FieldDecl[] = [
  {
    section: 'redact',
    path: 'enabled',
    type: 'boolean',
    default: true,
    label: { en: 'Mask credentials', zh: '凭据脱敏' },
    hint: { en: 'Mask credentials before anything is written.', zh: '写入磁盘之前先对凭据脱敏。' },
  },
  {
    section: 'redact',
    path: 'mask',
    type: 'text',
    default: '[REDACTED]',
    min: 1,
    max: 64,
    label: { en: 'Replacement text', zh: '替换文本' },
    hint: { en: 'Text that replaces a masked value (1–64 characters).', zh: '替换每个被脱敏的值（1–64 个字符）。' },
  },
  {
    section: 'redact',
    path: 'patterns',
    type: 'lines',
    default: [],
    label: { en: 'Extra patterns', zh: '额外的正则表达式' },
    hint: {
      en: "Extra regular expressions to mask (whole match, or the first capturing group), one per line. Patterns set here are added to the row's own, which always apply.",
      zh: '要脱敏的额外正则表达式（整个匹配，或第一个捕获组），每行一个。这里设置的表达式追加在该行自身的表达式之后，行自身的表达式始终生效。',
    },
  },
  {
    section: 'capture',
    path: 'enabled',
    type: 'boolean',
    default: true,
    label: { en: 'Capture rounds', zh: '采集对话轮次' },
    hint: { en: 'Write conversation rounds worth keeping.', zh: '写入值得保留的对话轮次。' },
  },
  {
    section: 'capture',
    path: 'salience.minScore',
    type: 'number',
    default: DEFAULT_MIN_SCORE,
    min: 0,
    max: 100,
    label: { en: 'Minimum salience score', zh: '最低显著性得分' },
    hint: { en: 'Rounds scoring below this are not written (0–100; 0 keeps every answered round).', zh: '得分低于此值的轮次不会写入（0–100；0 保留每个有回答的轮次）。' },
  },
  {
    section: 'capture',
    path: 'distill.enabled',
    type: 'boolean',
    default: false,
    label: { en: 'Distill kept rounds', zh: '提炼保留的轮次' },
    hint: { en: 'Condense each kept round with one small model call.', zh: '用一次小模型调用提炼每个保留的轮次。' },
  },
  {
    section: 'capture',
    path: 'distill.provider',
    type: 'text',
    default: '',
    max: 200,
    label: { en: 'Distill provider', zh: '提炼所用提供方' },
    hint: { en: "LLM provider route; empty: the session's own.", zh: 'LLM 提供方路由；留空则使用会话自己的。' },
  },
  {
    section: 'capture',
    path: 'distill.model',
    type: 'text',
    default: '',
    max: 200,
    label: { en: 'Distill model', zh: '提炼所用模型' },
    hint: { en: "Model id; empty: the session's own.", zh: '模型 ID；留空则使用会话自己的。' },
  },
  {
    section: 'capture',
    path: 'distill.budgetPerDay',
    type: 'integer',
    default: 50,
    min: 0,
    max: 100000,
    label: { en: 'Distill calls per day', zh: '每日提炼次数' },
    hint: { en: 'Distill calls allowed per UTC day.', zh: '每个 UTC 日允许的提炼调用次数。' },
  },
  {
    section: 'recall',
    path: 'announce',
    type: 'boolean',
    default: true,
    label: { en: 'Announce the knowledge base', zh: '在系统提示词中提示知识库' },
    hint: { en: 'Add the two-sentence pointer to the system prompt when documents are visible.', zh: '有可见文档时，在系统提示词中加入两句指引。' },
  },
  {
    section: 'recall',
    path: 'sameWorkspaceOnly',
    type: 'boolean',
    default: true,
    label: { en: 'Same workspace only', zh: '仅限同一工作区' },
    hint: { en: "Only the session's workspace and its enclosing project are visible.", zh: '会话只能看到自己工作区（及其所在项目）的文档。' },
  },
  {
    section: 'recall',
    path: 'searchLimit',
    type: 'integer',
    default: 8,
    min: 1,
    max: 50,
    label: { en: 'Search hits', zh: '搜索结果数' },
    hint: { en: 'Default number of hits of knowledge_search (1–50).', zh: 'knowledge_search 默认返回的结果数（1–50）。' },
  },
]

/** The fields of one section, in display order. */
export function fieldsOf(section: SettingsSection): FieldDecl[] {
  return LIVE_FIELDS.filter((f) => f.section === section)
}
