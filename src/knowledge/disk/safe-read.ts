/**
 * The one way a document file under the root is read: never through a symbolic link (not the file, not a folder on
 * its way), never over the index's size bound. Used by the scan, the watcher, `read` and the CLI alike.
 * @module dsh-knowledge-sync/knowledge/disk/safe-read
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DocumentError } from '../documents/document.js'
import { lstatSafe } from './list-files.js'

/** Files larger than this are reported, not indexed, and not read. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024

// Opening with O_NOFOLLOW refuses a symbolic link in the last path component atomically (no check-then-open race).
// O_NONBLOCK: a FIFO named like a document opens at once (the fstat then refuses it) instead of blocking the process,
// signals included, until some writer opens it; on a regular file it changes nothing.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * Reads one file under the root without following any symbolic link: not the file itself (O_NOFOLLOW), not a folder
 * on the way (its real path must be the expected one under the root's real path). A hard link is a regular file of
 * the root and is read: the kernel only lets someone link a file they could read and copy anyway
 * (`fs.protected_hardlinks`), and backup tools create them. Files over {@link MAX_FILE_BYTES} are refused.
 * Throws {@link DocumentError} naming the file, or the file system's error (ENOENT when it is gone).
 */
export function readRootFile(realRoot: string, rel: string, full: string, dirCache?: Map<string, string>): { text: string; mtimeMs: number; size: number; ctimeMs: number } {
  const dir = dirname(rel)
  const expected = dir === '.' ? realRoot : join(realRoot, dir)
  let real = dirCache?.get(dir)
  if (real === undefined) {
    real = realpathSync.native(dirname(full))
    dirCache?.set(dir, real)
  }
  if (real !== expected) throw new DocumentError(rel, 'a folder on its path is a symbolic link; links are never followed')
  let fd: number
  try {
    fd = openSync(full, OPEN_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK' || (code !== 'ENOENT' && lstatSafe(full)?.isSymbolicLink())) throw new DocumentError(rel, 'is a symbolic link; links are never followed')
    throw error
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new DocumentError(rel, 'is not a regular file')
    if (info.size > MAX_FILE_BYTES) throw new DocumentError(rel, `too large to index (${info.size} bytes; the limit is 4 MiB)`)
    // Size and ctime from the same descriptor: the persisted index's manifest stamps the file with them.
    return { text: readFileSync(fd, 'utf8'), mtimeMs: info.mtimeMs, size: info.size, ctimeMs: info.ctimeMs }
  } finally {
    closeSync(fd)
  }
}
