/**
 * A bounded local history of documents' texts, for a root that is not in a git repository (where git keeps the
 * history). One append-only file, `<root>/.knowledge/history.jsonl`, one line per revision the store saw:
 * `{"id","v","hash","at","text"}`, the text **redacted** with the live redactor before it touches the disk (a
 * hand-written document may hold a credential its file has never been masked for).
 *
 * Bounds: at most {@link LOCAL_HISTORY_PER_DOCUMENT} revisions of one document (as read; the file may hold up to twice
 * as many lines of one document between rewrites) and {@link LOCAL_HISTORY_MAX_BYTES}
 * for the whole file; a text over {@link LOCAL_HISTORY_MAX_TEXT} is recorded without its text ("too large to keep").
 * When an append takes the file over its bound, it is rewritten (atomically) keeping each document's newest
 * revisions and dropping the oldest lines first, down to three quarters of the bound. A revision made before the
 * history started (or while no store watched the root) has no text here; the history says so.
 * @module dsh-knowledge-sync/knowledge/history/local
 */
import { closeSync, existsSync, fstatSync, readSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { appendRootStateFile, ensureStateFolder, openRootStateFile, readRootStateFile, writeRootStateFile } from '../disk/root-files.js'
import { LoopSlices, readLinesSliced } from '../disk/line-file.js'
import { withOsLock } from '../disk/os-lock.js'
import { readRootFile } from '../disk/safe-read.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import { contentHash } from '../logs/revisions.js'
import type { KnowledgeStore } from '../store.js'

export const LOCAL_HISTORY_FILE = 'history.jsonl'
/** The lock file beside it (an OS lock, see disk/os-lock.ts; nothing is written into it). */
const HISTORY_LOCK = 'history.lock'
/** The bound of the whole local history file. */
export const LOCAL_HISTORY_MAX_BYTES = 8 * 1024 * 1024
/** The most revisions kept per document. */
export const LOCAL_HISTORY_PER_DOCUMENT = 20
/**
 * A document's lines may reach twice {@link LOCAL_HISTORY_PER_DOCUMENT} before a rewrite trims them (readers see the
 * newest 20 either way): trimming at 21 rewrote the whole file (up to 8 MB) on every further edit of a page edited
 * often, such as the wiki's log or a synced section; now once per 20 of its edits.
 */
const PER_DOCUMENT_LINES = LOCAL_HISTORY_PER_DOCUMENT * 2
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
  return text ? parseLines(text.split('\n')) : []
}

function parseLines(lines: readonly string[]): LocalRevision[] {
  const out: LocalRevision[] = []
  for (const line of lines) {
    const entry = parseLine(line)
    if (entry) out.push(entry)
  }
  return out
}

/** The longest one slice of a rewrite holds the event loop. */
const SLICE_MS = 8

/** `each(item)` over `items` with a turn of the event loop whenever `sliceMs` have passed (false from `each`: stop). */
async function inSlices<T>(items: readonly T[], each: (item: T) => unknown, sliceMs = SLICE_MS): Promise<void> {
  const slices = new LoopSlices(sliceMs)
  for (let k = 0; k < items.length; k++) {
    if (each(items[k]) === false) return
    if (slices.due) await slices.turn()
  }
}

/** The newest {@link LOCAL_HISTORY_PER_DOCUMENT} revisions of one document, oldest first. */
export function localRevisionsOf(root: string, id: string): LocalRevision[] {
  return readLocalHistory(root)
    .filter((entry) => entry.id === id)
    .slice(-LOCAL_HISTORY_PER_DOCUMENT)
}

/**
 * The lines to keep when the file went over its bound: each document's newest, then the newest overall, within
 * `budget` bytes; with the revisions they hold, oldest first. A turn of the event loop every {@link SLICE_MS}.
 */
export async function compacted(entries: readonly LocalRevision[], budget = (LOCAL_HISTORY_MAX_BYTES * 3) / 4, sliceMs = SLICE_MS): Promise<{ lines: string[]; kept: LocalRevision[] }> {
  const perDoc = new Map<string, number>()
  const lines: string[] = []
  const kept: LocalRevision[] = []
  let bytes = 0
  const newestFirst = entries.slice().reverse()
  await inSlices(
    newestFirst,
    (entry) => {
      const n = perDoc.get(entry.id) ?? 0
      if (n >= LOCAL_HISTORY_PER_DOCUMENT) return
      const line = JSON.stringify(entry)
      const size = Buffer.byteLength(line) + 1
      if (bytes + size > budget) return false
      perDoc.set(entry.id, n + 1)
      bytes += size
      lines.push(line)
      kept.push(entry)
    },
    sliceMs,
  )
  return { lines: lines.reverse(), kept: kept.reverse() }
}

/**
 * What a long-lived process knows of the history file without reading it: the file's size and inode after its last
 * append or read, and each id's line count and newest hash. Why: reading and parsing the whole file (up to 8 MB) on
 * every append held the event loop ~0.4–0.7 s a write at 4,800 documents (issue 24), and the per-id hashes kept for
 * skipping unchanged texts grew with every document this process ever wrote, past what the file still held. The
 * file is read again only when it is not as this process left it (another process appended or compacted it), and
 * a compaction's result replaces everything: at most one entry per id the file holds.
 */
