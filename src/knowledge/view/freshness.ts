/**
 * How a store that watches its root knows, after its start, that its index matches the files: the stamp it keeps
 * while it owns the cache (../index-cache/watch-stamp.ts), the confirmation it waits for when another owner vouched
 * for its start, and the check of every file it runs behind a start that did not wait for it.
 *
 * Why a check behind: a watching process that reuses a large index with no owner to vouch for it would otherwise
 * wait for a stat of every file (10–30 s at a million documents) before its first search. Its watcher is armed
 * before the check lists the root, so what changes from then on is seen either way; the check behind finds what
 * changed while no process ran, and indexes and announces it as it would a new file. It keeps no stamp until the
 * check is done: a reader must not trust an index that is still being checked.
 * @module dsh-knowledge-sync/knowledge/view/freshness
 */
import type { DocumentFiles } from './files.js'
import type { Manifest } from '../index-cache/walk.js'
import type { OffThread } from '../index-cache/reconcile-worker.js'
import { confirmVouch, WatchStamp } from '../index-cache/watch-stamp.js'
import type { StoreLogger } from '../store-types.js'

/** What the freshness of one store's index needs from it. */
export interface FreshnessHost {
  readonly root: string
  readonly cacheFile: string
  readonly logger: StoreLogger
  /** The store's document files (replaced when a read-only start falls back to memory). */
  files(): DocumentFiles
  /** The persisted index's manifest, reconciled in `worker` when given. */
  manifest(worker?: OffThread): Manifest
}

/** What a store tells of its freshness (KnowledgeStore.freshness). */
export type FreshnessView = Pick<Freshness, 'checked' | 'walkedMs' | 'vouching' | 'behind' | 'lost'>

/** The stamp, vouch confirmation and check behind of one store. */
export class Freshness {
  /** This process's freshness stamp while it owns the cache and watches the whole root (see watch-stamp.ts). */
  private stamp?: WatchStamp
  /** Cancels the wait for the owner that vouched for this start to confirm it. */
  private confirming?: () => void
  /** The worker of a check behind the start, ended if the store closes first. */
  private behindWorker?: OffThread
  /** A check of every file asked for by the watch, under way; `again`: asked for once more meanwhile. */
  private resyncing?: Promise<void>
  private again = false
  private ended = false
  /** How long this start's check of every file against the reused index took, when it waited for one (ms). */
  walkedMs?: number
  /** Resolves once a check behind the start is over (ended, failed, or cut short by close); at once when there is none. */
  checked: Promise<void> = Promise.resolve()

  constructor(private readonly host: FreshnessHost) {}

  /** Whether this store vouches for its index to other processes now (its stamp is kept). */
  get vouching(): boolean {
    return this.stamp?.kept ?? false
  }

  /** Whether it vouches, but not now: its index is behind (a burst of changes, a check of every file under way). */
  get behind(): boolean {
    return this.stamp !== undefined && !this.stamp.kept && !this.stamp.withdrawn
  }

  /** Whether it vouched and no longer can (its watcher lost part of the root, its index file was replaced). */
  get lost(): boolean {
    return this.stamp?.withdrawn ?? false
  }

  /** The persisted index file this store opens. */
  get cacheFile(): string {
    return this.host.cacheFile
  }

  /** A watching owner of the cache vouches for it while its watcher covers the root. */
  keepStamp(owns: boolean): void {
    const files = this.host.files()
    files.watch()
    files.behind = () => this.stamp?.pause()
    files.resync = (why) => this.resync(`checking the files of ${this.host.root} against its index: ${why}`)
    if (!owns || !files.watching || this.stamp) return
    const stamp = new WatchStamp(this.host.root, this.host.cacheFile, () => files.watching, this.host.logger)
    files.degraded = () => stamp.withdraw()
    if (stamp.start()) this.stamp = stamp
  }

  /** Waits for `watcher`, which vouched for this start, to confirm what it had seen by `armed` (else rechecks). */
  confirm(watcher: number, armed: number): void {
    this.confirming = confirmVouch(this.host.root, this.host.cacheFile, watcher, armed, (why) => {
      this.confirming = undefined
      this.resync(`the process that vouched for the index of ${this.host.root} went away (${why}): checking every file`)
    })
  }

  /**
   * Checks every file against the reused index behind a start that is already ready; keeps the stamp once done.
   * `done` gets what to say about the check (see StoreIndex's start line). `closed`: the store closed meanwhile.
   */
  checkBehind(worker: OffThread | undefined, size: number, closed: () => boolean, done: (freshness: string) => void): void {
    const { root, logger } = this.host
    this.behindWorker = worker
    logger.info('reused the search index of %s (%d documents): ready now; its files are checked against it in the background', root, size)
    this.checked = (async () => {
      const files = this.host.files()
      try {
        await files.scan(this.host.manifest(worker), true)
      } catch (error) {
        if (!closed()) logger.warn('checking the files of %s against its index failed: %s', root, (error as Error).message)
        return
      } finally {
        this.behindWorker = undefined
      }
      if (closed()) return
      this.keepStamp(true)
      const { read, dropped } = files.scanned
      if (read + dropped) logger.info('the background check of %s read %d changed file(s) and dropped %d entries', root, read, dropped)
      done('checked behind')
    })()
  }

  /**
   * Checks every file against the index, the stamp paused meanwhile (readers check the files themselves): the watch
   * asks for it after a burst of changes, or a folder moved away, replaced or marked (see root-watch.ts), and so does
   * an owner that vouched for this start and went away before confirming. A request made while one runs is served by
   * one more pass. `said`: its info line.
   */
  private resync(said: string): void {
    this.stamp?.pause()
    if (this.resyncing) {
      this.again = true
      return
    }
    const { root, logger } = this.host
    this.resyncing = (async () => {
      do {
        this.again = false
        logger.info('%s', said)
        try {
          await this.host.files().scan(this.host.manifest(), true)
        } catch (error) {
          if (!this.ended) logger.warn('checking the files of %s failed: %s', root, (error as Error).message)
        }
      } while (this.again && !this.ended)
      this.resyncing = undefined
      if (!this.ended) this.stamp?.resume()
    })()
  }

  /** Withdraws the stamp and ends what is under way. */
  close(): void {
    this.ended = true
    this.stamp?.withdraw()
    this.confirming?.()
    this.behindWorker?.cancel()
  }
}
