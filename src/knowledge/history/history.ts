/**
 * A document's history and the diff between two of its revisions, for the page and `dsh-knowledge history`. From
 * git when the root is in a work tree and the file has commits (./git.ts: hostile-repository safe), else from the
 * bounded local history (./local.ts). Every text is redacted with the live redactor before it is compared or
 * shown, so a credential an old commit still holds never leaves the process, and both sides of a diff are masked
 * alike. A ref is one the history itself listed: nothing a caller types reaches git.
 * @module dsh-knowledge-sync/knowledge/history/history
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { structuredPatch } from 'diff'
import type { DocumentHistory, HistoryDiff, HistoryRevision } from '../../wire.js'
import { contentHash } from '../logs/revisions.js'
import type { KnowledgeStore } from '../store.js'
import { GIT_MAX_COMMITS, gitCommits, gitText } from './git.js'
import { LOCAL_HISTORY_MAX_BYTES, LOCAL_HISTORY_PER_DOCUMENT, type LocalRevision, localRevisionsOf } from './local.js'

/** The ref of the file as it is now. */
export const CURRENT = 'current'
/** How many characters of a commit id make its ref. */
const SHORT_SHA = 12
/** The most edits a line diff looks for before it gives up (two unrelated 4 MiB texts must not take minutes). */
const MAX_EDIT_LENGTH = 20_000
const CONTEXT_LINES = 3

interface Resolved {
  history: DocumentHistory
  /** The text of a listed ref, unredacted (undefined: not kept). */
  text(ref: string): Promise<string | undefined>
}

async function resolve(store: KnowledgeStore, rawId: unknown, scope: string | undefined): Promise<Resolved> {
  const { doc, text: now } = await store.readText(rawId, scope)
  const version = store.versionOf(doc.id)
  const nowHash = contentHash(now)
  let mtime = new Date().toISOString()
  try {
    mtime = new Date(statSync(join(store.root, doc.path)).mtimeMs).toISOString()
  } catch {
    /* raced with a delete: the read above still holds its text */
  }
  const current: HistoryRevision = { ref: CURRENT, at: mtime, hasText: true, ...(version ? { version } : {}) }
  const git = await gitCommits(store.root, doc.path)
  if (git?.commits.length) {
    const bySha = new Map(git.commits.map((c) => [c.sha.slice(0, SHORT_SHA), c.sha]))
    const revisions: HistoryRevision[] = []
    for (const c of git.commits)
      revisions.push({ ref: c.sha.slice(0, SHORT_SHA), at: c.at, author: await store.redactLine(c.author, 80), subject: await store.redactLine(c.subject, 200), hasText: true })
    const newest = await gitText(store.root, git.commits[0].sha, doc.path)
    // The file differs from its last commit (a capture not committed yet, an edit): "current" leads the list.
    if (newest === undefined || contentHash(newest) !== nowHash) revisions.unshift(current)
    return {
      history: { id: doc.id, path: doc.path, source: 'git', revisions, more: git.more, limits: { commits: GIT_MAX_COMMITS }, ...(version ? { version } : {}) },
      text: async (ref) => (ref === CURRENT ? now : bySha.has(ref) ? gitText(store.root, bySha.get(ref)!, doc.path) : undefined),
    }
  }
  let kept: LocalRevision[] = []
  try {
    kept = localRevisionsOf(store.root, doc.id)
  } catch {
    /* an unreadable history file: the current text is all there is */
  }
  // One entry per revision number (the newest text seen for it), newest first.
  const byRef = new Map<string, LocalRevision>()
  for (const entry of kept) byRef.set(`v${entry.v}`, entry)
  const revisions: HistoryRevision[] = [...byRef.entries()].reverse().map(([ref, entry]) => ({ ref, at: entry.at, version: entry.v, hasText: entry.text !== undefined }))
  const newest = kept.at(-1)
  if (!newest || newest.hash !== nowHash) revisions.unshift(current)
  const oldest = [...byRef.values()].reduce((min, e) => Math.min(min, e.v), Number.POSITIVE_INFINITY)
  return {
    history: {
      id: doc.id,
      path: doc.path,
      source: 'local',
      revisions,
      // Revisions the store counted that the history has no entry for (before it started, or dropped by its bounds).
      more: version !== undefined && Number.isFinite(oldest) ? oldest > 1 : (version ?? 1) > 1,
      limits: { perDocument: LOCAL_HISTORY_PER_DOCUMENT, bytes: LOCAL_HISTORY_MAX_BYTES },
      ...(version ? { version } : {}),
    },
    text: async (ref) => (ref === CURRENT ? now : byRef.get(ref)?.text),
  }
}

