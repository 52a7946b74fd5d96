/**
 * Validation of `knowledge_note` arguments and the note's document draft. Pure.
 * @module dsh-knowledge-sync/note/note
 */
import type { DocumentDraft } from '../knowledge/store.js'

export const NOTE_TOOL = 'knowledge_note'
export const NOTE_LIMITS = { title: 200, finding: 20_000, evidence: 20_000, scope: 2_000, tags: 8, tag: 40 }

export interface NoteArgs { title: string; finding: string; evidence?: string; scope?: string; tags: string[] }

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
  return {
    // No transformation before redaction (the store collapses whitespace, lowercases tags and cuts afterwards): a
    // lowercased AKIA key id or a PEM header folded onto one line would no longer be recognised.
    title: text(args, 'title', true)!,
    finding: text(args, 'finding', true)!,
    evidence: text(args, 'evidence', false),
    scope: text(args, 'scope', false),
    tags: (tags as string[]).map((t) => t.trim()).filter(Boolean),
  }
}

export function noteDraft(note: NoteArgs, where: { session: string; cwd: string; suffix: string }): DocumentDraft {
  const sections = [
    { heading: 'Finding', text: note.finding },
    { heading: 'Evidence', text: note.evidence ?? '' },
    { heading: 'Scope', text: note.scope ?? '' },
  ]
  return { kind: 'note', title: note.title, cwd: where.cwd, session: where.session, sections, tags: note.tags, suffix: where.suffix }
}
