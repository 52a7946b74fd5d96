/**
 * A recursive watcher built from one non-recursive watcher per directory. Why not `fs.watch(root, {recursive})`:
 * on Linux, Node 22 implements it with a watch per *file*, and once a file is replaced by a rename (every atomic
 * write, ours or another process's) that watch stays on the old inode, so later in-place edits of the file (a person
 * with an editor) are never reported. A directory watch reports every change of its entries, whatever their inode.
 * @module dsh-knowledge-sync/knowledge/disk/tree-watch
 */
import { type Dir, lstatSync, opendirSync, watch, type FSWatcher } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { MANIFEST_DIR } from './originals-marker.js'

/** How deep below the root directories are watched (the scan reads as deep). */
const MAX_DEPTH = 8

export class TreeWatcher {
  private readonly dirs = new Map<string, FSWatcher>()
  private closed = false
  /** Folders that could not be watched (or whose watch failed) since start: their changes go unseen. */
  private lost = 0

  /** Whether every folder below the root is watched: none failed since start. */
  get complete(): boolean {
    return !this.closed && this.lost === 0 && this.dirs.has(this.root)
  }

  /**
   * @param root the directory to watch, with every directory below it (except dot-named ones and node_modules)
   * @param onPath called with the root-relative path (`/` separators) of an entry that changed
   * @param onTree called with the root-relative path of a watched folder that was removed, moved away or replaced,
   *   or that gained or lost the originals marker: what is indexed under it no longer follows from file events
   *   (moving a folder reports the folder, not its files), so it must be checked against the files
   */
  constructor(
    private readonly root: string,
    private readonly onPath: (rel: string) => void,
    private readonly onError: (error: Error) => void,
    private readonly onTree: (rel: string) => void = () => {},
  ) {}

  /** Watches the root and every directory below it. Throws when the root itself cannot be watched. */
  start(): void {
    this.add(this.root, 0, false)
  }

  close(): void {
    this.closed = true
    for (const watcher of this.dirs.values()) watcher.close()
    this.dirs.clear()
  }

  private add(dir: string, depth: number, announce: boolean): void {
    if (this.closed || this.dirs.has(dir) || depth > MAX_DEPTH) return
    let watcher: FSWatcher
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => this.changed(dir, depth, name))
    } catch (error) {
      // The root must be watchable (the caller reports it); below it, a folder that vanished or the inotify limit
      // (ENOSPC) costs that folder's live updates only, never the process (this also runs inside a watch callback).
      if (dir === this.root) throw error
      this.lost++
      this.onError(Object.assign(error as Error, { message: `cannot watch ${dir}: ${(error as Error).message}` }))
      return
    }
    watcher.on('error', (error) => {
      watcher.close()
      if (this.dirs.get(dir) === watcher) this.dirs.delete(dir)
      this.lost++
      if (dir === this.root) this.onError(error)
    })
    this.dirs.set(dir, watcher)
    // One entry at a time, and a path made only for what is used: a folder of 100k files read whole (an array of
    // entries and a path per file) grew V8's young generation to its maximum and left ~40 MB of RSS mapped.
    let entries: Dir
    try {
      entries = opendirSync(dir, { bufferSize: 256 })
    } catch {
      return
    }
    const below: string[] = []
    try {
      for (let entry = entries.readSync(); entry; entry = entries.readSync()) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
        if (entry.isDirectory()) below.push(entry.name)
        else if (announce) this.onPath(this.rel(join(dir, entry.name)))
      }
    } catch {
      /* the folder went while read: what was read is watched */
    } finally {
      entries.closeSync()
    }
    for (const name of below) this.add(join(dir, name), depth + 1, announce)
  }

  /** The root-relative path of `path`, with `/` separators. */
  private rel(path: string): string {
    return relative(this.root, path).split(sep).join('/')
  }

  private changed(dir: string, depth: number, name: string | Buffer | null): void {
    if (!name || this.closed) return
    const entry = name.toString()
    // The originals marker made or removed: the folder's documents leave the index, or come back.
    if (entry === MANIFEST_DIR) {
      this.onTree(this.rel(dir))
      return
    }
    if (entry.startsWith('.') || entry === 'node_modules') return
    const full = join(dir, entry)
    // lstat: a symlinked directory is not followed (the scan does not follow it either).
    let isDir = false
    try {
      isDir = lstatSync(full).isDirectory()
    } catch {
      /* removed */
    }
    // An event about a watched folder itself, in its parent, means it was removed, moved away, replaced or had its
    // attributes set: never new entries, which its own watch reports. Its inode cannot tell a folder made again at
    // the path (ext4 gives the new one the old number at once), and its watch follows the inode when moved, reporting
    // under the old path. So its watches end, the folder is watched anew if it is one, and what is indexed under it
    // is checked against the files.
    if (this.dirs.has(full)) {
      for (const [path, watcher] of this.dirs)
        if (path === full || path.startsWith(full + sep)) {
          watcher.close()
          this.dirs.delete(path)
        }
      this.onTree(this.rel(full))
    }
    // A new directory (a session folder another process created): watch it, and report what is already in it.
    if (isDir) this.add(full, depth + 1, true)
    else this.onPath(this.rel(full))
  }
}
