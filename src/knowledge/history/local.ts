/**
 * A bounded local history of documents' texts, for a root that is not in a git repository (where git keeps the
 * history). One append-only file, `<root>/.knowledge/history.jsonl`, one line per revision the store saw:
 * `{"id","v","hash","at","text"}`, the text **redacted** with the live redactor before it touches the disk (a
 * hand-written document may hold a credential its file has never been masked for).
 *
 * Bounds: at most {@link LOCAL_HISTORY_PER_DOCUMENT} revisions of one document and {@link LOCAL_HISTORY_MAX_BYTES}
 * for the whole file; a text over {@link LOCAL_HISTORY_MAX_TEXT} is recorded without its text ("too large to keep").
 * When an append takes the file over its bound, it is rewritten (atomically) keeping each document's newest
 * revisions and dropping the oldest lines first, down to three quarters of the bound. A revision made before the
 * history started (or while no store watched the root) has no text here; the history says so.
 * @module dsh-knowledge-sync/knowledge/history/local
 */
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { appendRootStateFile, readRootStateFile, writeRootStateFile } from '../disk/root-files.js'
import { readRootFile } from '../disk/safe-read.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import { contentHash } from '../logs/revisions.js'
import type { KnowledgeStore } from '../store.js'

export const LOCAL_HISTORY_FILE = 'history.jsonl'
/** The bound of the whole local history file. */
export const LOCAL_HISTORY_MAX_BYTES = 8 * 1024 * 1024
/** The most revisions kept per document. */
export const LOCAL_HISTORY_PER_DOCUMENT = 20
/** A longer text is recorded without its text. */
export const LOCAL_HISTORY_MAX_TEXT = 256 * 1024
/** What a read accepts (the bound plus one appended line past it, before the rewrite). */
const READ_BOUND = LOCAL_HISTORY_MAX_BYTES + LOCAL_HISTORY_MAX_TEXT * 2 + 4096

/** One recorded revision. `text` is absent when it was too large to keep. */
export interface LocalRevision {
  id: string
  v: number
  hash: string
  at: string
  text?: string
}

export function localHistoryFile(root: string): string {
  return join(root, LEDGER_DIR, LOCAL_HISTORY_FILE)
}

/** Whether `root` is inside a git work tree (a `.git` entry in it or in a folder above it); no git is run. */
export function insideGitTree(root: string): boolean {
  // The root may not exist yet (a first capture makes it): its nearest existing folder decides.
  let dir = resolve(root)
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  try {
    dir = realpathSync(dir)
  } catch {
    return false
  }
  for (;;) {
    if (existsSync(join(dir, '.git'))) return true
    const up = dirname(dir)
    if (up === dir) return false
    dir = up
  }
}

function parseLine(line: string): LocalRevision | undefined {
  if (!line.trim()) return undefined
  try {
    const value = JSON.parse(line) as Record<string, unknown>
    if (typeof value.id !== 'string' || typeof value.hash !== 'string' || typeof value.at !== 'string' || typeof value.v !== 'number') return undefined
    if (value.text !== undefined && typeof value.text !== 'string') return undefined
    return { id: value.id, v: value.v, hash: value.hash, at: value.at, ...(typeof value.text === 'string' ? { text: value.text } : {}) }
  } catch {
    return undefined
  }
}

/** Every recorded revision, oldest first (a torn or foreign line is skipped). Throws when the file is over its read bound. */
export function readLocalHistory(root: string): LocalRevision[] {
  const text = readRootStateFile(root, localHistoryFile(root), READ_BOUND)
  if (!text) return []
  const out: LocalRevision[] = []
  for (const line of text.split('\n')) {
    const entry = parseLine(line)
    if (entry) out.push(entry)
  }
  return out
}

/** The revisions of one document, oldest first. */
export function localRevisionsOf(root: string, id: string): LocalRevision[] {
  return readLocalHistory(root).filter((entry) => entry.id === id)
}

/** The lines to keep when the file went over its bound: each document's newest, then the newest overall. */
export function compacted(entries: readonly LocalRevision[], budget = (LOCAL_HISTORY_MAX_BYTES * 3) / 4): string[] {
  const perDoc = new Map<string, number>()
  const kept: string[] = []
  let bytes = 0
  for (let k = entries.length - 1; k >= 0; k--) {
    const entry = entries[k]
    const n = perDoc.get(entry.id) ?? 0
    if (n >= LOCAL_HISTORY_PER_DOCUMENT) continue
    const line = JSON.stringify(entry)
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > budget) break
    perDoc.set(entry.id, n + 1)
    bytes += size
    kept.push(line)
  }
  return kept.reverse()
}

/** Appends one revision, rewriting the file within its bound when it grew past it. */
export async function appendLocalRevision(root: string, entry: LocalRevision): Promise<void> {
  const line = JSON.stringify(entry.text !== undefined && entry.text.length > LOCAL_HISTORY_MAX_TEXT ? { ...entry, text: undefined } : entry)
  const file = localHistoryFile(root)
  appendRootStateFile(root, file, `${line}\n`)
  let entries: LocalRevision[]
  try {
    entries = readLocalHistory(root)
  } catch {
    // Over even the read bound (a hostile file): start again from this revision, nothing else is readable anyway.
    await writeRootStateFile(root, file, `${line}\n`)
    return
  }
  const perDoc = entries.filter((e) => e.id === entry.id).length
  const size = entries.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0)
  if (size <= LOCAL_HISTORY_MAX_BYTES && perDoc <= LOCAL_HISTORY_PER_DOCUMENT) return
  const kept = size > LOCAL_HISTORY_MAX_BYTES ? compacted(entries) : compacted(entries, Number.POSITIVE_INFINITY)
  await writeRootStateFile(root, file, kept.length ? `${kept.join('\n')}\n` : '')
}

/**
 * Keeps the local history of `store`'s root while it runs: every document written (by the store or seen changed on
 * disk) has its redacted text appended when it differs from the last one kept. Nothing when the root is in a git
 * work tree (git is its history). Each append is a {@link KnowledgeStore.hold}, so closing the store waits for it.
 * Returns the detach.
 */
export function keepLocalHistory(store: KnowledgeStore, options: { git?: boolean } = {}): () => void {
  if (options.git ?? insideGitTree(store.root)) return () => {}
  let last: Map<string, string> | undefined
  let chain: Promise<void> = Promise.resolve()
  const keep = async (id: string, text: string, v: number): Promise<void> => {
    if (!last) {
      last = new Map()
      try {
        for (const entry of readLocalHistory(store.root)) last.set(entry.id, entry.hash)
      } catch {
        /* unreadable: the next append rewrites it */
      }
    }
    const hash = contentHash(text)
    if (last.get(id) === hash) return
    const redacted = (await store.redact(text)).text
    await appendLocalRevision(store.root, { id, v, hash, at: new Date().toISOString(), text: redacted })
    last.set(id, hash)
  }
  return store.onChange((change) => {
    if (change.type !== 'written') return
    // The text is read now, as the change is announced: a later read could already see the next revision.
    let text: string
    try {
      text = readRootFile(realpathSync(store.root), change.path, join(store.root, change.path)).text
    } catch {
      return
    }
    const v = store.versionOf(change.id) ?? 0
    chain = chain.then(() => keep(change.id, text, v)).catch(() => {})
    store.hold(chain)
  })
}
