/**
 * Document revisions (`v:N`), assigned by the store and never by authors: 1 when the store first sees a document,
 * +1 whenever the text of its file changes (content or front matter, so status too), whoever changed it: this
 * process, another process, or a person with an editor. A touch, a restart or another process starting changes
 * nothing, because the revision counts distinct *content hashes*, not events.
 *
 * Where it lives: one append-only sidecar, `<root>/.knowledge/revisions.log`, one line per revision,
 * `<id> <hash> <time>`. The revision of a document is the number of its lines (a line repeating the id's last
 * hash does not count, so two processes that observe the same edit at once still agree). Why a sidecar and not the
 * front matter: writing `version:` into the file would itself be an edit (a hand edit would need a second write by
 * the store, racing the editor and every other process's watcher), authors could type any number, and two git
 * branches bumping `version: 4` would conflict in every document they touched. Why one log and not a file per
 * document: one read at start instead of one per document, one lock, one line per write. Git: the log gets a
 * `.gitattributes` with `merge=union`, so a merge keeps both branches' lines and revisions only ever grow.
 *
 * Every append happens under a lock file with a re-read of the log's tail, so the log is one linear history that
 * every process on the root folds the same way.
 * @module dsh-knowledge-sync/knowledge/logs/revisions
 */
import { isAscii } from 'node:buffer'
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, readSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { appendRootStateFile, createRootStateFile, ensureStateFolder, openRootStateFile } from '../disk/root-files.js'
import { ownString } from '../../search/schema.js'
import { LEDGER_DIR } from './ledger.js'
import { type AsciiLine, LINE, readAsciiLine, revisionsIn } from './revision-line.js'
import { RevisionTable } from './revision-table.js'

export const REVISIONS_FILE = 'revisions.log'
const LOCK_FILE = 'revisions.lock'
/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 10_000
/** How long a writer waits for the lock before appending anyway (a duplicate line is harmless; a lost one is not). */
const LOCK_WAIT_MS = 2_000
const sleeper = new Int32Array(new SharedArrayBuffer(4))
/** Longer than any line the store writes (an id of at most 128 characters, a hash, a time): a longer one is noise. */
export const MAX_LINE_BYTES = 4096
const READ_CHUNK = 1024 * 1024
/** At most this many ids are looked up in an unfolded log ({@link Revisions.withVersions}); more fold it. */
const PEEK_IDS = 50
/** A log larger than this is folded rather than read whole for a lookup. */
const PEEK_MAX_BYTES = 256 * 1024 * 1024
const EMPTY = Buffer.alloc(0)

/**
 * The hash that defines "changed": the file's text with a byte-order mark dropped and line endings normalized, so
 * a checkout that converts to CRLF (git `autocrlf`) is not a new revision. 64 bits of SHA-256.
 */
export function contentHash(text: string): string {
  const normalized = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n')
  // toString of the first 8 bytes, not `.slice(0, 16)` of the hex digest: V8 keeps such a slice as a view that holds
  // the whole 64-character digest alive, ~80 bytes more per hash every long-lived map of documents keeps (issue 24).
  return createHash('sha256').update(normalized).digest().toString('hex', 0, 8)
}

export interface RevisionLogger {
  warn(format: string, ...args: unknown[]): void
}

/** The revision log of one root, folded in memory and kept current by reading its tail before every decision. */
export class Revisions {
  private readonly dir: string
  private readonly file: string
  private readonly lock: string
  private readonly entries = new RevisionTable()
  /** Bytes of the log read so far (an unterminated tail included: it is kept in {@link partial}). */
  private offset = 0
  /** The bytes of the unterminated line at {@link offset}. */
  private partial: Buffer = EMPTY
  /** The line at {@link offset} is longer than {@link MAX_LINE_BYTES}: skipped up to its newline. */
  private skipping = false
  /** Set when the log cannot be written (a read-only root): revisions are then counted in memory only. */
  private readOnly = false
  private refreshed = 0
  /** The line {@link foldAscii} reads into, reused. */
  private readonly line: AsciiLine = { id: '', hash: '', atStart: 0, atEnd: 0 }
  /** {@link withVersions} has looked ids up in the unfolded log once already. */
  private peeked = false
  /** Bytes read from the log so far (each byte once; the tests and the revisions bench watch it). */
  bytesRead = 0

