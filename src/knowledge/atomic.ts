/**
 * Atomic file writes: a temporary file in the same directory, fsync, then rename. A crash mid-write leaves at most a
 * dot-named temporary file, which the scanner ignores and {@link sweepTemporaryFiles} removes later.
 * @module dsh-knowledge-sync/knowledge/atomic
 */
import { open, readdir, rename, rm, stat, mkdir } from 'node:fs/promises'
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

/** Removes temporary files older than `maxAgeMs` left by crashed writers in one directory. */
export async function sweepTemporaryFiles(dir: string, maxAgeMs = 60 * 60 * 1000): Promise<number> {
  let removed = 0
  let names: string[]
  try { names = await readdir(dir) } catch { return 0 }
  const now = Date.now()
  for (const name of names) {
    if (!name.startsWith('.') || !name.endsWith(TMP_SUFFIX)) continue
    const full = join(dir, name)
    try {
      if (now - (await stat(full)).mtimeMs > maxAgeMs) { await rm(full, { force: true }); removed++ }
    } catch { /* raced with another sweeper */ }
  }
  return removed
}
