/**
 * From a writer's draft to a document: every text field redacted, then bounded, then rendered as Markdown with front
 * matter. Pure apart from the redactor; the store decides the id and the path.
 * @module dsh-knowledge-sync/knowledge/draft
 */
import type { DocKind, FrontMatter, Outcome, Redaction, Salience, ToolCall } from '../types.js'
import type { Redactor } from '../redact/redactor.js'

/** Bounds for what one document may hold, so a 10 MB tool argument still yields a readable file. */
export const LIMITS = {
  title: 120,
  section: 64 * 1024,
  /** Redaction looks at this much of each tool argument before it is cut for display, so no secret is half-cut. */
  toolArgumentsWindow: 64 * 1024,
  toolArguments: 2000,
  toolResultExcerpt: 1000,
  tools: 50,
  tags: 12,
}

/** What a writer hands the store; every text field is redacted before it reaches the file. */
export interface DocumentDraft {
  kind: DocKind
  title: string
  cwd: string
  created?: string
  session?: string
  turn?: number
  outcome?: Outcome
  /** Body sections after the `# title` heading, in order. */
  sections: Array<{ heading: string; text: string }>
  /** Rendered as a `## Tools` section, one line per call; names go to front matter `tools`. */
  tools?: ToolCall[]
  /** Keep a bounded excerpt of failed calls' results (capture option). */
  keepFailedResults?: boolean
  tags?: string[]
  salience?: Salience
  /** Extra front-matter keys (distill cost, …). */
  extra?: Record<string, unknown>
  /** Id kind suffix: `t<turn>` for rounds, `n<k>` for notes. Default: from `turn`. */
  suffix?: string
  /** Rewrite this existing document in place (distillation). */
  replaceId?: string
}

/** A draft after redaction and bounding: what will be rendered, before the id is known. */
export interface RedactedDraft {
  title: string
  sections: Array<{ heading: string; text: string }>
  tools: Array<{ name: string; arguments: string; failure: string }>
  tags: string[]
  redaction: Redaction
}

// C0 controls other than tab and newline carry no knowledge and upset terminals and YAML readers.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g
const clean = (text: string) => text.replace(CONTROL, '').replace(/\r\n?/g, '\n')

/** `text` cut to `max` characters with a note of how much was left out; never splits a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end-- // never split a surrogate pair
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

/** A tool call's arguments as compact one-line JSON, for the `## Tools` section. */
function compactArguments(raw: string): string {
  try { return JSON.stringify(JSON.parse(raw)) } catch { return JSON.stringify(raw) }
}

async function redactAll(redactor: Redactor, parts: string[]): Promise<{ texts: string[]; redaction: Redaction }> {
  const texts: string[] = []
  const total: Redaction = { text: '', count: 0, families: {} }
  for (const part of parts) {
    const r = await redactor.redact(clean(part))
    texts.push(r.text)
    total.count += r.count
    for (const [family, n] of Object.entries(r.families)) total.families[family] = (total.families[family] ?? 0) + n
  }
  return { texts, redaction: total }
}

/** Redacts every text field of a draft and bounds what the document may hold. */
export async function redactDraft(draft: DocumentDraft, redactor: Redactor): Promise<RedactedDraft> {
  const tools = (draft.tools ?? []).slice(0, LIMITS.tools)
  const toolArgs = tools.map((t) => t.arguments.slice(0, LIMITS.toolArgumentsWindow))
  const toolResults = tools.map((t) => (draft.keepFailedResults && t.isError && t.result ? t.result.slice(0, LIMITS.toolArgumentsWindow) : ''))
  const sectionTexts = draft.sections.map((s) => cut(s.text, LIMITS.section))
  const tags = (draft.tags ?? []).slice(0, LIMITS.tags)
  const { texts, redaction } = await redactAll(redactor, [
    draft.title, ...sectionTexts, ...toolArgs, ...toolResults, ...tags, ...tools.map((t) => t.name),
  ])
  let i = 0
  const title = cut(texts[i++].replace(/\s+/g, ' ').trim(), LIMITS.title) || 'Untitled'
  const sections = draft.sections.map((s) => ({ heading: s.heading, text: texts[i++] }))
  const args = tools.map(() => texts[i++])
  const results = tools.map(() => texts[i++])
  const redactedTags = tags.map(() => texts[i++])
  const toolNames = tools.map(() => texts[i++].replace(/[^\w.:-]/g, '_').slice(0, 64))
  const mask = /\[REDACTED\]|[^\w-]/g
  const cleanTags = [...new Set(redactedTags.map((t) => t.toLowerCase().replace(mask, '-').replace(/-+/g, '-').replace(/^-|-$/g, '')).filter(Boolean))]
  return {
    title,
    sections,
    tools: tools.map((_, k) => ({ name: toolNames[k], arguments: args[k], failure: results[k] })),
    tags: cleanTags,
    redaction,
  }
}

/** The Markdown body and front matter of a redacted draft under `id`. */
export function renderDraft(draft: DocumentDraft, redacted: RedactedDraft, id: string): { meta: FrontMatter; body: string } {
  const body = [`# ${redacted.title}`, '']
  for (const section of redacted.sections) body.push(`## ${section.heading}`, '', section.text.trim() || '_(empty)_', '')
  if (redacted.tools.length) {
    body.push('## Tools', '')
    for (const tool of redacted.tools) {
      body.push(`- \`${tool.name}\` — ${cut(compactArguments(tool.arguments), LIMITS.toolArguments)}`)
      if (tool.failure) body.push(`  - failed: ${cut(tool.failure.replace(/\s+/g, ' '), LIMITS.toolResultExcerpt)}`)
    }
    body.push('')
  }
  const meta: FrontMatter = {
    id, title: redacted.title, kind: draft.kind,
    session: draft.session, turn: draft.turn,
    created: draft.created ?? new Date().toISOString(),
    outcome: draft.outcome,
    cwd: draft.cwd,
    tools: [...new Set(redacted.tools.map((t) => t.name))],
    tags: redacted.tags,
    salience: draft.salience,
    redacted: redacted.redaction.count,
    ...draft.extra,
  }
  return { meta, body: body.join('\n') }
}
