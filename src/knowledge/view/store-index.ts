/**
 * The store's indexed view of its root: the search index (in memory, or the persisted cache opened at start), the
 * document files that feed it (scan and watcher) and the relation graph, kept in step. The store composes it; rows
 * never see it.
 *
 * Why the graph's records go into the index: with a persisted index most files are not read at start (their entries
 * are kept as they are), so the links and status of those documents come back from the index, not from their files.
 * @module dsh-knowledge-sync/knowledge/view/store-index
 */
import type { KnowledgeDoc } from '../../types.js'
import { fillStampHashes, indexedAs, indexedStamp, indexManifest, locations, manifestDigest, pathQueries, stampMatch } from '../../search/manifest.js'
import { SearchIndex, type SearchIndexOptions } from '../../search/search-index.js'
import { WARM_SEARCHES } from '../../search/warm.js'
import { DocumentFiles } from './files.js'
import { Freshness } from './freshness.js'
import { followChanges } from './follow.js'
import { WarmUp } from './warm-up.js'
import type { Location, PathQueries } from '../index-cache/path-table.js'
import { type Manifest, RACY_MS } from '../index-cache/walk.js'
import type { IdClaims } from '../ids/id-claims.js'
import { CACHE_DIR, CACHE_FILE, openIndexCache } from '../index-cache/index-cache.js'
import { type OffThread, offThreadParts, reconcileOffThread } from '../index-cache/reconcile-worker.js'
import { checksBehind, FRESHNESS_ENV, liveWatcher, stampedBeside } from '../index-cache/watch-stamp.js'
import { join } from 'node:path'
import { DocumentError, parseDocument } from '../documents/document.js'
import { insideRoot } from '../documents/paths.js'
import { RelationGraph } from '../relations/relations.js'
import { contentHash, type Revisions } from '../logs/revisions.js'
import type { StoreChange, StoreLogger } from '../store-types.js'

const WARM_LOG_BYTES = 256 * 1024 // how much of the revision log one warm-up slice folds
/** How often a build from the files (a fresh clone of a large base: minutes at a million documents) says how far it got. */
export const PROGRESS_EVERY_MS = 5000

/** What the indexed view needs from its store. */
export interface StoreIndexHost {
  readonly root: string
  readonly logger: StoreLogger
  readonly indexOptions?: SearchIndexOptions
  readonly ids: IdClaims
  readonly revisions: Revisions
  emit(change: StoreChange): void
}

/** The index, files and relation graph of one store. */
export class StoreIndex {
  /** In memory until {@link start} opens the persisted one; created on first use (SQLite loads only then). */
  private index_?: SearchIndex
  /** The path queries of the index they were made for (the files' sink, pathQueries). */
  private asked?: [SearchIndex, PathQueries]
  private releaseCache = (): void => {}
  private readonly warming: WarmUp
  /** This process opened the persisted index for writing (not another process's file, nor memory). */
  private ownsCache = false
  private oneShot = false // started for one answer (a CLI command: `trustWatcher`); its heap ends with it (see manifest)
  readonly freshness: Freshness // stamp, vouch confirmation and check behind (see ./freshness.ts)
  /** A build from every file in progress: documents indexed so far, and when that was last said. */
  private building?: { docs: number; said: number }
  files: DocumentFiles
  /** Links and supersede relations of the indexed documents; backlinks are computed from it. */
  graph: RelationGraph

  constructor(private readonly host: StoreIndexHost) {
    this.graph = this.newGraph()
    this.files = this.openFiles()
    this.warming = new WarmUp(host.logger)
    this.freshness = new Freshness({
      root: host.root,
      cacheFile: join(host.root, CACHE_DIR, CACHE_FILE),
      logger: host.logger,
      files: () => this.files,
      manifest: (worker) => this.manifest(worker),
    })
  }

  /**
   * Resolves once the start's check of the files against the index is over: at once, unless a watching process
   * checks them behind (see {@link start}); then when that check ends, fails, or the store closes.
   */
  get checked(): Promise<void> {
    return this.freshness.checked
  }

  /** Resolves once the background warm-up is over: run to its end, stopped by a failure, or cut short by close. */
  get warmed(): Promise<void> {
    return this.warming.done
  }

  /**
   * Id, file and session of every indexed document, for the tables loaded from them; undefined while no index is open
   * (never creates one: SQLite stays unloaded for a dry run).
   */
  locations(): Iterable<Location> | undefined {
    return this.index_ ? locations(this.index_) : undefined
  }