export class HistoryTally {
  /** @param sliceMs the longest a rewrite holds the event loop at a time (the tests make it 0: a turn after each line). */
  constructor(readonly sliceMs = SLICE_MS) {}
  private size = -1
  private ino = -1
  private readonly docs = new Map<string, { lines: number; hash: string }>()
  /** Bytes of the history file read so far (the tests watch it). */
  bytesRead = 0

  /** Ids the tally holds (at most those the file holds). */
  get ids(): number {
    return this.docs.size
  }

  /** The newest hash the file holds for `id`, after reading the file if another process changed it. Throws when it is over its read bound. */
  hashOf(root: string, id: string): string | undefined {
    this.follow(root)
    return this.newest(id)
  }

  /** The newest hash this process knows the file to hold for `id` (see {@link hashOf}). */
  newest(id: string): string | undefined {
    return this.docs.get(id)?.hash
  }

  /**
   * Takes in what another process changed: when the file only grew (the same inode), the lines appended since (an
   * append of another process: ~1 KB, where reading the whole file held the loop ~0.1–0.3 s at its 8 MB bound);
   * else (rewritten, replaced, shorter, or never read) the whole file again.
   */
  follow(root: string): void {
    const { size, ino } = fileIdentity(root)
    if (size === this.size && ino === this.ino) return
    if (this.size >= 0 && ino === this.ino && size > this.size && this.followTail(root, size)) return
    this.bytesRead += size
    this.load(readLocalHistory(root), root)
  }

  /** Counts the whole lines from {@link size} to `size`; false when they cannot be read (the caller reads it all). */
  private followTail(root: string, size: number): boolean {
    const fd = openRootStateFile(root, localHistoryFile(root))
    if (fd === undefined) return false
    let tail: Buffer
    try {
      if (fstatSync(fd).ino !== this.ino || size - this.size > READ_BOUND) return false
      tail = Buffer.alloc(size - this.size)
      for (let at = 0; at < tail.length; ) {
        const n = readSync(fd, tail, at, tail.length - at, this.size + at)
        if (n <= 0) return false
        at += n
      }
    } finally {
      closeSync(fd)
    }
    // Up to the last newline: a line being appended this instant is read whole next time.
    const end = tail.lastIndexOf(0x0a) + 1
    this.bytesRead += end
    for (const e of parseLines(tail.subarray(0, end).toString('utf8').split('\n'))) this.docs.set(e.id, { lines: (this.docs.get(e.id)?.lines ?? 0) + 1, hash: e.hash })
    this.size += end
    return true
  }

  /** Takes `entries` as the whole file (just read or just rewritten). */
  load(entries: readonly LocalRevision[], root: string): void {
    this.docs.clear()
    for (const e of entries) this.docs.set(e.id, { lines: (this.docs.get(e.id)?.lines ?? 0) + 1, hash: e.hash })
    this.stamp(root)
  }

  /** Counts a line this process appended; returns the id's line count. */
  appended(root: string, entry: LocalRevision, bytes: number): number {
    const { size, ino } = fileIdentity(root)
    if (this.size >= 0 && ino === this.ino && size === this.size + bytes) {
      this.size = size
      this.docs.set(entry.id, { lines: (this.docs.get(entry.id)?.lines ?? 0) + 1, hash: entry.hash })
    } else {
      // Another process appended too: this line and theirs are read from where this process had read (before, the
      // whole file was read again on the next question, ~0.1 s at its bound, once per append of a CLI capture).
      this.follow(root)
    }
    return this.docs.get(entry.id)?.lines ?? 0
  }

  /**
   * {@link follow}, with a whole read (the file rewritten or replaced by another process) parsed a slice at a time
   * with turns of the event loop between (see disk/line-file.ts); an append still checks with {@link follow} after it.
   */
  async settle(root: string): Promise<void> {
    const { size, ino } = fileIdentity(root)
    if (size === this.size && ino === this.ino) return
    if (this.size >= 0 && ino === this.ino && size > this.size) return this.follow(root)
    const read = await readLinesSliced(root, localHistoryFile(root), { parse: parseLine, maxBytes: READ_BOUND, sliceMs: this.sliceMs })
    // What was read is the file as it was then: its identity is taken from that moment, so a later append is a tail.
    this.bytesRead += read?.end ?? 0
    this.docs.clear()
    for (const e of read?.items ?? []) this.docs.set(e.id, { lines: (this.docs.get(e.id)?.lines ?? 0) + 1, hash: e.hash })
    this.size = read?.end ?? 0
    this.ino = read?.ino ?? 0
  }

  /** The file's size as last seen (-1: unknown). */
  get bytes(): number {
    return this.size
  }

  private stamp(root: string): void {
    ;({ size: this.size, ino: this.ino } = fileIdentity(root))
  }
}

/** The history file's size and inode (both 0 when there is no file yet). */
function fileIdentity(root: string): { size: number; ino: number } {
  try {
    const { size, ino } = statSync(localHistoryFile(root))
    return { size, ino }
  } catch {
    return { size: 0, ino: 0 }
  }
}

