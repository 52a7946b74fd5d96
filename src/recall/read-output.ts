/**
 * The text `knowledge_read` returns, built in one place with named slots so other features (status, links) add a
 * line without reshaping it. First line: the tag (`<id> (v:N) "<title>"`), which survives dsh's tool-result pruning
 * (it keeps a result's head) and is what a compaction stub keeps. Then the notices, the section list, and the
 * document (whole, or one section with its front matter).
 * @module dsh-knowledge-sync/recall/read-output
 */
import { formatDocument } from '../knowledge/documents/document.js'
import type { DocStatus, KnowledgeDoc } from '../types.js'
import type { Change } from './read-state.js'
import type { DocSection } from './sections.js'

/** A read without `section` returns the whole document up to this many characters, then the sections that fit. */
export const FULL_READ_CHARS = 12_000
/** No read returns more than this many characters of document text (a hand-written file may hold megabytes in one section). */
export const MAX_READ_CHARS = 60_000

/** Cuts `text` to `max` characters (never inside a surrogate pair) with a note that says how to see the rest. */
function bounded(text: string, max: number, path: string): string {
  if (text.length <= max) return text
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max
  return `${text.slice(0, end)}\n[… ${text.length - end} more characters not shown; the file is ${path}]\n`
}

/** A related document as one line of the read output. */
export interface ReadLink {
  id: string
  title: string
  status?: DocStatus
}

const linkLine = (l: ReadLink): string => `${l.id} — ${l.title.replace(/\s+/g, ' ')}${l.status && l.status !== 'active' ? ` (${l.status})` : ''}`

/** Everything one read shows. The optional slots are filled by whoever knows them; absent slots add nothing. */
export interface ReadView {
  doc: KnowledgeDoc
  version: number
  /** The document's sections (its `## ` headings) and the text before the first one. */
  head: string
  sections: DocSection[]
  /** The one section asked for. */
  section?: DocSection
  /** The session read an older revision before this one. */
  changed?: Change
  /** Slot: lines said before anything else about the document (e.g. that it holds synced upstream content). */
  notices?: string[]
  /** Slot: the document's status line, when it is not active. */
  status?: string
  /** Slot: the successor of a superseded document, shown before the document so it is not missed. */
  supersededBy?: ReadLink
  /** Slot: documents this one replaces (after the document). */
  supersedes?: ReadLink[]
  /** Slot: computed backlinks, documents that link here (after the document). */
  linkedFrom?: ReadLink[]
  /** The body to show instead of the file's (links written back as ids); sections are split from it. */
  body?: string
}

/** The value `knowledge_read` returns: the model's text plus the fields its UI card and compaction stub use. */
export interface ReadResult {
  text: string
  id: string
  /** The document's file, relative to the knowledge root (for the UI card; the text's first line names it too). */
  path?: string
  version: number
  title: string
  sections: string[]
  section?: string
}

/** The one-line tag of a read: `<id> (v:N) "<title>"`. */
export function readTag(id: string, version: number, title: string): string {
  return `${id} (v:${version}) ${JSON.stringify(title.length > 120 ? `${title.slice(0, 119)}…` : title)}`
}

/** Builds the text of one read from its view. */
export function renderRead(view: ReadView): ReadResult {
  const { doc, version, sections, section } = view
  const title = String(doc.meta.title)
  const names = sections.map((s) => s.name)
  const lines = [`${readTag(doc.id, version, title)} · ${doc.meta.kind} · ${String(doc.meta.created).slice(0, 10)} · ${doc.path}`]
  if (view.changed)
    lines.push(`Changed since you read it: v:${view.changed.from} → v:${view.changed.to}. This is the current text; drop what you concluded from v:${view.changed.from} if it disagrees.`)
  for (const notice of view.notices ?? []) lines.push(notice)
  if (view.status) lines.push(`Status: ${view.status}`)
  if (view.supersededBy) lines.push(`Superseded by: ${linkLine(view.supersededBy)} (read that one first)`)
  let content: string
  if (section) {
    const others = names.filter((n) => n !== section.name)
    lines.push(`Section "${section.name}" of ${names.length}.${others.length ? ` Others: ${others.join(' · ')} (knowledge_read with "section").` : ''}`)
    content = `${formatDocument(doc.meta, '').trimEnd()}\n\n${section.text}\n`
  } else {
    const whole = formatDocument(doc.meta, view.body ?? doc.body)
    if (names.length) lines.push(`Sections: ${names.join(' · ')}. Read one alone with {"id": "${doc.id}", "section": "<name>"}.`)
    if (whole.length <= FULL_READ_CHARS || !sections.length) content = whole
    else {
      // A long document: the front matter, the title and the sections that fit; the rest by name.
      const parts = [formatDocument(doc.meta, view.head).trimEnd()]
      let used = parts[0].length
      const left: string[] = []
      for (const s of sections) {
        if (left.length || (used + s.text.length > FULL_READ_CHARS && parts.length > 1)) {
          left.push(s.name)
          continue
        }
        parts.push(s.text)
        used += s.text.length
      }
      if (left.length) parts.push(`[${left.length} more section(s) not shown: ${left.join(' · ')}; read them with "section".]`)
      content = `${parts.join('\n\n')}\n`
    }
  }
  const tail: string[] = []
  if (view.supersedes?.length) tail.push(`Supersedes: ${view.supersedes.map(linkLine).join('; ')}`)
  if (view.linkedFrom?.length) tail.push(`Linked from: ${view.linkedFrom.map(linkLine).join('; ')}`)
  const text = `${lines.join('\n')}\n\n${bounded(content, MAX_READ_CHARS, doc.path)}`
  return {
    text: tail.length ? `${text}${text.endsWith('\n') ? '' : '\n'}${tail.join('\n')}` : text,
    id: doc.id,
    path: doc.path,
    version,
    title,
    sections: names,
    ...(section ? { section: section.name } : {}),
  }
}

/** The note a compacted read keeps (about 30 tokens): what it was, and how to get it back. */
export function compactedRead(id: string, title: string, version: number): { id: string; title: string; version: number; note: string } {
  return {
    id,
    title: title.length > 80 ? `${title.slice(0, 79)}…` : title,
    version,
    note: 'dropped by compaction; reload with knowledge_read',
  }
}
