/**
 * The bytes of originals: opened without following links (the file, or a folder on its way), hashed while they
 * stream, copied in through a temporary file in the hidden folder and put in place with `link`, which fails when
 * the name exists: nothing is ever overwritten, not even by a race.
 * @module dsh-knowledge-sync/knowledge/originals/files
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants, createReadStream, createWriteStream, fstatSync, lstatSync, openSync, closeSync, realpathSync, type Stats } from 'node:fs'
import { link, mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { OriginalsError, MANIFEST_DIR } from './names.js'

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0

/**
 * Opens `rel` under the folder whose real path is `realDir` for reading: never through a link (O_NOFOLLOW on the
 * file, the real path of its folder checked), only a regular file (a FIFO or device is refused without blocking).
 * Returns the descriptor and its stat. Throws {@link OriginalsError} naming the file; ENOENT passes through.
 */
export function openOriginal(realDir: string, rel: string): { fd: number; info: Stats } {
  const full = join(realDir, rel)
  let folder: string
  try {
    folder = realpathSync.native(dirname(full))
  } catch (error) {
    throw error as NodeJS.ErrnoException
  }
  if (folder !== dirname(full)) throw new OriginalsError(`originals/${rel}: a folder on its path is a symbolic link; links are never followed`)
  let fd: number
  try {
    fd = openSync(full, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new OriginalsError(`originals/${rel} is a symbolic link; links are never followed`)
    throw error
  }
  const info = fstatSync(fd)
  if (!info.isFile()) {
    closeSync(fd)
    throw new OriginalsError(`originals/${rel} is not a regular file`)
  }
  return { fd, info }
}

/** The SHA-256 (hex) of an open descriptor's bytes, streamed; closes the descriptor. */
export async function hashDescriptor(fd: number): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream('', { fd, autoClose: true }), async function* (source) {
    for await (const part of source) hash.update(part as Buffer)
    yield* []
  })
  return hash.digest('hex')
}

/** A stream step that hashes and counts what passes, failing once more than `maxBytes` went by. */
export function hashingLimit(maxBytes: number, what: string): Transform & { digest(): { sha256: string; size: number } } {
  const hash = createHash('sha256')
  let size = 0
  const step = new Transform({
    transform(part: Buffer, _enc, done) {
      size += part.length
      if (size > maxBytes) return done(new OriginalsError(`${what} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB, the limit for one original`))
      hash.update(part)
      done(null, part)
    },
  })
  return Object.assign(step, { digest: () => ({ sha256: hash.digest('hex'), size }) })
}

/** A new temporary path in the hidden folder (same file system as the destination, so `link` works). */
export async function temporaryPath(realDir: string): Promise<string> {
  const dir = join(realDir, MANIFEST_DIR)
  await mkdir(dir, { recursive: true })
  return join(dir, `.incoming-${process.pid}-${randomBytes(6).toString('hex')}.tmp`)
}

/**
 * Streams `source` into a temporary file in the hidden folder, hashing as it goes, within `maxBytes`. Returns the
 * temporary path with the hash and size; removes the temporary file on any failure.
 */
export async function receive(realDir: string, source: NodeJS.ReadableStream, maxBytes: number, what: string): Promise<{ tmp: string; sha256: string; size: number }> {
  const tmp = await temporaryPath(realDir)
  const step = hashingLimit(maxBytes, what)
  try {
    const out = createWriteStream(tmp, { flags: 'wx', mode: 0o644, flush: true })
    await pipeline(source, step, out)
    return { tmp, ...step.digest() }
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
}

/**
 * Puts the temporary file at `rel` without ever replacing an existing file: `link` fails with EEXIST when the name
 * is taken (the caller turns that into "choose another name"). Creates the folders on the way, refusing a linked one.
 */
export async function placeNew(realDir: string, tmp: string, rel: string): Promise<void> {
  const full = join(realDir, rel)
  await mkdir(dirname(full), { recursive: true })
  const folder = realpathSync.native(dirname(full))
  if (folder !== dirname(full)) throw new OriginalsError(`originals/${rel}: a folder on its path is a symbolic link; links are never followed`)
  try {
    await link(tmp, full)
  } finally {
    await rm(tmp, { force: true })
  }
}

/** `lstat`, or undefined when the path is gone. */
export function lstatOrUndefined(full: string): Stats | undefined {
  try {
    return lstatSync(full)
  } catch {
    return undefined
  }
}