  /** The search index (an in-memory one until {@link start} opens the cache). */
  get index(): SearchIndex {
    this.index_ ??= new SearchIndex(this.host.indexOptions)
    return this.index_
  }

  /** Records a document's relations in the graph, and on the document for the index to keep. */
  relate(doc: KnowledgeDoc): void {
    doc.relations = this.graph.set(doc)
  }

  /**
   * Makes a document that is about to be written searchable at once (see ./commit.ts). Returns the undo for a write
   * that failed: the index follows the file on disk again (the previous text, or nothing).
   */
  admitWritten(doc: KnowledgeDoc): () => void {
    const before = this.index.get(doc.id)
    this.relate(doc)
    this.index.upsert(doc)
    this.host.ids.noteIndexed(doc.id, doc.meta.session)
    this.files.noteWritten(doc)
    this.files.writing(doc.path)
    return () => {
      try {
        this.files.noteUnwritten(doc)
        let old: KnowledgeDoc | undefined
        try {
          old = before && this.read(doc.id, before.path)
        } catch {
          /* the old file fails too: it left the index (read evicts it) */
        }
        if (old) {
          this.relate(old)
          this.index.upsert(old)
          this.files.noteWritten(old)
        } else {
          this.index.remove(doc.id)
          this.graph.remove(doc.id)
        }
      } finally {
        // Whatever happened above, the watcher follows this file again.
        this.files.wrote(doc.path)
      }
    }
  }

  private newGraph(): RelationGraph {
    return new RelationGraph({ idAt: (path) => this.files.idAt(path), pathOf: (id) => this.files.pathOf(id) })
  }

  private openFiles(): DocumentFiles {
    const { ids, revisions } = this.host
    return new DocumentFiles(
      this.host.root,
      {
        upsertMany: (docs) => {
          this.progress(docs.length)
          for (const doc of docs) this.relate(doc)
          // Revisions first: the index keeps each with its row. Inside the write transaction, so another process
          // reconciling the same files at once is seen: what it indexed already, as it is, is not indexed twice.
          revisions.index(docs)
          this.index.batch(() => this.index.upsertMany(docs.filter((doc) => !indexedAs(this.index, doc))))
          for (const doc of docs) ids.noteIndexed(doc.id, doc.meta.session)
        },
        upsert: (doc) => {
          this.relate(doc)
          revisions.index([doc])
          this.index.batch(() => indexedAs(this.index, doc) || this.index.upsert(doc))
          ids.noteIndexed(doc.id, doc.meta.session)
        },
        remove: (id) => {
          this.index.remove(id)
          this.graph.remove(id)
        },
        indexedWith: (id, size, mtimeMs, ctimeMs) => stampMatch(indexedStamp(this.index, id), size, mtimeMs, ctimeMs),
        locations: () => this.locations(),
        located: (id) => this.index_?.get(id),
        // Which file holds which id, asked of the index when it has the `doc_path` index (one object per index).
        pathQueries: () => {
          const index = this.index_
          if (index?.byPath && this.asked?.[0] !== index) this.asked = [index, pathQueries(index)]
          return index?.byPath ? this.asked?.[1] : undefined
        },
        follow: () => this.index_?.follow(),
        holdMerges: () => this.index.holdMerges(),
        restamp: (doc) => {
          revisions.index([doc])
          if (doc.stamp) this.index.restamp(doc.id, doc.mtimeMs, doc.stamp, doc.version)
          ids.noteIndexed(doc.id, doc.meta.session)
        },
        firstSeen: (id) => revisions.firstSeen(id),
        written: (doc) => this.host.emit({ type: 'written', id: doc.id, path: doc.path, kind: doc.meta.kind, cwd: doc.meta.cwd }),
        removed: (id, path) => this.host.emit({ type: 'removed', id, path }),
      },
      this.host.logger,
    )
  }

  /** The persisted index's manifest, for the start-up reconcile; `offThread`: a worker's reconcile of it (a large index). */
  private manifest(offThread = this.reconcileInWorker()): Manifest {
    const digest = () => manifestDigest(this.index, RACY_MS)
    return Object.assign(indexManifest(this.index, RACY_MS), offThreadParts(offThread, this.freshness.cacheFile, digest, this.oneShot))
  }

  /** The start-up reconcile in a worker thread, for an index file large enough (see reconcile-worker.ts); never for an index in memory. */
  private reconcileInWorker(): OffThread | undefined {
    return this.index_ && !this.index_.persistent ? undefined : reconcileOffThread(this.host.root, this.freshness.cacheFile, undefined, this.host.logger)
  }