/** The revisions of a visible document, newest first. */
export async function documentHistory(store: KnowledgeStore, rawId: unknown, scope: string | undefined): Promise<DocumentHistory> {
  return (await resolve(store, rawId, scope)).history
}

/** Parses `A..B` (or `A`, meaning A..current) into two refs. */
export function parseRange(range: string): { from: string; to: string } {
  const match = /^([^.\s]+)(?:\.\.([^.\s]+))?$/.exec(range.trim())
  if (!match) throw new Error(`a revision range is A..B (two refs the history lists, e.g. v2..v3 or v2..current), not ${JSON.stringify(range.slice(0, 80))}`)
  return { from: match[1], to: match[2] ?? CURRENT }
}

/** The redacted line diff between two listed revisions of a visible document (`from` older, `to` newer). */
export async function historyDiff(store: KnowledgeStore, rawId: unknown, from: string, to: string, scope: string | undefined): Promise<HistoryDiff> {
  const resolved = await resolve(store, rawId, scope)
  const { history } = resolved
  const listed = (ref: string) => {
    const want = ref.toLowerCase()
    // `current` is the file now: the newest revision when the file has not changed since.
    const hit =
      want === CURRENT && history.revisions[0]?.ref !== CURRENT
        ? history.revisions[0]
        : history.revisions.find((r) => r.ref === want || (want.length >= 7 && /^[0-9a-f]+$/.test(want) && r.ref.startsWith(want)))
    if (!hit) throw new Error(`document ${history.id} has no revision ${JSON.stringify(ref.slice(0, 80))}; its revisions: ${history.revisions.map((r) => r.ref).join(', ')}`)
    return hit
  }
  const a = listed(from)
  const b = listed(to)
  const [textA, textB] = await Promise.all([resolved.text(a.ref), resolved.text(b.ref)])
  if (textA === undefined || textB === undefined) throw new Error(`the text of revision ${textA === undefined ? a.ref : b.ref} of ${history.id} is not kept (too large for the local history)`)
  const [redA, redB] = await Promise.all([store.redact(normalized(textA)), store.redact(normalized(textB))])
  const patch = structuredPatch(a.ref, b.ref, redA.text, redB.text, undefined, undefined, { context: CONTEXT_LINES, maxEditLength: MAX_EDIT_LENGTH })
  const count = (text: string) => (text ? text.split('\n').length : 0)
  if (!patch) return { id: history.id, from: a.ref, to: b.ref, added: count(redB.text), removed: count(redA.text), hunks: [], tooLarge: true }
  let added = 0
  let removed = 0
  for (const hunk of patch.hunks)
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++
      else if (line.startsWith('-')) removed++
    }
  return {
    id: history.id,
    from: a.ref,
    to: b.ref,
    added,
    removed,
    hunks: patch.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: h.lines })),
  }
}

/** Line endings and a byte-order mark do not make a revision (the revision log's rule, ../logs/revisions.ts). */
function normalized(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n')
}

/** The diff as a unified patch (the CLI's text output). */
export function formatHistoryDiff(diff: HistoryDiff, path: string): string {
  if (diff.tooLarge) return `${path}: ${diff.from}..${diff.to} differ too much for a line diff (${diff.removed} line(s) before, ${diff.added} after)\n`
  if (!diff.hunks.length) return `${path}: ${diff.from} and ${diff.to} have the same text\n`
  const out = [`--- ${path} ${diff.from}`, `+++ ${path} ${diff.to}`]
  for (const h of diff.hunks) out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines)
  return `${out.join('\n')}\n`
}
