/**
 * The persisted index: a cache of the documents, never a source of truth. It lives in
 * `<root>/.knowledge/cache/index.sqlite`: inside the root so it moves with it, but in a dot folder that the scan,
 * the watcher and the page never read as documents, with a `.gitignore` of its own (`*`) so a root kept in git never
 * commits it. Deleting the folder is always safe: the next start rebuilds it from the files.
 *
 * One process at a time owns the file (an exclusive `index.lock` holding its pid; a lock whose process is gone is
 * taken over). The owner opens the file in place and keeps it current with every write. A read-only process on the
 * same root (a CLI search while dsh runs) reads the owner's file as it is, and indexes in memory only when a file
 * changed since the owner indexed it (see view/store-index.ts); a second writing process (a second dsh) gets a private
 * in-memory index built from the files, as before the cache existed. A file that is missing, unreadable, truncated, of another format, or whose build never finished
 * (killed half-way) is deleted and rebuilt, with one log line saying why.
 * @module dsh-knowledge-sync/knowledge/index-cache/index-cache
 */
import { closeSync, existsSync, lstatSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import type { Stats } from 'node:fs'
import type { FileStamp } from '../../types.js'
import type { ManifestTuple } from '../../search/search-index.js'
import { createIndexFile, IndexFileError, openIndexFile } from '../../search/index-file.js'
import { SearchIndex, type SearchIndexOptions } from '../../search/search-index.js'
import { createRootStateFile, ensureStateFolder } from '../disk/root-files.js'
import { lstatSafe } from '../disk/safe-read.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import type { StoreLogger } from '../store-types.js'

/** The cache folder under a root. */
export const CACHE_DIR = join(LEDGER_DIR, 'cache')
export const CACHE_FILE = 'index.sqlite'

/**
 * How long after being stat'ed a file's times still cannot be trusted: a second write within the file system's
 * timestamp granularity (a few ms on Linux, 1–2 s on HFS+/FAT) leaves size and times as they were.
 */
export const RACY_MS = 2000

/** The manifest entry of a file just read (or written) with this text. */
export function stampOf(info: Pick<Stats, 'size' | 'ctimeMs'>, text: string): FileStamp {
  return { size: info.size, ctimeMs: info.ctimeMs, hash: createHash('sha1').update(text).digest('base64'), seenMs: Date.now() }
}

/**
 * Whether a file may differ from what the index holds. Size, mtime and ctime must all match (ctime cannot be set
 * back by `touch` or a restore, so a file put back with its old mtime still counts as changed), and the entry must
 * not be racy: a file indexed within {@link RACY_MS} of its modification gets its content checked once (its hash
 * compared; an unchanged text costs a read, not a re-index).
 */
export function changedSince(row: ManifestTuple, size: number, mtimeMs: number, ctimeMs: number): boolean {
  const [, , rowSize, mtime, ctime, hashed, seen] = row
  if (rowSize !== size || mtime !== mtimeMs || ctime !== ctimeMs || seen === null || !hashed) return true
  return seen - mtimeMs < RACY_MS
}

/** An index opened for a store, and what became of the cache. */
export interface OpenedIndex {
  index: SearchIndex
  /**
   * `reused`: the file was trusted (reconcile it); `rebuild`: a new file, fill it from the files; `shared`: another
   * process owns the file and this one only reads it (usable only if the reconcile finds nothing to write); `memory`:
   * no file.
   */
  mode: 'reused' | 'rebuild' | 'shared' | 'memory'
  /** Releases the cache lock (after the index is closed). */
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

/** Takes the cache lock; false when a live process holds it. A lock left by a dead process is taken over. */
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
      let text = ''
      let age = 0
      try {
        text = readFileSync(path, 'utf8').trim()
        age = Date.now() - statSync(path).mtimeMs
      } catch {
        continue
      }
      // An empty lock is being written this instant, unless it is old (its writer died between create and write).
      if (text ? alive(Number(text)) : age < 10_000) return false
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

/**
 * Opens the root's persisted index, or says why not and falls back to memory. Never throws: a cache problem costs
 * a rebuild, not the store.
 */
export function openIndexCache(root: string, options: SearchIndexOptions | undefined, logger: StoreLogger, { readOnly = false } = {}): OpenedIndex {
  const memory = (): OpenedIndex => ({ index: new SearchIndex(options), mode: 'memory', release() {} })
  if (!existsSync(root)) return memory()
  const dir = join(root, CACHE_DIR)
  const file = join(dir, CACHE_FILE)
  const lockFile = join(dir, 'index.lock')
  try {
    // The cache folder and its files like every file of the root: made and opened only as themselves, never
    // through a link (SQLite would follow one; a pushed `index.sqlite` link must not aim it elsewhere).
    ensureStateFolder(root, dir)
    const ignore = join(dir, '.gitignore')
    if (!existsSync(ignore)) createRootStateFile(root, ignore, '# The search index cache, rebuilt from the documents when missing.\n*\n')
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      const info = lstatSafe(file + suffix)
      if (info && !info.isFile()) throw new Error(`${CACHE_FILE}${suffix} is a symbolic link or not a regular file`)
    }
  } catch (error) {
    // Said once, on the warning channel: the person can fix what is in the way (a link, a directory) and get it back.
    logger.warn('the search index cache under %s cannot be used: %s; indexing in memory', dir, (error as Error).message)
    return memory()
  }
  let owned = false
  try {
    owned = lock(lockFile)
  } catch (error) {
    logger.debug('index cache lock failed: %s', (error as Error).message)
  }
  if (!owned) {
    // A reader (a CLI search while dsh runs) can use the owner's file as it is, read-only.
    if (readOnly && existsSync(file)) {
      try {
        return { index: new SearchIndex(options, openIndexFile(file, { readOnly: true })), mode: 'shared', release() {} }
      } catch {
        /* fall through */
      }
    }
    logger.debug('index cache %s is in use by another process; indexing in memory', file)
    return memory()
  }
  // Something that is not a file where the cache's files go (a directory put there by hand or by a push): the cache
  // is left alone, not removed, and this process indexes in memory (one line says what to remove).
  const foreign = foreignIndexFiles(file)
  let released = false
  const release = (): void => {
    if (released) return
    released = true
    try {
      if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true })
    } catch {
      /* gone */
    }
  }
  if (foreign.length) {
    logger.warn('the search index cache cannot be used: %s is not a file (remove it to get the cache back); indexing in memory', foreign.join(', '))
    release()
    return memory()
  }
  let why = 'missing'
  if (existsSync(file)) {
    try {
      return { index: new SearchIndex(options, openIndexFile(file)), mode: 'reused', release }
    } catch (error) {
      why = error instanceof IndexFileError ? `${error.problem}: ${error.message}` : `unreadable: ${(error as Error).message}`
    }
  }
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