  constructor(
    private readonly root: string,
    private readonly logger?: RevisionLogger,
  ) {
    this.dir = join(root, LEDGER_DIR)
    this.file = join(this.dir, REVISIONS_FILE)
    this.lock = join(this.dir, LOCK_FILE)
  }

  /** The current revision of `id` as this process knows it (0: never seen). */
  get(id: string): number {
    return this.entries.count(id)
  }

  /** When the store first recorded `id` (its first revision), shared by every process on the root; undefined if unknown. */
  firstSeen(id: string): number | undefined {
    // Asked while a scan parses files, before it records their revisions: the log is folded first (cheap if current).
    if (Date.now() - this.refreshed > 20) {
      this.refresh()
      this.refreshed = Date.now()
    }
    return this.entries.firstSeen(id)
  }

  /** The newest revision of `id` (the log's tail is read at most every 20 ms); undefined for an unknown id. */
  current(id: string): number | undefined {
    if (Date.now() - this.refreshed > 20) {
      this.refresh()
      this.refreshed = Date.now()
    }
    return this.get(id) || undefined
  }

  /**
   * Records the texts the index holds, or is about to (one lock and one append for a whole scan slice); returns their
   * revisions, and sets each one's `version`: the index keeps it with the row (search/schema.ts, REV_COLUMN), so no
   * map of indexed revisions is kept here (it cost ~100 bytes per document: 100 MB at a million).
   */
  index(docs: ReadonlyArray<{ id: string; hash?: string; mtimeMs?: number; version?: number }>): number[] {
    const hashed = docs.filter((doc) => doc.hash)
    const versions = this.observeMany(hashed.map((doc) => [doc.id, doc.hash!, doc.mtimeMs] as const))
    versions.forEach((version, k) => {
      hashed[k].version = version
    })
    return versions
  }

  /**
   * Each row with the revision of its indexed text: the one its row keeps, else (a row an older build wrote, until
   * the warm-up fills it in) the newest. A process that has not folded the log yet (a one-shot command: `search` prints
   * ten hits) looks only these ids up in it, which costs a read of the file instead of folding every line of it
   * (100k documents: a 7 MB log, ~0.4 s of folding under load). Same answers as folding: the same lines count.
   */
  withVersions<Row extends { id: string; version?: number }>(rows: readonly Row[]): Array<Row & { version: number | undefined }> {
    // A row the index keeps with its revision needs no lookup (search/schema.ts, REV_COLUMN).
    const missing = rows.filter((row) => row.version === undefined).map((row) => row.id)
    // Once per process: each lookup reads the whole log, so a long-lived one (dsh web: a list or search per request)
    // folds it on its second call and never reads it whole again.
    const peek = !this.peeked && missing.length > 0 && missing.length <= PEEK_IDS && this.offset === 0 && !this.entries.size
    if (peek) this.peeked = true
    const found = peek ? this.peek(missing) : undefined
    return rows.map((row) => ({ ...row, version: row.version ?? (found ? found.get(row.id) || undefined : this.current(row.id)) }))
  }

