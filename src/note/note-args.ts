/**
 * Validation of `knowledge_note` arguments and the note's document draft. Pure.
 * @module dsh-knowledge-sync/note/note-args
 */
import type { DocumentDraft } from '../knowledge/store.js'

export const NOTE_TOOL = 'knowledge_note'
export const NOTE_LIMITS = { title: 200, finding: 20_000, evidence: 20_000, scope: 2_000, quote: 2_000, tags: 8, tag: 40 }

export interface NoteArgs {
  title: string
  finding: string
  evidence?: string
  scope?: string
  tags: string[]
  /** `note` (default) or `preference` (a person's standing instruction, which needs `quote`). */
  kind: 'note' | 'preference'
  /** The person's own words a preference is recorded from. */
  quote?: string
  /** Ids to link (validated by the caller: each must exist and be visible). */
  links: unknown
  /** Ids this note supersedes (validated by the caller). */
  supersedes: unknown
}

function text(args: Record<string, unknown>, key: keyof typeof NOTE_LIMITS, required: boolean): string | undefined {
  const value = args[key]
  if (value === undefined || value === null || value === '') {
    if (required) throw new Error(`"${key}" is required and must not be empty`)
    return undefined
  }
  if (typeof value !== 'string') throw new Error(`"${key}" must be a string`)
  const trimmed = value.trim()
  if (required && !trimmed) throw new Error(`"${key}" is required and must not be empty`)
  if (trimmed.length > NOTE_LIMITS[key]) throw new Error(`"${key}" is ${trimmed.length} characters long; the limit is ${NOTE_LIMITS[key]}`)
  return trimmed || undefined
}

/** Validates model-supplied arguments; the thrown message tells the model what to fix. */
export function parseNoteArgs(raw: unknown): NoteArgs {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('arguments must be an object with "title" and "finding"')
  const args = raw as Record<string, unknown>
  const tags = args.tags === undefined || args.tags === null ? [] : args.tags
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) throw new Error('"tags" must be an array of strings')
  if (tags.length > NOTE_LIMITS.tags) throw new Error(`at most ${NOTE_LIMITS.tags} tags`)
  const kind = args.kind === undefined || args.kind === null || args.kind === '' ? 'note' : args.kind
  if (kind !== 'note' && kind !== 'preference') throw new Error('"kind" must be "note" or "preference"')
  const quote = text(args, 'quote', kind === 'preference')
  if (kind === 'note' && quote) throw new Error('"quote" is only for kind "preference"')
  return {
    kind,
    ...(quote ? { quote } : {}),
    links: args.links,
    supersedes: args.supersedes,
    // No transformation before redaction (the store collapses whitespace, lowercases tags and cuts afterwards): a
    // lowercased AKIA key id or a PEM header folded onto one line would no longer be recognised.
    title: text(args, 'title', true)!,
    finding: text(args, 'finding', true)!,
    evidence: text(args, 'evidence', false),
    scope: text(args, 'scope', false),
    tags: (tags as string[]).map((t) => t.trim()).filter(Boolean),
  }
}

/**
 * The document draft of a note or a preference. `links` (already validated ids, with their titles) become a
 * `## Links` section of `[title](<id>)` lines, which the store writes as relative paths; `supersedes` goes into the
 * front matter.
 */
export function noteDraft(note: NoteArgs, where: { session: string; cwd: string; suffix: string; links?: Array<{ id: string; title: string }>; supersedes?: string[] }): DocumentDraft {
  const sections =
    note.kind === 'preference'
      ? [
          { heading: 'Preference', text: note.finding },
          {
            heading: 'Quote',
            text: note.quote
              ? note.quote
                  .split('\n')
                  .map((line) => `> ${line}`)
                  .join('\n')
              : '',
          },
          { heading: 'Scope', text: note.scope ?? '' },
        ]
      : [
          { heading: 'Finding', text: note.finding },
          { heading: 'Evidence', text: note.evidence ?? '' },
          { heading: 'Scope', text: note.scope ?? '' },
        ]
  if (where.links?.length) sections.push({ heading: 'Links', text: where.links.map((l) => `- [${l.title.replace(/[[\]]/g, '')}](${l.id})`).join('\n') })
  return {
    kind: note.kind,
    title: note.title,
    cwd: where.cwd,
    session: where.session,
    sections,
    tags: note.tags,
    suffix: where.suffix,
    ...(where.supersedes?.length ? { extra: { supersedes: where.supersedes } } : {}),
  }
}

/** The text of the person's own messages in a session's events (`user/message` with `source.kind === 'user'`). */
export function personMessages(events: ReadonlyArray<{ type: string; data?: unknown }> | undefined): string[] {
  const out: string[] = []
  for (const event of events ?? []) {
    if (event.type !== 'user/message') continue
    const data = event.data as { source?: { kind?: string }; content?: unknown } | undefined
    if (data?.source?.kind !== 'user') continue
    const content = data.content
    out.push(typeof content === 'string' ? content : Array.isArray(content) ? content.map((b: { type?: string; text?: string }) => (b?.type === 'text' ? (b.text ?? '') : '')).join('\n') : '')
  }
  return out
}

/** The text of the session's tool results (`tool/result` events): what the agent read, never the person's words. */
export function toolResultTexts(events: ReadonlyArray<{ type: string; data?: unknown }> | undefined): string[] {
  const out: string[] = []
  const textOf = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((b: { text?: unknown; content?: unknown }) => (typeof b?.text === 'string' ? b.text : textOf(b?.content))).join('\n')
        : ''
  for (const event of events ?? []) {
    if (event.type !== 'tool/result') continue
    out.push(textOf((event.data as { message?: { content?: unknown } } | undefined)?.message?.content))
  }
  return out
}
