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
}

export class RootWatch {
  private watcher?: TreeWatcher
  private rootPoll?: NodeJS.Timeout
  private readonly pending = new Map<string, NodeJS.Timeout>()
  private closed = false
  /** Changes seen while {@link hold} is in force, reported when it is released. */
  private held?: Set<string>

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
    for (const timer of this.pending.values()) clearTimeout(timer)
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