  /** The relations the persisted index holds, into the graph (before the scan, which replaces what it reads again). */
  private restoreGraph(): void {
    for (const { id, relations } of this.index.relations()) this.graph.restore(id, relations)
  }

  /**
   * Indexes every document under the root: with the persisted index (`cache`), only files that changed since it was
   * saved are read. `readOnly`: while another process owns the cache, its file is read as it is, as long as no
   * document changed since it was written. `closed` is asked before writing the cache's state. `watch`: the root is
   * watched from before the scan lists it, and once this process owns the cache it keeps a freshness stamp.
   * While a live watching owner's stamp holds, the files are not stat'ed: for a one-shot reader (`trustWatcher`), and
   * for a watching process whose own watcher covers the root (armed before the stamp is read); the latter checks
   * every file after all if that owner goes away before confirming (watch-stamp.ts, `confirmVouch`). A watching
   * process with a large reused index and no owner to vouch checks its files behind ({@link checked}, `checksBehind`).
   */
  async start(options: { cache: boolean; readOnly: boolean; closed: () => boolean; watch?: boolean; trustWatcher?: boolean }): Promise<void> {
    const { cache, readOnly, closed } = options
    this.oneShot = options.trustWatcher === true
    const started = Date.now()
    let mode: string = 'memory'
    let how = 'walked' // how the index was checked against the files (the start's debug line)
    if (options.watch) this.files.watch()
    const armed = Date.now()
    const vouchable = process.env[FRESHNESS_ENV] !== 'walk' && (options.trustWatcher || (options.watch === true && this.files.watching))
    // A large index's reconcile starts in its worker now, so that the worker's own start overlaps the open below;
    // not when an owner's stamp is there (most likely no reconcile follows).
    let early = cache && !closed() && !(vouchable && stampedBeside(this.freshness.cacheFile)) ? this.reconcileInWorker() : undefined
    const offThread = () => {
      const started = early
      early = undefined
      return started ?? this.reconcileInWorker()
    }
    if (cache && !closed()) {
      const opened = openIndexCache(this.host.root, this.host.indexOptions, this.host.logger, { readOnly })
      mode = opened.mode
      if (opened.mode !== 'memory') {
        this.index_?.close()
        this.index_ = opened.index
        this.releaseCache = opened.release
        this.index_.onForeign = (changes) => this.follow(changes)
      }
    }
    if (mode === 'rebuild') this.building = { docs: 0, said: Date.now() }
    if (mode !== 'reused' && mode !== 'shared') early?.cancel() // no reconcile against this file follows
    if (mode === 'shared') {
      // Another process's file, read-only: good as long as the reconcile has nothing to write. A change (the
      // owner is not watching, or a file changed this instant) means indexing in memory after all.
      try {
        this.restoreGraph()
        await this.files.scan(this.manifest(offThread()))
        const { read, dropped } = this.files.scanned
        if (read + dropped > 0) throw new Error('changed')
      } catch {
        this.index_?.close()
        this.index_ = undefined
        this.files.close()
        this.graph = this.newGraph()
        this.files = this.openFiles()
        mode = 'memory'
        await this.files.scan()
      }
    } else {
      if (mode === 'reused') this.restoreGraph()
      const fresh = mode === 'reused' && vouchable ? liveWatcher(this.host.root, this.freshness.cacheFile) : undefined
      if (fresh?.watcher) {
        how = `vouched for by watcher ${fresh.watcher}: no walk`
        if (options.watch) this.freshness.confirm(fresh.watcher, armed)
      } else if (mode === 'reused' && options.watch && this.files.watching && checksBehind(this.index.size)) {
        // Ready now: the watcher covers what changes from here on, the check behind what changed while no process ran.
        this.ownsCache = true
        this.freshness.checkBehind(offThread(), this.index.size, closed, (how) => this.said(mode, how, started))
        return
      } else {
        if (fresh) how = `walked (${fresh.why})`
        const walk = Date.now()
        await this.files.scan(mode === 'reused' ? this.manifest(offThread()) : undefined)
        if (mode === 'reused') this.freshness.walkedMs = Date.now() - walk
      }
    }
    early?.cancel() // started but not used: ended
    this.building = undefined
    if (mode === 'rebuild' && !closed()) {
      this.index.setState('complete')
      this.releaseCache() // built: other processes open it from now on
    }
    this.ownsCache = mode === 'reused' || mode === 'rebuild'
    if (options.watch && !closed()) this.freshness.keepStamp(this.ownsCache)
    this.said(mode, how, started)
  }

