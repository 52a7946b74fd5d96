/**
 * Watching the root for {@link DocumentFiles}: the recursive watcher with its per-file debounce, the poll for a root
 * that does not exist yet, and noticing a watched root that was removed. What a change means (re-read, forget,
 * scan) stays with the files module; this one only says when.
 * @module dsh-knowledge-sync/knowledge/disk/root-watch
 */
import { existsSync } from 'node:fs'
import { TreeWatcher } from './tree-watch.js'
import { insideOriginals } from './originals-marker.js'
import type { StoreLogger } from '../store-types.js'
import { isGeneratedFile } from '../documents/paths.js'

/** How often a missing root is looked for (one `stat`), so documents written after start appear without a restart. */
export const ROOT_POLL_MS = 1000

/**
 * From this many document changes within {@link BURST_WINDOW_MS}, the watch stops re-reading file by file: it says it
 * is behind, waits for {@link QUIET_MS} without a change, then asks for one check of every file. Why: a burst (a copy
 * of a folder of 40k rounds, a checkout, a pull) read file by file held the event loop for seconds, the index lagging
 * all along; and inotify's queue (16,384 events by default) overflows silently, losing changes that only a check of
 * every file finds again. An overflow delivers a full queue at once, which is a burst.
 */
export const BURST_CHANGES = 1000
const BURST_WINDOW_MS = 1000
const QUIET_MS = 300

/** What the watch reports. */
export interface RootWatchHooks {
  /** A document file (root-relative path) changed on disk; debounced. */
  changed(rel: string): void
  /** The watched root was removed (the watch then looks for it again). */
  lost(): void
  /** The root appeared after start and is watched now. */
  appeared(): void
  /** Part of the root is no longer watched (a folder's watch failed, or the root went): changes may go unseen. */
  degraded?(): void
  /** Changes are seen faster than they are indexed one by one (a burst): the index is behind until {@link resync}. */
  behind?(): void
  /** Every file must be checked against the index: after a burst, or a folder moved away, replaced or marked. */
  resync?(why: string): void
}

export class RootWatch {
  private watcher?: TreeWatcher
  private rootPoll?: NodeJS.Timeout
  private readonly pending = new Map<string, NodeJS.Timeout>()
  private closed = false
  /** Changes seen while {@link hold} is in force, reported when it is released. */
  private held?: Set<string>
  /** Changes in the current window (see {@link BURST_CHANGES}), and when it began. */
  private window = { count: 0, from: 0 }
  /** A burst is under way: when its last change was seen, and the timer that waits for quiet. */
  private burst?: { last: number; timer?: NodeJS.Timeout }

  constructor(
    private readonly root: string,
    private readonly logger: StoreLogger,
    private readonly hooks: RootWatchHooks,
  ) {}

  /** Whether every document folder of the root is watched now (see {@link TreeWatcher.complete}). */
  get covering(): boolean {
    return !this.closed && this.watcher?.complete === true
  }

  /**
   * Holds change reports (a scan is listing and reading the files): what changes meanwhile is reported once the
   * returned release is called, so a watcher armed before a scan misses nothing the scan may have listed too early.
   */
  hold(): () => void {
    if (this.held) return () => {}
    const held = new Set<string>()
    this.held = held
    return () => {
      this.held = undefined
      if (this.closed) return
      // As many changes as a burst: one check of every file rather than as many reads.
      if (held.size >= BURST_CHANGES) return this.hooks.resync?.(`${held.size} changes while the files were being checked`)
      for (const rel of held) if (!this.closed) this.hooks.changed(rel)
    }
  }

  /**
   * Starts the recursive watcher. When the root does not exist yet it is looked for every {@link ROOT_POLL_MS}; once
   * it appears (made by the CLI, another process or a person) it is watched and reported, so its documents appear
   * without a restart. A root removed while watched goes back to being looked for. Later calls are no-ops.
   */
  start(): void {
    if (this.closed || this.watcher) return
    if (!existsSync(this.root)) {
      this.rootPoll ??= setInterval(() => {
        if (existsSync(this.root)) this.start()
      }, ROOT_POLL_MS).unref()
      return
    }
    // Waiting for the root, and it is here now (seen by the poll, or made by this process's own first write): what
    // others wrote into it meanwhile is indexed once the watcher runs.
    const appeared = this.rootPoll !== undefined
    clearInterval(this.rootPoll)
    this.rootPoll = undefined
    if (appeared) queueMicrotask(() => this.hooks.appeared())
    try {
      const watcher = new TreeWatcher(
        this.root,
        (rel) => {
          // The root itself was removed (no error is raised on Linux): look for it again.
          if (!existsSync(this.root)) return this.lostRoot()
          if (rel.split('/').some((part) => part.startsWith('.')) || !rel.endsWith('.md') || isGeneratedFile(rel) || insideOriginals(this.root, rel)) return
          if (this.bursting()) return
          // Trigger: a file changed on disk. Why debounce: editors write in several steps. Outcome: one re-parse.
          clearTimeout(this.pending.get(rel))
          this.pending.set(
            rel,
            setTimeout(() => {
              this.pending.delete(rel)
              if (this.held) this.held.add(rel)
              else this.hooks.changed(rel)
            }, 30),
          )
        },
        (error) => {
          this.hooks.degraded?.()
          this.logger.warn('watching %s failed: %s', this.root, error.message)
          if (!existsSync(this.root)) this.lostRoot()
        },
        (rel) => this.hooks.resync?.(`the folder ${rel || '(the root)'} was moved, replaced or marked as originals`),
      )
      watcher.start()
      this.watcher = watcher
    } catch (error) {
      this.logger.warn('cannot watch %s: %s (hand edits are picked up at the next start)', this.root, (error as Error).message)
    }
  }

  close(): void {
    this.closed = true
    this.watcher?.close()
    clearInterval(this.rootPoll)
    clearTimeout(this.burst?.timer)
    for (const timer of this.pending.values()) clearTimeout(timer)
  }

  /**
   * Counts one change; true while a burst is under way (the change is left to the check that ends it). The burst
   * begins at {@link BURST_CHANGES} changes within a window: the changes waiting for their debounce are dropped too.
   */
  private bursting(): boolean {
    const now = Date.now()
    if (this.burst) {
      this.burst.last = now
      return true
    }
    if (now - this.window.from > BURST_WINDOW_MS) this.window = { count: 0, from: now }
    if (++this.window.count < BURST_CHANGES) return false
    for (const timer of this.pending.values()) clearTimeout(timer)
    this.pending.clear()
    this.burst = { last: now }
    this.hooks.behind?.()
    const quiet = (): void => {
      const burst = this.burst
      if (!burst || this.closed) return
      const left = burst.last + QUIET_MS - Date.now()
      if (left > 0) {
        burst.timer = setTimeout(quiet, left).unref()
        return
      }
      this.burst = undefined
      this.window = { count: 0, from: 0 }
      this.hooks.resync?.(`a burst of changes (${BURST_CHANGES} or more within ${BURST_WINDOW_MS} ms)`)
    }
    this.burst.timer = setTimeout(quiet, QUIET_MS).unref()
    return true
  }

  /** The watched root is gone: stop watching it, report it, and look for it to come back. */
  private lostRoot(): void {
    this.watcher?.close()
    this.watcher = undefined
    this.hooks.degraded?.()
    this.hooks.lost()
    this.start()
  }
}
