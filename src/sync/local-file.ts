/**
 * Reading a `type: local` source. sources.yml may come from someone else's push, so a local path is treated as
 * hostile: it is read only when its real path lies inside a folder the person allowed (the knowledge root's enclosing
 * git work tree, else the root itself, plus the folders named in the row's `localRoots` or the CLI's `--allow-local`,
 * which nothing inside the root can set), never through a hidden component (`.git`, `.env`, `.ssh`), only as a
 * regular file, opened without blocking (a FIFO or device cannot hang the thread pool), and read with a byte bound
 * (a `/proc` file reports size 0 and can stream gigabytes).
 * @module dsh-knowledge-sync/sync/local-file
 */
import { constants, existsSync, realpathSync } from 'node:fs'
import { open, readlink, realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/** Why a local source was not read: `missing` (no such file) or `refused` (outside the allowed folders, not a file). */
export class LocalReadError extends Error {
  constructor(
    readonly kind: 'missing' | 'refused' | 'too-large' | 'failed',
    message: string,
  ) {
    super(message)
  }
}

// O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; the fstat then refuses it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)
const CHUNK = 64 * 1024

/** The nearest folder at or above `dir` holding `.git` (a folder, or a file for worktrees/submodules). */
export function enclosingWorkTree(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(resolve(at, '.git'))) return at
    if (dirname(at) === at) return undefined
  }
}

/**
 * The real paths of the folders local sources may be read from: the root's enclosing git work tree (the project
 * the knowledge base belongs to), else the root itself; plus `extra` (absolute, from the person's configuration).
 */
export function allowedLocalRoots(root: string, extra: readonly string[] = []): string[] {
  const out = new Set<string>()
  const add = (dir: string) => {
    try {
      out.add(realpathSync.native(dir))
    } catch {
      /* a configured folder that does not exist allows nothing */
    }
  }
  let realRoot: string
  try {
    realRoot = realpathSync.native(root)
  } catch {
    realRoot = resolve(root)
  }
  add(enclosingWorkTree(realRoot) ?? realRoot)
  for (const dir of extra) if (isAbsolute(dir)) add(dir)
  return [...out]
}

/** The allowed folder holding `real` and the path below it, or undefined. */
function placeIn(real: string, allowed: readonly string[]): { base: string; rel: string } | undefined {
  for (const base of allowed) {
    if (real !== base && !real.startsWith(base.endsWith(sep) ? base : base + sep)) continue
    return { base, rel: relative(base, real) }
  }
  return undefined
}

function refusedOutside(path: string, allowed: readonly string[]): LocalReadError {
  const where = allowed.length ? allowed.join(', ') : 'no folder'
  return new LocalReadError('refused', `${path} is outside the folders local sources may read (${where}); a person can allow more with localRoots or --allow-local`)
}

/**
 * The bytes of the local file `path` (at most `maxBytes`). Throws {@link LocalReadError}: `missing`, `refused`
 * (outside the allowed folders, a hidden component, a link leading out, not a regular file), `too-large`, `failed`.
 */
export async function readLocalFile(path: string, allowed: readonly string[], maxBytes: number): Promise<Buffer> {
  let real: string
  try {
    real = await realpath(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Outside the allowed folders a missing file is refused like a present one: no probing for what exists there.
    if (!placeIn(resolve(path), allowed)) throw refusedOutside(path, allowed)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LocalReadError('missing', `no file ${path}`)
    throw new LocalReadError('failed', `cannot read ${path}: ${code ?? (error as Error).message}`)
  }
  const place = placeIn(real, allowed)
  if (!place) throw refusedOutside(path, allowed)
  if (place.rel.split(sep).some((part) => part.startsWith('.'))) throw new LocalReadError('refused', `${path} goes through a hidden file or folder; local sources never read those`)
  let handle
  try {
    handle = await open(real, OPEN_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new LocalReadError('refused', `${path} was swapped for a symbolic link while read`)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LocalReadError('missing', `no file ${path}`)
    throw new LocalReadError('failed', `cannot read ${path}: ${code ?? (error as Error).message}`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new LocalReadError('refused', `${path} is not a regular file`)
    // A folder on the way swapped for a link between the check and the open: prove what was opened is still inside.
    const opened = await openedPath(handle.fd, real, info)
    if (opened === undefined || !placeIn(opened, allowed)) throw new LocalReadError('refused', `${path} moved outside the allowed folders while read`)
    // The bound is on the bytes read, never on the reported size.
    const parts: Buffer[] = []
    let total = 0
    for (;;) {
      // Whole chunks (some /proc files refuse reads of odd sizes): at most one chunk past the bound is read.
      const chunk = Buffer.allocUnsafe(CHUNK)
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) break
      parts.push(chunk.subarray(0, bytesRead))
      total += bytesRead
      if (total > maxBytes) throw new LocalReadError('too-large', `${path} is over ${maxBytes} bytes`)
    }
    return Buffer.concat(parts, total)
  } catch (error) {
    if (error instanceof LocalReadError) throw error
    throw new LocalReadError('failed', `cannot read ${path}: ${(error as Error).message}`)
  } finally {
    await handle.close()
  }
}

/** The real path of an open descriptor: `/proc/self/fd` where it exists, else the checked path if it is the same file. */
async function openedPath(fd: number, checked: string, info: { dev: number; ino: number }): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${fd}`)
  } catch {
    const now = await stat(checked).catch(() => undefined)
    return now && now.dev === info.dev && now.ino === info.ino ? checked : undefined
  }
}
