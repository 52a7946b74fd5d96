/**
 * The persisted index: a cache of the documents, never a source of truth. It lives in
 * `<root>/.knowledge/cache/index.sqlite`: inside the root so it moves with it, but in a dot folder that the scan,
 * the watcher and the page never read as documents, with a `.gitignore` of its own (`*`) so a root kept in git never
 * commits it. Deleting the folder is always safe: the next start rebuilds it from the files.
 *
 * Every process on the root (any number of dsh processes, CLI commands, the MCP server) opens the same file and writes
 * it in turn: WAL lets readers read while one writer commits, a write transaction takes the lock as it begins and
 * waits for another's (search/write-cycle.ts), and each process follows the others' commits through the file's change
 * log (search/shared-file.ts). Only building the file is done by one process at a time: it holds `index-v4.lock` (its
 * pid; a lock whose process is gone is taken over) until the build is complete, and a process that starts meanwhile
 * indexes in memory. A file that is missing, unreadable, truncated, of another format, or whose build never finished
 * (killed half-way) is deleted and rebuilt, with one log line saying why.
 *
 * The previous version (format 3) kept `index.sqlite` with a lock held for a process's whole life; its files have
 * other names, so a process of that version beside this one keeps its own file, and once its lock is free the old
 * file is removed.
 * @module dsh-knowledge-sync/knowledge/index-cache/index-cache
 */
import { closeSync, existsSync, lstatSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import type { Stats } from 'node:fs'
import type { FileStamp } from '../../types.js'
import { createIndexFile, IndexFileError, openIndexFile } from '../../search/index-file.js'
import { SearchIndex, type SearchIndexOptions } from '../../search/search-index.js'
import { createRootStateFile, ensureStateFolder } from '../disk/root-files.js'
import { lstatSafe } from '../disk/list-files.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import type { StoreLogger } from '../store-types.js'

/** The cache folder under a root. */
export const CACHE_DIR = join(LEDGER_DIR, 'cache')
export const CACHE_FILE = 'index-v4.sqlite'
/** Held while the file is built (see the module comment). */
export const BUILD_LOCK = 'index-v4.lock'
/** The previous version's file and lifetime lock. */
const PREVIOUS = { file: 'index.sqlite', lock: 'index.lock' }

/** The manifest entry of a file just read (or written) with this text. */
export function stampOf(info: Pick<Stats, 'size' | 'ctimeMs'>, text: string): FileStamp {
  return { size: info.size, ctimeMs: info.ctimeMs, hash: createHash('sha1').update(text).digest('base64'), seenMs: Date.now() }
}

/** An index opened for a store, and what became of the cache. */
export interface OpenedIndex {
  index: SearchIndex
  /**
   * `reused`: the file was trusted (reconcile it; other processes may have it open too); `rebuild`: a new file, fill
   * it from the files; `shared`: a file this process cannot write (read-only), usable only if the reconcile finds
   * nothing to write; `memory`: no file.
   */
  mode: 'reused' | 'rebuild' | 'shared' | 'memory'
  /** Releases the build lock (once the build is complete, or when the index is closed). */
  release(): void
}

/** Whether a process id belongs to a live process (EPERM: alive, not ours). */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The pid a lock file names (a plain file only: a link, FIFO or directory put there is never read). */
function lockHolder(path: string): { pid: number; age: number } | undefined {
  const info = lstatSync(path)
  if (!info.isFile() || info.size > 64) throw new Error(`${path} is not a lock file`)
  return { pid: Number(readFileSync(path, 'utf8').trim() || Number.NaN), age: Date.now() - info.mtimeMs }
}

/** Takes the build lock; false when a live process holds it. A lock left by a dead process is taken over. */
function lock(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      try {
        writeSync(fd, String(process.pid))
      } finally {
        closeSync(fd)
      }
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      let holder: { pid: number; age: number } | undefined
      try {
        holder = lockHolder(path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw error
      }
      // An empty lock is being written this instant, unless it is old (its writer died between create and write).
      if (holder && (Number.isNaN(holder.pid) ? holder.age < 10_000 : alive(holder.pid))) return false
      rmSync(path, { force: true })
    }
  }
  return false
}

/** The cache's files that are in the way and are not plain files (a directory, FIFO, device or link put there). */
function foreignIndexFiles(file: string): string[] {
  const foreign: string[] = []
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      const info = lstatSync(file + suffix)
      if (!info.isFile()) foreign.push(file + suffix)
    } catch {
      /* absent */
    }
  }
  return foreign
}

/** Removes the cache's own files; never a directory (see foreignIndexFiles). */
function removeIndexFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      if (!lstatSync(file + suffix).isDirectory()) rmSync(file + suffix, { force: true })
    } catch {
      /* absent */
    }
  }
}

