/**
 * The document files under the root: the start-up scan, the watcher, and the bookkeeping that maps files to ids.
 * Files are the source of truth; this module feeds what it reads to an {@link IndexSink} (the search index plus the
 * store's change listeners), one file at a time after the scan (never a rebuild).
 * @module dsh-knowledge-sync/knowledge/view/files
 */
import { existsSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { KnowledgeDoc } from '../../types.js'
import type { ManifestRow } from '../../search/search-index.js'
import { stampOf } from '../index-cache/index-cache.js'
import { listFiles, lstatSafe } from '../disk/list-files.js'
import { PathTable } from '../index-cache/path-table.js'
import type { IndexSink } from './index-sink.js'
import type { Manifest } from '../index-cache/walk.js'
import { reconcileRoot } from '../index-cache/reconcile-worker.js'
import { DocumentError, parseDocument } from '../documents/document.js'
import { insideRoot, toRelative } from '../documents/paths.js'
import { longerId } from '../ids/id-claims.js'
import { MAX_FILE_BYTES, readRootFile } from '../disk/safe-read.js'
import { contentHash } from '../logs/revisions.js'
import { ROOT_POLL_MS, RootWatch } from '../disk/root-watch.js'
import type { StoreLogger } from '../store-types.js'

export { MAX_FILE_BYTES, ROOT_POLL_MS, readRootFile }
export type { IndexSink }

const SCAN_SLICE = 1024 // files read per slice of the start-up scan (see DocumentFiles.scan)

export class DocumentFiles {
  /** Id ↔ file of the indexed documents (loaded from the index on first use; other processes' changes come in too). */
  readonly table: PathTable
  private readonly rootWatch: RootWatch
  private realRootPath?: string
  private closed = false
  /** Files this process is writing → the watcher saw a change meanwhile ({@link writing}). */
  private readonly inFlight = new Map<string, boolean>()
  /** Files that could not be parsed at the last scan or change, with why. */
  readonly invalid = new Map<string, string>()
  /** What the last scan did: files kept from the persisted index, read, only re-stamped, and entries dropped. */
  readonly scanned = { kept: 0, read: 0, restamped: 0, dropped: 0 }
  /** Start-up reconciles run in a worker thread (see reconcile-worker.ts). */
  reconciledOffThread = 0

  constructor(
    private readonly root: string,
    private readonly sink: IndexSink,
    private readonly logger: StoreLogger,
  ) {
    this.table = new PathTable(
      () => sink.locations(),
      (id) => sink.located(id),
      () => sink.follow(),
      () => sink.pathQueries(),
    )
    this.rootWatch = new RootWatch(root, logger, {
      changed: (rel) => this.loadFile(join(this.root, rel)),
      lost: () => this.lostRoot(),
      appeared: () => this.rootAppeared(),
      degraded: () => this.degraded?.(),
      behind: () => this.behind?.(),
      resync: (why) => this.resync?.(why),
    })
  }

  /** Told when part of the root stops being watched (see {@link watching}). */
  degraded?: () => void
  /** Told when the watch sees changes faster than it indexes them (see root-watch.ts, BURST_CHANGES). */
  behind?: () => void
  /** Told when every file must be checked against the index (after a burst; a folder moved, replaced or marked). */
  resync?: (why: string) => void
  /** Whether every document folder of the root is watched now: no change on disk goes unseen. */
  get watching(): boolean {
    return this.rootWatch.covering
  }

  /** Loads part of the id ↔ file table in the background, until `deadline`; true once loaded. */
  warm(deadline: number): boolean {
    return this.table.warm(deadline)
  }

  /** The file of an indexed id. */
  pathOf(id: string): string | undefined {
    return this.table.pathOf(id)
  }

  /** The id of the document in a file (root-relative path). */
  idAt(path: string): string | undefined {
    return this.table.idAt(path)
  }

  /** Records a document this process wrote (the index already has it). */
  noteWritten(doc: KnowledgeDoc): void {
    this.table.put(doc.path, doc.id)
  }

  /** Forgets a document this process was about to write (its write failed). */
  noteUnwritten(doc: KnowledgeDoc): void {
    this.table.remove(doc.path, doc.id)
  }

  /** A file this process is writing (indexed, not renamed yet): the watcher waits for {@link wrote} (an event of its previous write, read now, would put the old text over the new). */
  writing(rel: string): void {
    this.inFlight.set(rel, false)
  }
  /** The write of `rel` is over (stamped, or undone): a change the watcher saw meanwhile is looked at now. */
  wrote(rel: string): void {
    const seen = this.inFlight.get(rel)
    this.inFlight.delete(rel)
    if (seen) this.loadFile(join(this.root, rel))
  }

  close(): void {
    this.closed = true
    this.rootWatch.close()
  }

  /** The root's real path, resolved once it exists: a linked root (`knowledge -> /data/kb`) is the configuration, followed on purpose; links inside it never are. */
  realRoot(): string {
    this.realRootPath ??= realpathSync.native(this.root)
    return this.realRootPath
  }

  /** Reads an indexed document's file the safe way ({@link readRootFile}); a file that fails leaves the index. */
  readText(rel: string, full: string): { text: string; mtimeMs: number } {
    try {
      return readRootFile(this.realRoot(), rel, full)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.forget(rel)
      else if (error instanceof DocumentError) this.evict(rel, error.message)
      throw error
    }
  }

  /** Refuses a write whose folder under the root is reached through a symbolic link (it would land outside). */
  assertWritable(rel: string): void {
    const dir = dirname(rel)
    if (dir === '.' || !existsSync(this.root)) return
    let real: string
    try {
      real = realpathSync.native(join(this.root, dir))
    } catch {
      return /* created by the write */
    }
    if (real !== join(this.realRoot(), dir)) throw Object.assign(new Error(`cannot write ${rel}: its folder is a symbolic link; links are never followed`), { path: rel })
  }

  /** Takes a file that is no longer a document (broken front matter, too large, a link) out of the index at once, into {@link invalid}. */
  evict(rel: string, reason: string): void {
    this.invalid.set(rel, reason)
    const id = this.table.idAt(rel)
    if (!id || this.closed) return
    this.table.dropPath(rel)
    if (this.table.pathOf(id) === rel) {
      this.table.dropId(id)
      this.sink.remove(id)
      this.sink.removed(id, rel)
    }
  }

  /**
   * Indexes every document under the root, read synchronously in slices of {@link SCAN_SLICE} with a yield between
   * (several times faster at boot than one async read per file). `manifest`: what the persisted index holds (see
   * {@link reconcile}); only files it lacks or that changed are read. `late`: the root appeared after start, so what
   * is found is announced like any new file, and files this process already indexed unchanged are left as they are.
   */
  async scan(manifest?: Manifest, late = false): Promise<void> {
    if (!existsSync(this.root)) return
    // A watcher armed before the scan (a watching owner's start): what it sees meanwhile is looked at after the scan.
    const resume = this.rootWatch.hold()
    try {
      await this.scanFiles(manifest, late)
    } finally {
      resume()
    }
  }

  private async scanFiles(manifest: Manifest | undefined, late: boolean): Promise<void> {
    const { files, times, prior } = manifest ? await this.reconcile(manifest, late) : { ...(await listFiles(this.root, this.invalid)), prior: undefined }
    const order = files.map((_, i) => i).filter((i) => !prior || prior.has(files[i]))
    // Files at indexed paths first (a file moved away frees its id only once its old path is read again), then new
    // ones; each oldest first, so the index's insertion order follows time as it does for documents written later.
    const isNew = (i: number) => (prior?.get(files[i]) ? 0 : 1)
    order.sort((a, b) => isNew(a) - isNew(b) || times[3 * a + 1] - times[3 * b + 1] || (files[a] < files[b] ? -1 : 1))
    const release = this.sink.holdMerges()
    // Real paths of folders, once per folder for this scan (the walk never entered a linked folder).
    const dirs = new Map<string, string>()
    try {
      for (let k = 0; k < order.length && !this.closed; k += SCAN_SLICE) {
        const batch: KnowledgeDoc[] = []
        const claimed = new Map<string, KnowledgeDoc>()
        for (const i of order.slice(k, k + SCAN_SLICE)) {
          const full = files[i]
          const known = late && !prior ? this.table.idAt(toRelative(this.root, full)) : undefined // with a manifest, the reconcile judged (racy rows too)
          if (known && this.sink.indexedWith(known, times[3 * i], times[3 * i + 1], times[3 * i + 2])?.racy === false) continue
          const before = prior?.get(full)
          const doc = this.readDocument(full, dirs)
          this.scanned.read++
          if (before && doc?.stamp?.hash === before.hash && doc.id === before.id) {
            this.sink.restamp(doc)
            this.scanned.restamped++
            continue
          }
          if (before && !doc) {
            this.drop(before, late)
            this.scanned.dropped++
          }
          // What the index holds at this path is known here (the manifest), so admit need not ask the table by path.
          if (doc && this.admit(doc, claimed, late ? undefined : (before?.id ?? null))) batch.push(doc)
        }
        // A file that lost its id to a later one in the same slice (the product's own file wins) is not indexed.
        const admitted = batch.filter((doc) => claimed.get(doc.id)?.path === doc.path)
        this.sink.upsertMany(admitted)
        for (const doc of admitted) this.noteWritten(doc)
        if (late) for (const doc of admitted) this.sink.written(doc)
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      release()
    }
    if (this.invalid.size) this.logger.warn('%d file(s) under %s could not be read; first: %s', this.invalid.size, this.root, [...this.invalid.values()][0])
  }

  /** The files the scan must read, with their entries in the persisted index (see {@link reconcileRoot}). */
  private async reconcile(manifest: Manifest, late: boolean): Promise<{ files: string[]; times: Float64Array; prior: Map<string, ManifestRow | undefined> }> {
    const kept = () => void this.scanned.kept++
    // A write of this process, indexed before its file lands (writes/commit.ts): in flight, not a vanished file.
    const dropped = (row: ManifestRow) => (this.inFlight.has(row.path) ? kept() : (this.drop(row, late), void this.scanned.dropped++))
    const reconciled = await reconcileRoot(this.root, manifest, this.invalid, { kept, dropped }, this.logger, !late)
    if (reconciled.offThread) this.reconciledOffThread++
    return reconciled
  }

  /** Forgets an indexed file that can no longer be read as a document; `late` (a store in use): announced, as the watcher would. */
  private drop(row: ManifestRow, late: boolean): void {
    this.sink.remove(row.id)
    this.table.remove(row.path, row.id)
    if (late) this.sink.removed(row.id, row.path)
  }

  /** Reads and parses one file; undefined (and the reason in {@link invalid}) when it is not a valid document. */
  private readDocument(full: string, dirCache?: Map<string, string>): KnowledgeDoc | undefined {
    const rel = toRelative(this.root, full)
    let text: string, mtimeMs: number, size: number, ctimeMs: number
    try {
      ;({ text, mtimeMs, size, ctimeMs } = readRootFile(this.realRoot(), rel, full, dirCache))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.forget(rel)
        return undefined
      }
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
    try {
      const fallbackId =
        basename(full, '.md')
          .replace(/[^A-Za-z0-9_.-]/g, '-')
          .replace(/^[-.]+/, '') || 'doc'
      const { meta, body } = parseDocument(text, rel, fallbackId, mtimeMs, this.sink.firstSeen)
      return { id: meta.id, path: rel, meta, body, mtimeMs, hash: contentHash(text), stamp: stampOf({ size, ctimeMs }, text) }
    } catch (error) {
      this.invalid.set(rel, (error as Error).message)
      return undefined
    }
  }

  /**
   * Whether a parsed file may take its id. The file this product wrote (`<id>-<slug>.md`) wins over any other file
   * claiming the same id; otherwise the first one indexed keeps it. `claimed` holds ids taken earlier in the same
   * scan slice (not in the index yet). `knownAt`: the id the index holds at this file, when the caller knows it
   * (`null`: none); otherwise the table is asked.
   */
  private admit(doc: KnowledgeDoc, claimed?: Map<string, KnowledgeDoc>, knownAt?: string | null): boolean {
    const rel = doc.path
    const inBatch = claimed?.get(doc.id)
    const holderPath = inBatch?.path ?? this.table.pathOf(doc.id)
    if (holderPath && holderPath !== rel && existsSync(insideRoot(this.root, holderPath))) {
      const canonical = (p: string) => basename(p).startsWith(`${doc.id}-`)
      const holderSession = inBatch ? (typeof inBatch.meta.session === 'string' ? inBatch.meta.session : undefined) : this.table.sessionOf(doc.id)
      const session = typeof doc.meta.session === 'string' ? doc.meta.session : undefined
      if (canonical(rel) && canonical(holderPath) && session && holderSession && session !== holderSession) {
        // Two machines claimed one short prefix (a team base merged through git). The same on every clone and process,
        // whatever the scan order: the session that sorts first keeps the id, the other's documents take a longer
        // prefix of their own session id (files are never rewritten); an id the index holds for this file is its own.
        if (session < holderSession) return this.yieldId(holderPath, doc, claimed) && this.admit(doc, claimed, knownAt)
        doc.id = longerId(doc.id, session, (id) => (claimed?.get(id)?.path ?? this.table.pathOf(id) ?? rel) !== rel)
        doc.meta = { ...doc.meta, id: doc.id }
        return this.admit(doc, claimed, knownAt)
      }
      if (!canonical(rel) || canonical(holderPath)) {
        this.invalid.set(rel, `${rel}: duplicate id ${doc.id} (already used by ${holderPath})`)
        return false
      }
      this.invalid.set(holderPath, `${holderPath}: duplicate id ${doc.id} (already used by ${rel})`)
      this.table.dropPath(holderPath)
    }
    const known = knownAt === undefined ? this.table.idAt(rel) : (knownAt ?? undefined)
    if (known && known !== doc.id) this.sink.remove(known)
    claimed?.set(doc.id, doc)
    this.invalid.delete(rel)
    return true
  }

  /** Moves the document at `path` off the id `doc` takes over: re-read, indexed under a longer id. True (go on admitting `doc`). */
  private yieldId(path: string, doc: KnowledgeDoc, claimed?: Map<string, KnowledgeDoc>): true {
    const taken = (id: string) => id === doc.id || (claimed?.get(id)?.path ?? this.table.pathOf(id) ?? path) !== path
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
    if (this.table.pathOf(doc.id) === path) {
      this.table.dropId(doc.id)
      this.table.dropPath(path)
      this.sink.remove(doc.id)
    }
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
    if (this.inFlight.has(rel)) return void this.inFlight.set(rel, true)
    const known = this.table.idAt(rel)
    // lstat: a file replaced by a link has the link's own times, and is never mistaken for the indexed file.
    const info = lstatSafe(full)
    const held = known && info?.isFile() ? this.sink.indexedWith(known, info.size, info.mtimeMs, info.ctimeMs) : undefined
    if (held?.racy === false) return
    const doc = this.readDocument(full)
    // Times as indexed, but too close to its indexing to tell (this process's own writes end here): the content decides.
    if (held && doc?.id === known && doc?.stamp?.hash === held.hash) return
    if (!doc) {
      const reason = this.invalid.get(rel)
      if (reason) {
        this.logger.warn('%s', reason)
        this.evict(rel, reason)
      }
      return
    }
    if (!this.admit(doc)) {
      this.logger.warn('%s', this.invalid.get(rel))
      return
    }
    this.sink.upsert(doc)
    this.noteWritten(doc)
    this.sink.written(doc)
  }

  /** Drops a file that vanished from the index. */
  forget(rel: string): void {
    if (this.closed) return
    const id = this.table.idAt(rel)
    if (!id) return
    this.table.dropPath(rel)
    if (this.table.pathOf(id) === rel) {
      this.table.dropId(id)
      this.sink.remove(id)
      this.sink.removed(id, rel)
    }
  }

  /**
   * Starts watching the root ({@link RootWatch}): changed files are re-read, a root removed takes its documents out
   * of the index, and a root that appears after start is scanned. Later calls are no-ops.
   */
  watch(): void {
    if (!this.closed) this.rootWatch.start()
  }

  /** The watched root is gone: its documents are gone with it, none stays searchable. */
  private lostRoot(): void {
    this.realRootPath = undefined
    for (const rel of this.table.paths()) this.forget(rel)
  }

  /** The root exists now and is watched (nothing written meanwhile is missed): index what is already there. */
  private rootAppeared(): void {
    if (this.closed) return
    this.realRootPath = undefined
    this.logger.info('knowledge root %s appeared; indexing it', this.root)
    this.scan(undefined, true).catch((error: unknown) => this.logger.warn('indexing %s failed: %s', this.root, (error as Error).message))
  }
}