  /** The start's debug line: what the index holds and how it was brought up to date. */
  private said(mode: string, freshness: string, started: number): void {
    const { kept, read, restamped, dropped } = this.files.scanned
    const off = this.files.reconciledOffThread ? ' in a worker thread' : ''
    const how = `index ${mode}: kept ${kept}, read ${read}, restamped ${restamped}, dropped ${dropped}; freshness ${freshness}${off}`
    this.host.logger.debug('indexed %d document(s) under %s in %d ms (%s)', this.index.size, this.host.root, Date.now() - started, how)
  }

  /** One line every {@link PROGRESS_EVERY_MS} while the index is built from every file. */
  private progress(docs: number): void {
    if (!this.building) return
    this.building.docs += docs
    if (Date.now() - this.building.said < PROGRESS_EVERY_MS) return
    this.building.said = Date.now()
    this.host.logger.info('building the search index cache of %s: %d documents so far', this.host.root, this.building.docs)
  }

  /** Other processes' commits to the shared index, into this process's tables (see ./follow.ts). */
  private follow(changes: Parameters<typeof followChanges>[1]): void {
    followChanges(
      {
        index: this.index,
        table: this.files.table,
        graph: this.graph,
        ids: this.host.ids,
        emit: (change) => this.host.emit(change),
        reload: () => {
          this.files.table.reset()
          this.graph = this.newGraph()
          this.restoreGraph()
        },
      },
      changes,
    )
  }

  /**
   * An indexed document read from its file with the index's bounds (see {@link KnowledgeStore.read}); undefined when
   * the file is gone. A file that fails leaves the index at once.
   */
  read(id: string, path: string): KnowledgeDoc | undefined {
    try {
      const { text, mtimeMs } = this.files.readText(path, insideRoot(this.host.root, path))
      const parsed = parseDocument(text, path, id, mtimeMs, (x) => this.host.revisions.firstSeen(x))
      // The revision of exactly the text returned: a change the watcher has not seen yet is counted now.
      const hash = contentHash(text)
      const version = this.host.revisions.observe(parsed.meta.id, hash)
      return { id: parsed.meta.id, path, meta: parsed.meta, body: parsed.body, mtimeMs, hash, version }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      if (error instanceof DocumentError) this.files.evict(path, error.message)
      throw error
    }
  }

  /**
   * Fills, in the background, what a reused index left to be loaded on first use (see ./loading.ts): the id ↔ file
   * table, the id-prefix owners and the revision log, a few milliseconds per event-loop turn, so that the first
   * write after a fast start does not pay for them (~0.4 s at 100k documents); then query expansion's sources, so the
   * first search does not; then `last` (the store loads its redactor's backstop: ~60 ms on the first write otherwise);
   * then a few searches of every shape (search/warm.ts). For a long-lived store, whose WAL checkpoints it also moves
   * to a worker thread (search/checkpointer.ts).
   */
  warmUp(last: () => void = () => {}): void {
    const { ids, revisions } = this.host
    // A long-lived owner commits writes for hours: its WAL checkpoints (fsyncs) go to a worker thread. It also merges
    // what a process before it left unmerged (a no-op on a merged file).
    if (this.ownsCache) {
      this.index.checkpointInBackground()
      this.index.mergeLeftovers()
    }
    let warmed = 0
    let stampsFrom: number | undefined = 0
    this.warming.run([
      (deadline) => this.files.warm(deadline),
      (deadline) => ids.warm(deadline),
      () => revisions.refresh(WARM_LOG_BYTES),
      // Then the revision of rows an older build wrote without one, so that searches need the log no more.
      () => !this.ownsCache || this.index.fillRevisions((id) => revisions.get(id) || undefined),
      // And their stored stamp hash, so that a reconcile's digest is a plain sum (search/stamp-digest.ts, STAMP_COLUMN).
      () => !this.ownsCache || (stampsFrom = fillStampHashes(this.index, stampsFrom ?? 0)) === undefined,
      // Query expansion's dictionaries: one step of ~35 ms, but here rather than inside the first search.
      () => (this.index.warmExpansion(), true),
      () => (last(), true),
      // The search path itself, a query per call (see search/warm.ts).
      () => {
        const next = WARM_SEARCHES[warmed++]
        if (next) this.index.search(next.text, next.filter)
        return warmed >= WARM_SEARCHES.length
      },
    ])
  }

  /** Stops watching, frees the index and releases the cache; resolves once the index's checkpoint worker has exited. */
  close(): Promise<void> {
    this.freshness.close()
    this.warming.stop()
    this.files.close()
    const stopped = this.index_?.close() ?? Promise.resolve()
    this.releaseCache()
    return stopped
  }
}