/**
 * Appends one revision, rewriting the file within its bound when it grew past it. `tally`: a long-lived keeper's
 * {@link HistoryTally}, so the file is read only when another process changed it (without one, every call reads it).
 */
export async function appendLocalRevision(root: string, entry: LocalRevision, tally = new HistoryTally()): Promise<void> {
  const file = localHistoryFile(root)
  ensureStateFolder(root, dirname(file))
  // One appender or rewriter at a time, across processes: a rewrite reads the file, compacts it and renames a new one in
  // its place a slice at a time, and a line another process appended in between would be lost with the old file.
  await withOsLock(join(dirname(file), HISTORY_LOCK), () => appendLocked(root, entry, tally))
}

async function appendLocked(root: string, entry: LocalRevision, tally: HistoryTally): Promise<void> {
  const line = JSON.stringify(entry.text !== undefined && entry.text.length > LOCAL_HISTORY_MAX_TEXT ? { ...entry, text: undefined } : entry)
  const file = localHistoryFile(root)
  try {
    await tally.settle(root)
    tally.follow(root)
  } catch {
    // Over even the read bound (a hostile file): start again from this revision, nothing else is readable anyway.
    await writeRootStateFile(root, file, `${line}\n`)
    tally.load([entry], root)
    return
  }
  // Already the newest line of its id (another process on the root saw the same change first): not a new revision.
  // Checked and appended in one synchronous step, so two stores of one process never both append it.
  if (tally.newest(entry.id) === entry.hash) return
  appendRootStateFile(root, file, `${line}\n`)
  const lines = tally.appended(root, entry, Buffer.byteLength(line) + 1)
  if (tally.bytes <= LOCAL_HISTORY_MAX_BYTES && lines <= PER_DOCUMENT_LINES) return
  await rewrite(root, tally)
}

/**
 * Rewrites the file within its bounds: read on libuv's threads and parsed, compacted a slice at a time (a rewrite of
 * the 8 MB file held the event loop 100–170 ms in one piece, every ~1,300 rounds of a long-lived process; its whole
 * synchronous read and decode, 8–30 ms more, twice), written atomically. Appenders and rewriters of this code wait for
 * the OS lock the caller holds; lines a process without it (an older build) appended meanwhile are kept too, and when
 * one rewrote the file meanwhile (a new inode, or shorter) its rewrite stands.
 */
async function rewrite(root: string, tally: HistoryTally): Promise<void> {
  const file = localHistoryFile(root)
  const options = { parse: parseLine, maxBytes: READ_BOUND, sliceMs: tally.sliceMs }
  const read = (await readLinesSliced(root, file, options)) ?? { items: [], end: 0, ino: 0 }
  const over = read.end > LOCAL_HISTORY_MAX_BYTES
  const { lines, kept } = await compacted(read.items, over ? undefined : Number.POSITIVE_INFINITY, tally.sliceMs)
  const now = fileIdentity(root)
  if (now.ino !== read.ino || now.size < read.end) return tally.follow(root)
  // What was appended while this one compacted: kept as it was appended.
  const late = now.size > read.end ? ((await readLinesSliced(root, file, { ...options, from: read.end }))?.items ?? []) : []
  const all = [...lines, ...late.map((e) => JSON.stringify(e))]
  await writeRootStateFile(root, file, all.length ? `${all.join('\n')}\n` : '')
  tally.load([...kept, ...late], root)
}

/**
 * Keeps the local history of `store`'s root while it runs: every document written (by the store or seen changed on
 * disk) has its redacted text appended when it differs from the last one kept. Nothing when the root is in a git
 * work tree (git is its history). Each append is a {@link KnowledgeStore.hold}, so closing the store waits for it.
 * Returns the detach.
 */
export function keepLocalHistory(store: KnowledgeStore, options: { git?: boolean; tally?: HistoryTally; warn?: (message: string) => void } = {}): () => void {
  if (options.git ?? insideGitTree(store.root)) return () => {}
  const tally = options.tally ?? new HistoryTally()
  let chain: Promise<void> = Promise.resolve()
  // A history that cannot be kept (its lock is a folder, its folder unwritable) never fails the write it follows; it
  // is said once per reason, not once per write.
  const said = new Set<string>()
  const failed = (error: unknown) => {
    const reason = (error as Error).message
    if (said.has(reason) || said.size >= 8) return
    said.add(reason)
    options.warn?.(`the local history is not kept: ${reason}`)
  }
  const keep = async (id: string, text: string, v: number): Promise<void> => {
    const hash = contentHash(text)
    try {
      await tally.settle(store.root)
      if (tally.hashOf(store.root, id) === hash) return
    } catch {
      /* unreadable: the append rewrites it */
    }
    const redacted = (await store.redact(text)).text
    await appendLocalRevision(store.root, { id, v, hash, at: new Date().toISOString(), text: redacted }, tally)
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
    chain = chain.then(() => keep(change.id, text, v)).catch(failed)
    store.hold(chain)
  })
}