/** Removes the previous version's file once no live process holds its lifetime lock (one log line). */
function dropPrevious(dir: string, logger: StoreLogger): void {
  const file = join(dir, PREVIOUS.file)
  const lockFile = join(dir, PREVIOUS.lock)
  try {
    if (!lstatSafe(file)?.isFile()) return
    const holder = lstatSafe(lockFile) ? lockHolder(lockFile) : undefined
    if (holder && alive(holder.pid)) return
    removeIndexFiles(file)
    rmSync(lockFile, { force: true })
    logger.info('removed the previous search index cache %s (format 3; this version keeps %s)', file, CACHE_FILE)
  } catch {
    /* a link or a non-file in the way: left as it is */
  }
}

/** The existing file, opened for reading and writing beside any other process; else why it cannot be used. */
function tryOpen(file: string, options: SearchIndexOptions | undefined, readOnly: boolean): { index?: SearchIndex; shared?: boolean; why: string } {
  if (!existsSync(file)) return { why: 'missing' }
  try {
    return { index: new SearchIndex(options, openIndexFile(file)), why: '' }
  } catch (error) {
    // A process that only reads (a CLI search) on a file it cannot write (a read-only checkout) reads it as it is.
    if (readOnly && error instanceof IndexFileError && error.problem === 'corrupt') {
      try {
        return { index: new SearchIndex(options, openIndexFile(file, { readOnly: true })), shared: true, why: '' }
      } catch {
        /* rebuilt below */
      }
    }
    return { why: error instanceof IndexFileError ? `${error.problem}: ${error.message}` : `unreadable: ${(error as Error).message}` }
  }
}

/**
 * Opens the root's persisted index, or says why not and falls back to memory. Never throws: a cache problem costs
 * a rebuild, not the store.
 */
export function openIndexCache(root: string, options: SearchIndexOptions | undefined, logger: StoreLogger, { readOnly = false } = {}): OpenedIndex {
  const memory = (): OpenedIndex => ({ index: new SearchIndex(options), mode: 'memory', release() {} })
  if (!existsSync(root)) return memory()
  const dir = join(root, CACHE_DIR)
  const file = join(dir, CACHE_FILE)
  const lockFile = join(dir, BUILD_LOCK)
  try {
    // The cache folder and its files like every file of the root: made and opened only as themselves, never
    // through a link (SQLite would follow one; a pushed `index-v4.sqlite` link must not aim it elsewhere).
    ensureStateFolder(root, dir)
    const ignore = join(dir, '.gitignore')
    if (!existsSync(ignore)) createRootStateFile(root, ignore, '# The search index cache, rebuilt from the documents when missing.\n*\n')
    for (const name of ['', '-wal', '-shm', '-journal'].map((suffix) => CACHE_FILE + suffix).concat(BUILD_LOCK)) {
      const info = lstatSafe(join(dir, name))
      if (info && !info.isFile()) throw new Error(`${name} is a symbolic link or not a regular file`)
    }
  } catch (error) {
    // Said once, on the warning channel: the person can fix what is in the way (a link, a directory) and get it back.
    logger.warn('the search index cache under %s cannot be used: %s; indexing in memory', dir, (error as Error).message)
    return memory()
  }
  dropPrevious(dir, logger)
  const shared = (opened: ReturnType<typeof tryOpen>): OpenedIndex => ({ index: opened.index!, mode: opened.shared ? 'shared' : 'reused', release() {} })
  const first = tryOpen(file, options, readOnly)
  if (first.index) return shared(first)
  let owned = false
  try {
    owned = lock(lockFile)
  } catch (error) {
    logger.debug('index cache lock failed: %s', (error as Error).message)
  }
  if (!owned) {
    logger.debug('index cache %s is being built by another process; indexing in memory', file)
    return memory()
  }
  let released = false
  const release = (): void => {
    if (released) return
    released = true
    try {
      if (lockHolder(lockFile)?.pid === process.pid) rmSync(lockFile, { force: true })
    } catch {
      /* gone */
    }
  }
  // Another process may have finished a build between the first look and the lock: looked at again, under the lock.
  const again = tryOpen(file, options, readOnly)
  if (again.index) {
    release()
    return shared(again)
  }
  // Something that is not a file where the cache's files go (a directory put there by hand or by a push): the cache
  // is left alone, not removed, and this process indexes in memory (one line says what to remove).
  const foreign = foreignIndexFiles(file)
  if (foreign.length) {
    logger.warn('the search index cache cannot be used: %s is not a file (remove it to get the cache back); indexing in memory', foreign.join(', '))
    release()
    return memory()
  }
  const why = again.why
  try {
    removeIndexFiles(file)
    const index = new SearchIndex(options, createIndexFile(file))
    logger.info('search index cache %s %s; rebuilding it from the documents', file, why === 'missing' ? 'is missing' : `was rejected (${why})`)
    return { index, mode: 'rebuild', release }
  } catch (error) {
    logger.warn('cannot create the search index cache %s: %s; indexing in memory', file, (error as Error).message)
    removeIndexFiles(file)
    release()
    return memory()
  }
}
