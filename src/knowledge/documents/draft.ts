/**
 * From a writer's draft to a document: every text field redacted (and every masked value masked in every field), then
 * bounded, then rendered as Markdown with front matter. Pure apart from the redactor; the store decides the id and
 * the path.
 * @module dsh-knowledge-sync/knowledge/documents/draft
 */
import type { DocKind, FrontMatter, Outcome, Redaction, Salience, ToolCall } from '../../types.js'
import type { Redactor } from '../../redact/redactor.js'
import { countOf, cutRedacted, type FieldInput, redactFields } from '../../redact/fields.js'

/** Bounds for what one document may hold, so a 10 MB tool argument still yields a readable file. */
export const LIMITS = {
  title: 120,
  /** How much of a derived title's source (the question) is redacted before the title is taken from it. */
  titleSource: 4096,
  section: 64 * 1024,
  /** Shown per tool call, after redaction (which looks {@link REDACT_MARGIN} further, so no secret is half-cut). */
  toolArguments: 2000,
  toolResultExcerpt: 1000,
  toolName: 64,
  tools: 50,
  tags: 12,
  tag: 40,
}

/** A title taken from text that holds user content: the store redacts `source` first, then calls `derive` on it. */
export interface DerivedTitle {
  source: string
  /** Gets the redacted source and the mask (a cut must not split it). */
  derive: (redacted: string, mask: string) => string
}

/** What a writer hands the store; every text field is redacted before it reaches the file. */
export interface DocumentDraft {
  kind: DocKind
  /** The title, or how to derive it from redacted text (a round's title comes from its question). */
  title: string | DerivedTitle
  cwd: string
  created?: string
  session?: string
  turn?: number
  outcome?: Outcome
  /** Body sections after the `# title` heading, in order. */
  sections: Array<{ heading: string; text: string }>
  /** Rendered as a `## Tools` section, one line per call; names go to front matter `tools`. */
  tools?: ToolCall[]
  /** Heading level of the tools section (default 2; 3 when the tools belong to an appendix). */
  toolsLevel?: 2 | 3
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

const flat = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * Redacts every text field of a draft as one document, then bounds it: each field is redacted in a window a margin
 * longer than what is kept, every masked value is masked in every other field too, and only then is anything cut
 * (see redact/fields). The title is taken from redacted text, never the other way round.
 */
export async function redactDraft(draft: DocumentDraft, redactor: Redactor): Promise<RedactedDraft> {
  const tools = (draft.tools ?? []).slice(0, LIMITS.tools)
  const tags = (draft.tags ?? []).slice(0, LIMITS.tags)
  const derived = typeof draft.title === 'string' ? undefined : draft.title
  const fields: FieldInput[] = [
    { text: derived ? derived.source : (draft.title as string), limit: LIMITS.titleSource, cut: 'none', uncounted: true },
    ...draft.sections.map((s): FieldInput => ({ text: s.text, limit: LIMITS.section })),
    ...tools.map((t): FieldInput => ({ text: t.arguments, limit: LIMITS.toolArguments, json: true })),
    ...tools.map((t): FieldInput => ({ text: draft.keepFailedResults && t.isError && t.result ? t.result : '', limit: LIMITS.toolResultExcerpt })),
    ...tags.map((t): FieldInput => ({ text: t, limit: LIMITS.tag, cut: 'none' })),
    ...tools.map((t): FieldInput => ({ text: t.name, limit: LIMITS.toolName, cut: 'none' })),
  ]
  const { texts, redaction } = await redactFields(redactor, fields)
  const mask = redactor.enabled ? redactor.mask : ''
  let i = 0
  const source = texts[i++]
  const title = cutRedacted(flat(derived ? derived.derive(source, mask) : source), LIMITS.title, mask, 'ellipsis') || 'Untitled'
  // The title counts the masks it shows (once, though front matter and heading both hold it), less any the input had.
  const shown = countOf(title, mask)
  redaction.count += Math.max(0, shown - Math.min(shown, countOf(String(derived ? derived.source : draft.title).slice(0, LIMITS.titleSource), mask)))
  const sections = draft.sections.map((s) => ({ heading: s.heading, text: texts[i++] }))
  const args = tools.map(() => texts[i++])
  const results = tools.map(() => flat(texts[i++]))
  const redactedTags = tags.map(() => texts[i++])
  const toolNames = tools.map(() => texts[i++].replace(/[^\w.:-]/g, '_'))
  const maskOrJunk = /\[REDACTED\]|[^\w-]/g
  const cleanTags = [
    ...new Set(
      redactedTags
        .map((t) =>
          t
            .split(mask || '\u0000')
            .join('-')
            .toLowerCase()
            .replace(maskOrJunk, '-')
            .replace(/-+/g, '-')
            .replace(/^-|-$/g, ''),
        )
        .filter(Boolean),
    ),
  ]
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
  for (const section of redacted.sections) {
    // A note's empty section is left out (a note is written by hand, not a fixed form); a round keeps its shape.
    if (draft.kind === 'note' && !section.text.trim()) continue
    body.push(`## ${section.heading}`, '', section.text.trim() || '_(empty)_', '')
  }
  if (redacted.tools.length) {
    body.push(`${'#'.repeat(draft.toolsLevel ?? 2)} Tools`, '')
    // Arguments and excerpts were compacted, redacted and cut in redactDraft: shown exactly as redacted.
    for (const [k, tool] of redacted.tools.entries()) {
      // A failed call says so on its own line, whether or not its result excerpt is kept.
      const failed = draft.tools?.[k]?.isError ? ' (failed)' : ''
      body.push(`- \`${tool.name}\`${failed} — ${tool.arguments}`)
      if (tool.failure) body.push(`  - failed: ${tool.failure}`)
    }
    body.push('')
  }
  const meta: FrontMatter = {
    id,
    title: redacted.title,
    kind: draft.kind,
    session: draft.session,
    turn: draft.turn,
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
