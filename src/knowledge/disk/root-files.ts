/**
 * The one way a file of the root that is not a document is opened: `.knowledge/*` (revisions log, ledger, health,
 * decisions, sync state, fetch cache) and `sources.yml`. Any of them may come from someone else's push (the root is
 * often a shared git repository; `revisions.log` is tracked with `merge=union`), so, as `readRootFile` does for
 * documents: never through a symbolic link (the file: O_NOFOLLOW; a folder on the way: the opened descriptor's real
 * path must lie in the real root), only a regular file (O_NONBLOCK: a FIFO never blocks the open), reads bounded by
 * bytes read. Writes too: appends open the same way; whole-file writes are atomic renames into a checked folder.
 * @module dsh-knowledge-sync/knowledge/disk/root-files
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, writeSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { writeFileAtomic } from './atomic.js'

/** A file of the root that cannot be used safely (a link, not a regular file, outside the root, too large). */
export class RootFileError extends Error {
  readonly code = 'EROOTFILE'
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const NONBLOCK = constants.O_NONBLOCK ?? 0
const READ_FLAGS = constants.O_RDONLY | NOFOLLOW | NONBLOCK
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK
/** The default bound of a whole-file read (the ledger and logs of a large base stay well under it). */
export const MAX_STATE_BYTES = 64 * 1024 * 1024

function realRootOf(root: string): string {
  return realpathSync.native(root)
}

/** Proves `full`'s folder is the folder it names under the real root (no folder on the way is a link). */
function checkFolder(root: string, realRoot: string, full: string): void {
  const rel = relative(root, dirname(full))
  if (rel.startsWith('..')) throw new RootFileError(`${full} is not under the knowledge root`)
  const expected = rel ? join(realRoot, rel) : realRoot
  const real = realpathSync.native(dirname(full))
  if (real !== expected) throw new RootFileError(`${relative(root, full)}: a folder on its path is a symbolic link; links are never followed`)
}

/** Opens `full` (under `root`) with `flags`; throws {@link RootFileError} unless it is a regular file inside the real root. */
function openChecked(root: string, full: string, flags: number, mode?: number): number {
  const realRoot = realRootOf(root)
  checkFolder(root, realRoot, full)
  let fd: number
  try {
    fd = openSync(full, flags, mode)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK') throw new RootFileError(`${relative(root, full)} is a symbolic link; links are never followed`)
    if (code === 'EISDIR') throw new RootFileError(`${relative(root, full)} is not a regular file`)
    throw error
  }
  try {
    if (!fstatSync(fd).isFile()) throw new RootFileError(`${relative(root, full)} is not a regular file`)
    // A folder swapped for a link between the check and the open: what was opened must still be inside the root.
    const opened = openedPath(fd)
    if (opened !== undefined && !opened.startsWith(realRoot + sep)) throw new RootFileError(`${relative(root, full)} resolves outside the knowledge root`)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

function openedPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

/**
 * The text of `full`, a file under `root`; undefined when it does not exist. Reads at most `maxBytes` (more is a
 * {@link RootFileError}), whatever its size says.
 */
export function readRootStateFile(root: string, full: string, maxBytes = MAX_STATE_BYTES): string | undefined {
  let fd: number
  try {
    fd = openChecked(root, full, READ_FLAGS)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    throw error
  }
  try {
    return readBounded(fd, 0, maxBytes, relative(root, full)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** Reads from `position` to the end, at most `maxBytes` (else throws). */
function readBounded(fd: number, position: number, maxBytes: number, name: string): Buffer {
  const parts: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total))
    const n = readSync(fd, chunk, 0, chunk.length, position + total)
    if (n <= 0) break
    parts.push(chunk.subarray(0, n))
    total += n
    if (total > maxBytes) throw new RootFileError(`${name} is over ${maxBytes} bytes`)
  }
  return Buffer.concat(parts, total)
}

/** Opens `full` under `root` for reading (the caller reads and closes it); undefined when it does not exist. */
export function openRootStateFile(root: string, full: string): number | undefined {
  try {
    return openChecked(root, full, READ_FLAGS)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    throw error
  }
}

/** Appends `text` to `full` under `root` (created 0644 when missing; its folder made inside the root). */
export function appendRootStateFile(root: string, full: string, text: string): void {
  ensureStateFolder(root, dirname(full))
  const fd = openChecked(root, full, APPEND_FLAGS, 0o644)
  try {
    const bytes = Buffer.from(text, 'utf8')
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
  } finally {
    closeSync(fd)
  }
}

/** Creates `full` under `root` exclusively with `text` (O_EXCL: an existing file or link fails with EEXIST). */
export function createRootStateFile(root: string, full: string, text: string): void {
  ensureStateFolder(root, dirname(full))
  const fd = openChecked(root, full, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644)
  try {
    if (text) writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}

/** Writes `full` under `root` atomically (a rename into a folder proven to be inside the real root). */
export async function writeRootStateFile(root: string, full: string, text: string): Promise<void> {
  ensureStateFolder(root, dirname(full))
  await writeFileAtomic(full, text)
}

/** Makes `dir` (and the folders between the root and it) as real folders, refusing any link on the way. */
export function ensureStateFolder(root: string, dir: string): void {
  // The root itself is where trust starts (the person chose it): made when missing, used as it resolves.
  mkdirSync(root, { recursive: true })
  const realRoot = realRootOf(root)
  const rel = relative(root, dir)
  if (rel.startsWith('..')) throw new RootFileError(`${dir} is not under the knowledge root`)
  let at = root
  for (const part of rel ? rel.split(sep) : []) {
    at = join(at, part)
    try {
      mkdirSync(at)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const info = lstatSync(at)
    if (info.isSymbolicLink() || !info.isDirectory()) throw new RootFileError(`${relative(root, at)} is a symbolic link or not a folder; links are never followed`)
  }
  checkFolder(root, realRoot, join(dir, 'x'))
}
