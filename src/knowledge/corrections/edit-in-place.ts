/**
 * A person's edit of a document in place (the page's editor): what may be edited and the text it starts from, and
 * the write of an edited note. Notes and wiki pages are the agent's and the person's writing, so they may be
 * edited; a captured round is evidence and a synced document follows its upstream, so neither is. A note's edit
 * goes through the store's edit path (`store.edit`, ../writes/edits.ts): the revision is checked inside the write
 * queue (a concurrent change is refused, not overwritten), title and text are redacted as one document, the status
 * (superseded, retired) and its notice are carried, links by id become relative paths, one ledger line with the
 * actor. Wiki pages are written by the wiki's own rewrite (which makes the same revision check).
 * @module dsh-knowledge-sync/knowledge/corrections/edit-in-place
 */
import type { FrontMatter, KnowledgeDoc } from '../../types.js'
import { UPSTREAM_START_LINE } from '../../wire.js'
import { redactFields } from '../../redact/fields.js'
import { isVisible } from '../../search/scope.js'
import { splitPageId } from '../documents/page-ids.js'
import { formatDocument } from '../documents/document.js'
import { carryStatus, idsToPaths, stripNotice, unresolvedIds } from '../relations/relations.js'
import type { KnowledgeStore } from '../store.js'
import { checkRevision } from '../writes/edits.js'
import { bodyWithIds } from './correct.js'

/** Longest text of an edited note (after redaction), as a wiki page's content. */
export const MAX_EDIT_CHARS = 64 * 1024
/** Longest title. */
export const MAX_EDIT_TITLE = 200

/** What the editor needs: the text below the title, as links by id, and the revision it was read at. */
export interface Editable {
  id: string
  /** `page` (a wiki page or the overview: written by the wiki) or `note`. */
  as: 'page' | 'note'
  title: string
  content: string
  version: number | undefined
}

/** A document that exists but is not edited in place (a round, a synced document, a retired one). */
export class NotEditable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NotEditable'
  }
}

/** Why a document cannot be edited in place, in a person's words; undefined when it can. */
export function notEditable(doc: KnowledgeDoc): string | undefined {
  const kind = doc.meta.kind
  if (doc.meta.status === 'retired') return `${doc.id} is retired; restore it first to edit it`
  if (doc.meta.status === 'superseded') return `${doc.id} is superseded by ${String(doc.meta.superseded_by)}; edit that document instead`
  if (kind === 'raw') return `${doc.id} is a captured round: it is the record of what happened and is never edited; write a note that corrects it, or supersede it`
  if (doc.body.split('\n').some((line) => UPSTREAM_START_LINE.test(line))) return `${doc.id} follows an upstream source; change it there (a sync would replace the edit)`
  if (kind === 'page' || kind === 'preference' || kind === 'note') return undefined
  return `${doc.id} is a ${String(kind)}, which is not edited in place`
}

/** Whether `doc` is written by the wiki (a typed page or the overview) rather than as a note. */
export function isWikiPage(doc: KnowledgeDoc): boolean {
  return (doc.meta.kind === 'page' || doc.meta.kind === 'preference') && (doc.id === 'overview' || !!splitPageId(doc.id))
}

/** The text a document is edited from; throws (in a person's words) for one that is not edited in place. */
export async function editableOf(store: KnowledgeStore, rawId: unknown, scope: string | undefined): Promise<Editable> {
  const doc = await store.readVisible(rawId, scope)
  const refused = notEditable(doc)
  if (refused) throw new NotEditable(refused)
  const content = bodyWithIds(store, { path: doc.path, body: stripNotice(doc.body) }).replace(/^#[ \t]+[^\n]*\n+/, '')
  return { id: doc.id, as: isWikiPage(doc) ? 'page' : 'note', title: String(doc.meta.title ?? doc.id), content, version: doc.version ?? store.versionOf(doc.id) }
}

/** An edit as the page sends it. */
export interface NoteEdit {
  id: unknown
  version: unknown
  title: unknown
  content: unknown
}

/** Checks the edit's fields; throws with what to fix. */
export function checkEdit(edit: NoteEdit): { version: number; title: string; content: string } {
  if (typeof edit.version !== 'number' || !Number.isInteger(edit.version) || edit.version < 1) throw new Error('the edit must say which revision it was made on ("version")')
  if (typeof edit.title !== 'string' || !edit.title.trim()) throw new Error('the title must not be empty')
  if (edit.title.length > MAX_EDIT_TITLE) throw new Error(`the title is ${edit.title.length} characters long; the limit is ${MAX_EDIT_TITLE}`)
  if (typeof edit.content !== 'string' || !edit.content.trim()) throw new Error('the text must not be empty')
  if (edit.content.length > MAX_EDIT_CHARS) throw new Error(`the text is ${edit.content.length} characters long; the limit is ${MAX_EDIT_CHARS}`)
  return { version: edit.version, title: edit.title, content: edit.content }
}

/** Writes an edited note (see the module comment). Returns its id and new revision. */
export async function editNote(store: KnowledgeStore, edit: NoteEdit, scope: string | undefined, actor: string): Promise<{ id: string; version: number; redacted: number }> {
  const { version, title, content } = checkEdit(edit)
  const doc = await store.readVisible(edit.id, scope)
  const refused = notEditable(doc)
  if (refused) throw new NotEditable(refused)
  if (isWikiPage(doc)) throw new Error(`${doc.id} is a wiki page; it is edited as one`)
  const broken = unresolvedIds(content, (other) => {
    const meta = store.get(other)
    return !!meta && isVisible(meta.cwd, scope)
  })
  if (broken.length) throw new Error(`the text links to ${broken.join(', ')}, which names no document`)
  return store.edit(async (host) => {
    await checkRevision(host, doc.id, version)
    const { texts, redaction } = await redactFields(host.redactor, [
      { text: title, limit: MAX_EDIT_TITLE, cut: 'ellipsis' },
      { text: content.replace(/^#[ \t]+[^\n]*\n+/, ''), limit: MAX_EDIT_CHARS },
    ])
    const newTitle = texts[0].replace(/\s+/g, ' ').trim() || doc.id
    const previousCount = typeof doc.meta.redacted === 'number' ? doc.meta.redacted : 0
    const meta = { ...doc.meta, title: newTitle, updated: new Date().toISOString(), redacted: previousCount + redaction.count } as FrontMatter
    const carried = carryStatus(doc, meta, `# ${newTitle}\n\n${texts[1].trim()}\n`)
    const body = idsToPaths(carried.body, doc.path, (to) => store.get(to)?.path)
    const written = await host.commit(doc.id, doc.path, carried.meta, body, formatDocument(carried.meta, body))
    await host.ledger.record({ type: 'edited', id: doc.id, version: written, redacted: redaction.count, actor })
    return { id: doc.id, version: written, redacted: redaction.count }
  })
}
