/**
 * Atomic file writes: a temporary file in the same directory, fsync, then rename. A crash mid-write leaves at most a
 * dot-named temporary file, which the store's scan ignores and removes once it is an hour old.
 * @module dsh-knowledge-sync/knowledge/disk/atomic
 */
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'

const TMP_SUFFIX = '.tmp'

/** Writes `text` to `path` atomically; the directory is created when missing. Throws with the path in the message. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path)
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}${TMP_SUFFIX}`)
  let handle
  try {
    await mkdir(dir, { recursive: true })
    handle = await open(tmp, 'wx', 0o644)
    await handle.writeFile(text, 'utf8')
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(tmp, path)
  } catch (error) {
    await handle?.close().catch(() => {})
    await rm(tmp, { force: true }).catch(() => {})
    const err = error as NodeJS.ErrnoException
    throw Object.assign(new Error(`cannot write ${path}: ${err.code ?? ''} ${err.message}`.trim()), { code: err.code, path })
  }
}
