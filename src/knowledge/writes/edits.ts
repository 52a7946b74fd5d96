/**
 * Edits of a document that already exists, for {@link KnowledgeStore}: a status change, more `supersedes`, and
 * spans of the file text replaced (upstream sections). The store serializes them with every other write and hands
 * over what they need ({@link EditHost}); each edit ends in the store's one atomic write or, for a splice, in the
 * same file-index-listeners sequence without a new revision.
 * @module dsh-knowledge-sync/knowledge/writes/edits
 */
import { realpathSync, rmSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { DocStatus, FrontMatter, KnowledgeDoc, Redaction } from '../../types.js'
import type { Redactor } from '../../redact/redactor.js'
import { writeFileAtomic } from '../disk/atomic.js'
import { formatDocument, parseDocument } from '../documents/document.js'
import { stampOf } from '../index-cache/index-cache.js'
import type { Ledger } from '../logs/ledger.js'
import { contentHash } from '../logs/revisions.js'
import { checkDocumentPath, insideRoot } from '../documents/paths.js'
import { applyStatus, statusOf, type StatusChange } from '../relations/relations.js'
import { readRootFile } from '../disk/safe-read.js'
import { withStatusText } from '../relations/status-text.js'
import type { WrittenDocument } from '../store-types.js'

/**
 * An edit made against revision `expected` of a document that is at revision `current` now: refused, never merged
 * over the newer text (a person editing on the page while the agent, another tab or an editor changed it).
 */
export class RevisionConflict extends Error {
  constructor(
    readonly id: string,
    readonly expected: number,
    readonly current: number | undefined,
  ) {
    super(`${id} changed since it was opened for editing (v:${expected}, now v:${current ?? '?'}); open it again to see the newer text`)
    this.name = 'RevisionConflict'
  }
}

/**
 * Throws {@link RevisionConflict} unless `id` is still at revision `expected` (none given: no check). Call inside the
 * write queue. The file is read again, so a change the watcher has not seen yet (a hand edit, another process) is
 * counted now, not overwritten.
 */
export async function checkRevision(host: Pick<EditHost, 'read' | 'versionOf'>, id: string, expected: number | undefined): Promise<void> {
  if (expected === undefined) return
  const fresh = await host.read(id)
  const current = fresh?.version ?? host.versionOf(id)
  if (current !== expected) throw new RevisionConflict(id, expected, current)
}

/** What the edits use of the store. */
export interface EditHost {
  readonly root: string
  readonly ledger: Ledger
  readonly redactor: Redactor
  closed(): boolean
  start(): Promise<void>
  read(id: string): Promise<KnowledgeDoc | undefined>
  /** The newest revision of a document (another process's change included). */
  versionOf(id: string): number | undefined
  /** The store's one atomic write (file, index, relations, change listeners); returns the revision. */
  commit(id: string, relPath: string, meta: FrontMatter, body: string, text: string): Promise<number>
  /** A spliced file is on disk: index it (and the revision of its text), note it, tell the change listeners. */
  landed(doc: KnowledgeDoc): void
  /** When the store first saw a document (the created date of a file without `created`). */
  firstSeen?(id: string): number | undefined
  /** Takes back a file this write created (a later file of the same batch failed): see {@link withdrawCreated}. */
  withdraw(relPath: string): void
}

/**
 * Removes a file a batch has just created and makes the index forget it, so a batch that is all or none stays none
 * when a later file fails on the disk. Only for files the batch itself created (there is no earlier text to put
 * back); a link put there since is removed as a link, never followed.
 */
export function withdrawCreated(root: string, relPath: string, files: { forget(rel: string): void }): void {
  rmSync(insideRoot(root, relPath), { force: true })
  files.forget(relPath)
}

/** See {@link KnowledgeStore.setStatus}. */
export async function setStatus(host: EditHost, id: string, change: StatusChange, actor: string): Promise<{ id: string; status: DocStatus }> {
  if (host.closed()) throw new Error('knowledge store is closed')
  const doc = await host.read(id)
  if (!doc) throw new Error(`no document ${id}`)
  const reason = 'reason' in change && change.reason ? (await host.redactor.redact(change.reason.slice(0, 1000))).text : undefined
  const redacted = { ...change, ...(reason !== undefined ? { reason } : {}) } as StatusChange
  const at = new Date().toISOString()
  const { meta, notice } = applyStatus(doc, redacted, at)
  // The file's own text with only the status lines and the notice changed (see status-text), so a restore gives
  // back the bytes a person wrote.
  const written = readRootFile(realpathSync.native(host.root), doc.path, insideRoot(host.root, doc.path)).text
  const text = withStatusText(written, { status: meta.status, superseded_by: meta.superseded_by, retired: meta.retired }, notice)
  const body = parseDocument(text, doc.path, doc.id, doc.mtimeMs).body
  await host.commit(doc.id, doc.path, meta, body, text)
  const status = statusOf(meta)
  await host.ledger.record({ type: 'status', id: doc.id, status, ...(change.to === 'superseded' ? { by: change.by } : {}), ...(reason ? { reason } : {}), actor })
  return { id: doc.id, status }
}

/** See {@link KnowledgeStore.addSupersedes}. */
export async function addSupersedes(host: EditHost, id: string, oldIds: string[]): Promise<void> {
  const doc = await host.read(id)
  if (!doc) throw new Error(`no document ${id}`)
  const before = Array.isArray(doc.meta.supersedes) ? doc.meta.supersedes.map(String) : []
  const next = [...new Set([...before, ...oldIds])]
  if (next.length === before.length) return
  const meta = { ...doc.meta, supersedes: next }
  await host.commit(doc.id, doc.path, meta, doc.body, formatDocument(meta, doc.body))
}

/** See {@link KnowledgeStore.splice}. */
export async function splice(host: EditHost, relPath: string, expected: string, edits: Array<{ start: number; end: number; text: string }>, source: string): Promise<WrittenDocument> {
  if (host.closed()) throw new Error('knowledge store is closed')
  await host.start()
  // The same target rule as sync's sources and decisions: whoever calls, no write into .git/, .knowledge/ or a non-.md file.
  const checked = checkDocumentPath(host.root, relPath)
  if ('reason' in checked) throw new Error(`cannot write ${checked.reason}`)
  const full = insideRoot(host.root, checked.rel)
  if ((await readFile(full, 'utf8')) !== expected) throw new Error(`${relPath} changed on disk while it was being synced; try again`)
  let text = expected
  let count = 0
  const families: Redaction['families'] = {}
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    const masked = await host.redactor.redact(edit.text)
    count += masked.count
    for (const [family, n] of Object.entries(masked.families)) families[family] = (families[family] ?? 0) + n
    text = text.slice(0, edit.start) + masked.text + text.slice(edit.end)
  }
  const parsed = parseDocument(
    text,
    relPath,
    basename(relPath, '.md')
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[-.]+/, '') || 'doc',
    Date.now(),
    host.firstSeen,
  )
  await writeFileAtomic(full, text)
  const info = await stat(full)
  // The hash goes with it: the store records the indexed revision from it, so the list, the read and the API agree.
  const doc: KnowledgeDoc = { id: parsed.meta.id, path: relPath, meta: parsed.meta, body: parsed.body, mtimeMs: info.mtimeMs, stamp: stampOf(info, text), hash: contentHash(text) }
  host.landed(doc)
  await host.ledger.record({ type: 'synced', id: doc.id, path: relPath, source, redacted: count })
  return { id: doc.id, path: relPath, meta: doc.meta, redaction: { text: '', count, families } }
}
