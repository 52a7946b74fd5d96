/**
 * Writing a note or a preference after its arguments were parsed: links and supersedes validated against what the
 * caller's workspace can see, inline `[text](<id>)` links checked, the document written through the store (redacted,
 * links as relative paths), the ledger entry, then the supersede of each older document. One code path for the
 * `knowledge_note` tool and `dsh-knowledge note`.
 * @module dsh-knowledge-sync/note/write
 */
import type { KnowledgeStore, WrittenDocument } from '../knowledge/store.js'
import { type Actor, supersede, visibleIds } from '../knowledge/corrections/correct.js'
import { unresolvedIds } from '../knowledge/relations/relations.js'
import { isVisible } from '../search/scope.js'
import { type NoteArgs, noteDraft } from './note-args.js'

/** Writes `note` for `session` in `cwd`; refuses links and supersedes that name no document visible from `scope`. */
export async function writeNote(
  store: KnowledgeStore,
  note: NoteArgs,
  where: { session: string; cwd: string; scope: string | undefined; actor: Actor },
): Promise<{ written: WrittenDocument; supersedes: string[] }> {
  const { scope } = where
  const links = visibleIds(store, note.links, scope, 'links')
  const supersedes = visibleIds(store, note.supersedes, scope, 'supersedes')
  const inline = unresolvedIds(`${note.finding}\n${note.evidence ?? ''}\n${note.scope ?? ''}`, (id) => {
    const m = store.get(id)
    return !!m && isVisible(m.cwd, scope)
  })
  if (inline.length)
    throw new Error(`refused: the text links to ${inline.join(', ')}, which ${inline.length === 1 ? 'names' : 'name'} no document visible in this workspace; use ids from knowledge_search`)
  const written = await store.write(
    noteDraft(note, {
      session: where.session,
      cwd: where.cwd,
      suffix: store.nextNoteSuffix(where.session),
      links: links.map((id) => ({ id, title: store.get(id)?.title ?? id })),
      supersedes,
    }),
  )
  await store.ledger.record({ type: 'note', session: where.session, id: written.id, redacted: written.redaction.count })
  for (const old of supersedes) await supersede(store, { id: old, by: written.id }, scope, where.actor)
  return { written, supersedes }
}
