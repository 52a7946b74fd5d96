/**
 * The document files under the root: the start-up scan, the watcher, and the bookkeeping that maps files to ids.
 * Files are the source of truth; this module feeds what it reads to an {@link IndexSink} (the search index plus the
 * store's change listeners), one file at a time after the scan (never a rebuild).
 * @module dsh-knowledge-sync/knowledge/files
 */
import { existsSync, readFileSync, rmSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { basename, join, sep } from 'node:path'
import type { KnowledgeDoc } from '../types.js'
import type { ManifestRow } from '../search/search-index.js'
import { changedSince, stampOf } from './index-cache.js'
import { DocumentError, parseDocument } from './document.js'
import { insideRoot, sessionShortId, toRelative } from './paths.js'
import { createHash } from 'node:crypto'
import type { StoreLogger } from './store.js'

/** Files read per slice of the start-up scan (see {@link DocumentFiles.scan}). */
const SCAN_SLICE = 1024
/** Files larger than this are reported, not indexed. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024
/** A temporary file older than this was left by a crashed writer. */
const STALE_TMP_MS = 60 * 60 * 1000

/**
 * The id a document takes when another session's document holds its id: the same suffix after a longer prefix of
 * its own session id (12, 16, 24, 32 characters), the first that is free.
 */
export function longerId(id: string, session: string, taken: (id: string) => boolean): string {
  const suffix = id.slice(id.indexOf('-') + 1)
  for (const length of [12, 16, 24, 32]) {
    const candidate = `${sessionShortId(session, length)}-${suffix}`
    if (candidate !== id && !taken(candidate)) return candidate
  }
  return `${sessionShortId(session, 32)}-${suffix}-${createHash('sha256').update(session).digest('hex').slice(0, 8)}`
}

/** Where the files module sends what it reads. */
export interface IndexSink {
  upsertMany(docs: KnowledgeDoc[]): void
  upsert(doc: KnowledgeDoc): void
  remove(id: string): void
  /** The indexed mtime of a document, to skip a re-parse when nothing changed. */
  indexedMtime(id: string): number | undefined
  /** Holds background index maintenance during a bulk load; returns the release. */
  holdMerges(): () => void
  written(doc: KnowledgeDoc): void
  removed(id: string, path: string): void
  /** A document the persisted index already holds as it is on disk (the reconcile kept it). */
  known(id: string, session: string | undefined): void
  /** A document whose file has new times but the same content: only its stamp changes. */
  restamp(doc: KnowledgeDoc): void
}

export class DocumentFiles {
  private readonly byPath = new Map<string, string>()
  /** Document id → its file (the inverse of `byPath`), so duplicate checks need no index query. */
  private readonly idPaths = new Map<string, string>()
  private readonly pending = new Map<string, NodeJS.Timeout>()
  /** File → the session its front matter names (for the cross-machine id rule in {@link admit}). */
  private readonly sessions = new Map<string, string>()
  private watcher?: FSWatcher
  private closed = false
  /** Files that could not be parsed at the last scan or change, with why. */
  readonly invalid = new Map<string, string>()
  /** What the last scan did: files kept from the persisted index, read, only re-stamped, and entries dropped. */
  readonly scanned = { kept: 0, read: 0, restamped: 0, dropped: 0 }

  constructor(
    private readonly root: string,
    private readonly sink: IndexSink,
    private readonly logger: StoreLogger,
  ) {}

  /** The file of an indexed id. */
  pathOf(id: string): string | undefined {
    return this.idPaths.get(id)
  }

  /** Records a document this process wrote (the index already has it). */
  noteWritten(doc: KnowledgeDoc): void {
    this.byPath.set(doc.path, doc.id)
    this.idPaths.set(doc.id, doc.path)
    if (typeof doc.meta.session === 'string') this.sessions.set(doc.path, doc.meta.session)
  }

  close(): void {
    this.closed = true
    this.watcher?.close()
    for (const timer of this.pending.values()) clearTimeout(timer)
  }

  /**
   * Indexes every document under the root. Files are read synchronously in slices of {@link SCAN_SLICE} with a yield
   * between slices: at boot that is several times faster than one async read per file, and the event loop still
   * gets a turn every few milliseconds.
   */
  async scan(manifest?: Iterable<ManifestRow>): Promise<void> {
    if (!existsSync(this.root)) return
    const files: string[] = []
    const now = Date.now()
    const walk = async (dir: string, depth: number) => {
      if (depth > 8) return
      let entries
      try { entries = await readdir(dir, { withFileTypes: true }) } catch { return }
      for (const entry of entries) {
        const full = join(dir, entry.name)
        if (entry.name.startsWith('.')) {
          // A temporary file left by a writer that crashed mid-write: swept once it is clearly abandoned.
          if (entry.isFile() && entry.name.endsWith('.tmp')) {
            try { if (now - statSync(full).mtimeMs > STALE_TMP_MS) rmSync(full, { force: true }) } catch { /* raced */ }
          }
          continue
        }
        if (entry.name === 'node_modules') continue
        if (entry.isDirectory()) await walk(full, depth + 1)
        else if (entry.isFile() && entry.name.endsWith('.md')) files.push(full)
      }
    }
    await walk(this.root, 0)
    // Size, mtime and ctime of file i at 3i…3i+2 (NaN: gone): no Stats object outlives its line.
    const times = new Float64Array(files.length * 3)
    const noThrow = { throwIfNoEntry: false } as const
    for (let i = 0; i < files.length; i++) {
      const info = statSync(files[i], noThrow)
      times[3 * i] = info ? info.size : NaN
      times[3 * i + 1] = info ? info.mtimeMs : 0
      times[3 * i + 2] = info ? info.ctimeMs : 0
    }
    const prior = manifest ? this.reconcile(manifest, files, times) : undefined
    const order = files.map((_, i) => i).filter((i) => !prior || prior.has(files[i]))
    // Oldest first, so the index's insertion order follows time as it does for documents written later.
    order.sort((a, b) => times[3 * a + 1] - times[3 * b + 1] || (files[a] < files[b] ? -1 : 1))
    const todo = order.map((i) => files[i])
    const release = this.sink.holdMerges()
    try {
      for (let k = 0; k < todo.length && !this.closed; k += SCAN_SLICE) {
        const batch: KnowledgeDoc[] = []
        const claimed = new Map<string, KnowledgeDoc>()
        for (const full of todo.slice(k, k + SCAN_SLICE)) {
          const before = prior?.get(full)
          const doc = this.readDocument(full)
          this.scanned.read++
          if (before && doc?.stamp?.hash === before.hash && doc.id === before.id) { this.sink.restamp(doc); this.scanned.restamped++; continue }
          if (before && !doc) { this.drop(before); this.scanned.dropped++ }
          if (doc && this.admit(doc, claimed)) batch.push(doc)
        }
        // A file that won its id over one read earlier in the same slice (equal mtimes tie on path) replaces it.
        const kept = batch.filter((doc) => claimed.get(doc.id) === doc)
        this.sink.upsertMany(kept)
        for (const doc of kept) this.noteWritten(doc)
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      release()
    }
    if (this.invalid.size) this.logger.warn('%d file(s) under %s could not be read; first: %s', this.invalid.size, this.root, [...this.invalid.values()][0])
  }

  /**
   * Compares the persisted index's manifest with the files on disk: entries whose file vanished are dropped, files
   * whose size and times match (and were not modified within the time granularity of being indexed) are kept as
   * they are. Returns the files to read: changed ones with their old entry, new ones with none.
   */
  private reconcile(manifest: Iterable<ManifestRow>, files: string[], times: Float64Array): Map<string, ManifestRow | undefined> {
    const prefix = this.root + sep
    const onDisk = new Map<string, number>()
    for (let i = 0; i < files.length; i++) {
      const full = files[i]
      onDisk.set(sep === '/' && full.startsWith(prefix) ? full.slice(prefix.length) : toRelative(this.root, full), i)
    }
    const out = new Map<string, ManifestRow | undefined>()
    for (const row of manifest) {
      const i = onDisk.get(row.path)
      if (i === undefined || Number.isNaN(times[3 * i]) || this.byPath.has(row.path)) { this.sink.remove(row.id); this.scanned.dropped++; continue }
      onDisk.delete(row.path)
      this.byPath.set(row.path, row.id)
      this.idPaths.set(row.id, row.path)
      if (row.session !== null) this.sessions.set(row.path, row.session)
      if (changedSince(row, times[3 * i], times[3 * i + 1], times[3 * i + 2])) out.set(files[i], row)
      else {
        this.sink.known(row.id, row.session ?? undefined)
        this.scanned.kept++
      }
    }
    for (const i of onDisk.values()) out.set(files[i], undefined)
    return out
  }

  /** Forgets an indexed file that can no longer be read as a document (no change event: this is the start-up scan). */
  private drop(row: ManifestRow): void {
    this.sink.remove(row.id)
    this.byPath.delete(row.path)
    if (this.idPaths.get(row.id) === row.path) this.idPaths.delete(row.id)
  }

  /** Reads and parses one file; undefined (and the reason in {@link invalid}) when it is not a valid document. */
  private readDocument(full: string): KnowledgeDoc | undefined {
    const rel = toRelative(this.root, full)
    let text: string, mtimeMs: number, info: Stats
    try {
      info = statSync(full)
      if (!info.isFile()) return undefined
      if (info.size > MAX_FILE_BYTES) throw new DocumentError(rel, `too large to index (${info.size} bytes; the limit is 4 MiB)`)
      mtimeMs = info.mtimeMs
      text = readFileSync(full, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') { this.forget(rel); return undefined }
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
    try {
      const fallbackId = basename(full, '.md').replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[-.]+/, '') || 'doc'
      const { meta, body } = parseDocument(text, rel, fallbackId, mtimeMs)
      return { id: meta.id, path: rel, meta, body, mtimeMs, stamp: stampOf(info, text) }
    } catch (error) {
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
  }

  /**
   * Whether a parsed file may take its id. The file this product wrote (`<id>-<slug>.md`) wins over any other file
   * claiming the same id; otherwise the first one indexed keeps it. `claimed` holds ids taken earlier in the same
   * scan slice (not in the index yet).
   */
  private admit(doc: KnowledgeDoc, claimed?: Map<string, KnowledgeDoc>): boolean {
    const rel = doc.path
    const holderPath = claimed?.get(doc.id)?.path ?? this.idPaths.get(doc.id)
    if (holderPath && holderPath !== rel && existsSync(insideRoot(this.root, holderPath))) {
      const canonical = (p: string) => basename(p).startsWith(`${doc.id}-`)
      const holderSession = this.sessions.get(holderPath)
      const session = typeof doc.meta.session === 'string' ? doc.meta.session : undefined
      if (canonical(rel) && canonical(holderPath) && session && holderSession && session !== holderSession) {
        // Two machines claimed the same short prefix (a team base merged through git). Deterministic on every
        // clone, whatever the scan order: the session that sorts first keeps the id, the other's documents are
        // known by a longer prefix of their own session id. Files are never rewritten.
        if (session < holderSession) return this.yieldId(holderPath, doc, claimed) && this.admit(doc, claimed)
        doc.id = longerId(doc.id, session, (id) => this.idPaths.has(id) || Boolean(claimed?.has(id)))
        doc.meta = { ...doc.meta, id: doc.id }
        return this.admit(doc, claimed)
      }
      if (!canonical(rel) || canonical(holderPath)) {
        this.invalid.set(rel, `${rel}: duplicate id ${doc.id} (already used by ${holderPath})`)
        return false
      }
      this.invalid.set(holderPath, `${holderPath}: duplicate id ${doc.id} (already used by ${rel})`)
      this.byPath.delete(holderPath)
    }
    const known = this.byPath.get(rel)
    if (known && known !== doc.id) this.sink.remove(known)
    claimed?.set(doc.id, doc)
    if (typeof doc.meta.session === 'string') this.sessions.set(rel, doc.meta.session)
    this.invalid.delete(rel)
    return true
  }

  /**
   * Moves the document at `path` off the id `doc` takes over: it is re-read and indexed under a longer id. Returns
   * true (so the caller can go on admitting `doc`).
   */
  private yieldId(path: string, doc: KnowledgeDoc, claimed?: Map<string, KnowledgeDoc>): true {
    const taken = (id: string) => this.idPaths.has(id) || Boolean(claimed?.has(id)) || id === doc.id
    const inBatch = claimed?.get(doc.id)
    if (inBatch && inBatch.path === path) {
      // Admitted earlier in this scan slice and not indexed yet: renamed in place, indexed with the slice.
      claimed!.delete(doc.id)
      inBatch.id = longerId(inBatch.id, String(inBatch.meta.session), taken)
      inBatch.meta = { ...inBatch.meta, id: inBatch.id }
      claimed!.set(inBatch.id, inBatch)
      return true
    }
    const displaced = this.readDocument(insideRoot(this.root, path))
    if (this.idPaths.get(doc.id) === path) { this.idPaths.delete(doc.id); this.byPath.delete(path); this.sink.remove(doc.id) }
    if (displaced && typeof displaced.meta.session === 'string') {
      displaced.id = longerId(displaced.id, displaced.meta.session, taken)
      displaced.meta = { ...displaced.meta, id: displaced.id }
      this.sink.upsert(displaced)
      this.noteWritten(displaced)
    }
    return true
  }

  /** Re-reads one file after a change on disk (the watcher). */
  private loadFile(full: string): void {
    if (this.closed) return
    const rel = toRelative(this.root, full)
    const known = this.byPath.get(rel)
    let mtimeMs: number | undefined
    try { mtimeMs = statSync(full).mtimeMs } catch { /* gone: readDocument forgets it */ }
    if (known && mtimeMs !== undefined && this.sink.indexedMtime(known) === mtimeMs) return
    const doc = this.readDocument(full)
    if (!doc) {
      const reason = this.invalid.get(rel)
      if (reason) this.logger.warn('%s', reason)
      return
    }
    if (!this.admit(doc)) { this.logger.warn('%s', this.invalid.get(rel)); return }
    this.sink.upsert(doc)
    this.noteWritten(doc)
    this.sink.written(doc)
  }

  /** Drops a file that vanished from the index. */
  forget(rel: string): void {
    if (this.closed) return
    const id = this.byPath.get(rel)
    if (!id) return
    this.byPath.delete(rel)
    if (this.idPaths.get(id) === rel) {
      this.idPaths.delete(id)
      this.sink.remove(id)
      this.sink.removed(id, rel)
    }
  }

  /** Starts the recursive watcher once the root exists; later calls are no-ops. */
  watch(): void {
    if (this.closed || this.watcher || !existsSync(this.root)) return
    try {
      this.watcher = watch(this.root, { recursive: true, persistent: false }, (_event, name) => {
        if (!name) return
        const rel = name.toString().split(sep).join('/')
        if (rel.split('/').some((part) => part.startsWith('.')) || !rel.endsWith('.md')) return
        // Trigger: a file changed on disk. Why debounce: editors write in several steps. Outcome: one re-parse.
        clearTimeout(this.pending.get(rel))
        this.pending.set(rel, setTimeout(() => {
          this.pending.delete(rel)
          this.loadFile(join(this.root, rel))
        }, 30))
      })
      this.watcher.on('error', (error) => this.logger.warn('watching %s failed: %s', this.root, error.message))
    } catch (error) {
      this.logger.warn('cannot watch %s: %s (hand edits are picked up at the next start)', this.root, (error as Error).message)
    }
  }
}