  /** The revisions of `ids` in the log as it is, without folding it; undefined when the log must be folded instead. */
  private peek(ids: readonly string[]): Map<string, number> | undefined {
    let fd: number | undefined
    try {
      fd = openRootStateFile(this.root, this.file)
      if (fd === undefined) return new Map()
      const info = fstatSync(fd)
      if (!info.isFile() || info.size > PEEK_MAX_BYTES) return undefined
      const log = Buffer.allocUnsafe(info.size)
      let size = 0
      for (let n = 1; size < log.length && n > 0; size += n) n = readSync(fd, log, size, log.length - size, size)
      return revisionsIn(log, size, ids, MAX_LINE_BYTES)
    } catch {
      return undefined // folding says why (a link, not a file), once
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  /**
   * Folds lines other processes appended since the last look. Cheap when nothing changed (one fstat). `limit`: fold
   * at most about that many bytes and return false if more remain: the background warm-up of a long-lived store
   * folds a large log a slice per event-loop turn. Every byte is read once: an unterminated tail is kept (up to
   * {@link MAX_LINE_BYTES}; a longer "line" is skipped to its end), never read again on the next look, so a torn or
   * hostile log cannot make each refresh re-read megabytes.
   */
  refresh(limit = Number.POSITIVE_INFINITY): boolean {
    let fd: number | undefined
    try {
      fd = openRootStateFile(this.root, this.file)
    } catch (error) {
      this.refuse(error as Error)
      return true
    }
    if (fd === undefined) return true
    try {
      const info = fstatSync(fd)
      // Not a file (a directory put there): no revisions to read, and none to append (one warning, memory only).
      if (!info.isFile()) {
        if (!this.readOnly) this.logger?.warn('%s is not a file; revisions are kept in memory only', this.file)
        this.readOnly = true
        return true
      }
      const size = info.size
      if (size < this.offset) {
        // Replaced or truncated: fold it again.
        this.entries.clear()
        this.offset = 0
        this.partial = EMPTY
        this.skipping = false
      }
      const end = Math.min(size, this.offset + limit)
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(1, end - this.offset)))
      while (this.offset < end) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - this.offset), this.offset)
        if (n <= 0) break
        this.foldBytes(chunk.subarray(0, n))
        this.offset += n
        this.bytesRead += n
      }
      return this.offset >= size
    } finally {
      closeSync(fd)
    }
  }

  /** The log ends mid-line at the folded offset (a writer died there): the next append starts a new line. */
  private get torn(): boolean {
    return this.partial.length > 0 || this.skipping
  }

  /** Folds the whole lines of `bytes`, carrying an unterminated end over to the next call. */
  private foldBytes(bytes: Buffer): void {
    let from = 0
    const line = (nl: number): void => {
      if (this.skipping) this.skipping = false
      else if (this.partial.length + nl - from <= MAX_LINE_BYTES) {
        const text = this.partial.length ? Buffer.concat([this.partial, bytes.subarray(from, nl)]) : bytes.subarray(from, nl)
        this.fold(text.toString('utf8'))
      }
      this.partial = EMPTY
      from = nl + 1
    }
    // The end of a line carried over from the previous read.
    if (this.partial.length || this.skipping) {
      const nl = bytes.indexOf(10)
      if (nl >= 0) line(nl)
    }
    // The whole lines after it are read in place when they are plain ASCII (the store writes nothing else): a string
    // per line, its regex match and a Buffer view per line were two thirds of folding a 100k-document log (~0.5 s),
    // most of it garbage collection.
    const last = bytes.lastIndexOf(10)
    if (!this.partial.length && !this.skipping && last > from && isAscii(bytes.subarray(from, last))) {
      for (let start = from; start < last; ) {
        const nl = bytes.indexOf(10, start)
        if (nl - start <= MAX_LINE_BYTES) this.foldAscii(bytes, start, nl)
        start = nl + 1
      }
      from = last + 1
    }
    for (let nl = bytes.indexOf(10, from); nl >= 0; nl = bytes.indexOf(10, from)) line(nl)
    if (from >= bytes.length || this.skipping) return
    if (this.partial.length + bytes.length - from > MAX_LINE_BYTES) {
      this.partial = EMPTY
      this.skipping = true
    } else this.partial = Buffer.concat([this.partial, bytes.subarray(from)])
  }

  /** A log that cannot be opened safely (a link, not a file): revisions stay in memory, said once. */
  private refuse(error: Error): void {
    if (!this.readOnly) this.logger?.warn('cannot use %s: %s (revisions are kept in memory only)', this.file, error.message)
    this.readOnly = true
  }

  /** {@link fold} of the ASCII line `bytes[start, end)`, without making it a string (./revision-line.ts). */
  private foldAscii(bytes: Buffer, start: number, end: number): void {
    const line = this.line
    if (!readAsciiLine(bytes, start, end, line)) return
    const added = this.entries.record(line.id, line.hash)
    if (added >= 0 && line.atStart < line.atEnd) this.entries.date(added, Date.parse(bytes.toString('latin1', line.atStart, line.atEnd)))
  }

  private fold(line: string): void {
    const match = LINE.exec(line.trim())
    if (!match) return
    const [, id, hash, at] = match
    // A copy of a new id, not the match: V8 keeps a match as a view that holds the whole log line alive (~160 bytes
    // more a document, for as long as the process runs; issue 24). The hash is kept as numbers (./revision-table.ts).
    const added = this.entries.record(this.entries.has(id) ? id : ownString(id), hash)
    if (added >= 0 && at) this.entries.date(added, Date.parse(at))
  }

  /** Records that `id` now has the text hashed as `hash`; returns its revision. */
  observe(id: string, hash: string): number {
    return this.observeMany([[id, hash]])[0]
  }

  /**
   * Records many observations under one lock and one append (the start-up scan). Returns their revisions in order.
   * Never throws: a root that cannot be written still gets consistent in-memory revisions and a warning.
   */
  observeMany(pairs: ReadonlyArray<readonly [id: string, hash: string, mtimeMs?: number]>): number[] {
    const stale = () => pairs.some(([id, hash]) => !this.entries.isLast(id, hash))
    this.refresh()
    if (!stale()) return pairs.map(([id]) => this.get(id))
    if (this.readOnly) return this.foldLocally(pairs)
    let release: (() => void) | undefined
    try {
      release = this.acquire()
      this.refresh()
      const now = Date.now()
      const at = new Date(now).toISOString()
      const lines: string[] = []
      for (const [id, hash, mtimeMs] of pairs) {
        if (this.entries.isLast(id, hash)) continue
        // A first revision is dated by its file when that is older (a hand-written file the store finds today was
        // written before): the created date of a file without `created` (see firstSeen).
        const first = !this.entries.has(id) && mtimeMs !== undefined && mtimeMs > 0 && mtimeMs < now
        const line = `${id} ${hash} ${first ? new Date(mtimeMs).toISOString() : at}`
        this.fold(line)
        lines.push(line)
      }
      if (lines.length) {
        const text = `${this.torn ? '\n' : ''}${lines.join('\n')}\n`
        appendRootStateFile(this.root, this.file, text)
        // Our own lines are folded already; move past them so refresh() does not count them twice.
        this.offset += Buffer.byteLength(text)
        this.partial = EMPTY
        this.skipping = false
      }
    } catch (error) {
      this.readOnly = true
      this.logger?.warn('cannot record revisions in %s: %s (revisions are kept in memory only)', this.file, (error as Error).message)
      return this.foldLocally(pairs)
    } finally {
      release?.()
    }
    return pairs.map(([id]) => this.get(id))
  }

  private foldLocally(pairs: ReadonlyArray<readonly [string, string, number?]>): number[] {
    for (const [id, hash] of pairs) this.fold(`${id} ${hash}`)
    return pairs.map(([id]) => this.get(id))
  }

  /** Takes the root's revision lock (an exclusive create); a stale lock is broken, a long wait gives up. */
  private acquire(): () => void {
    ensureStateFolder(this.root, this.dir)
    if (!existsSync(this.file)) this.writeGitAttributes()
    const deadline = Date.now() + LOCK_WAIT_MS
    for (;;) {
      try {
        createRootStateFile(this.root, this.lock, '')
        return () => rmSync(this.lock, { force: true })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      try {
        if (Date.now() - statSync(this.lock).mtimeMs > STALE_LOCK_MS) {
          rmSync(this.lock, { force: true })
          continue
        }
      } catch {
        continue
      }
      if (Date.now() > deadline) {
        this.logger?.warn('revision lock %s held for over %d ms; appending without it', this.lock, LOCK_WAIT_MS)
        return () => {}
      }
      Atomics.wait(sleeper, 0, 0, 2)
    }
  }

  /** Git keeps both sides' lines when two branches appended revisions (the log only grows; order does not matter). */
  private writeGitAttributes(): void {
    const attributes = join(this.dir, '.gitattributes')
    try {
      createRootStateFile(this.root, attributes, `${REVISIONS_FILE} merge=union\n`)
    } catch {
      /* present already, or raced */
    }
  }
}
