/**
 * `dsh-knowledge note`: a note (or, with `--kind preference`, a preference) written the way `knowledge_note` writes
 * one, links and supersedes checked against the `--cwd` workspace. The person runs the command, so a preference's
 * quote is their own words by definition (`--quote`, default: the finding).
 * @module dsh-knowledge-sync/cli/note
 */
import { hostname, userInfo } from 'node:os'
import { resolve } from 'node:path'
import { personSession } from '../knowledge/documents/paths.js'
import { parseNoteArgs } from '../note/note-args.js'
import { writeNote } from '../note/write.js'
import { type Command, type Invocation, openStore, print, printJson, UsageError } from './common.js'

// Commas of either width and the ideographic enumeration comma separate: `redis，性能、缓存` is three tags.
const list = (values: string[] | undefined): string[] | undefined =>
  values
    ?.flatMap((v) => v.split(/[,，、]/))
    .map((v) => v.trim())
    .filter(Boolean)

/** Who runs the command: the login name (`USER` when the system has none to give). */
function author(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? ''
  }
}

export const note: Command = async (invocation: Invocation) => {
  const { values } = invocation
  if (!values.title || !values.finding) throw new UsageError('note needs --title and --finding')
  const kind = values.kind ?? 'note'
  const args = parseNoteArgs({
    title: values.title,
    finding: values.finding,
    evidence: values.evidence,
    scope: values.scope,
    kind,
    tags: list(values.tags ? [values.tags] : undefined),
    links: list(values.link),
    supersedes: list(values.supersedes),
    ...(kind === 'preference' ? { quote: values.quote ?? values.finding } : {}),
  })
  const cwd = resolve(values.cwd ?? process.cwd())
  const store = await openStore(invocation, { create: true, trustWatcher: true })
  try {
    const { written, supersedes } = await writeNote(store, args, { session: personSession(author(), hostname()), cwd, scope: store.visibleScope(cwd, true), actor: 'cli' })
    if (values.json) printJson({ id: written.id, path: written.path, kind: args.kind, supersedes, redacted: written.redaction.count })
    else print(`Saved ${args.kind} ${written.id}: ${written.meta.title} (${written.path})${supersedes.length ? `; supersedes ${supersedes.join(', ')}` : ''}`)
    return 0
  } finally {
    await store.close()
  }
}
