/**
 * A cross-process lock for a read-modify-write of one shared file under `<root>/.knowledge/`: an exclusive `mkdir`
 * (atomic on every local file system). Unlike the round lock, it never runs unlocked: a caller that cannot take it
 * within the wait gets an error and writes nothing, because a write without it loses another process's update.
 * @module dsh-knowledge-sync/knowledge/disk/dir-lock
 */
import { mkdir, rename, rmdir, stat } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'

export interface DirLockOptions {
  /** How long to wait for another holder (ms). */
  waitMs?: number
  /** A lock older than this was left by a process that died holding it (ms). */
  staleMs?: number
}

/** Runs `fn` holding the lock folder `path` (its parent must exist). Throws when the lock cannot be taken in time. */
export async function withDirLock<T>(path: string, fn: () => Promise<T>, { waitMs = 10_000, staleMs = 10_000 }: DirLockOptions = {}): Promise<T> {
  const deadline = Date.now() + waitMs
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    try {
      await mkdir(path)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const age = await stat(path).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    )
    if (age > staleMs) {
      // Renamed away first: of two processes breaking the same stale lock, only one rename succeeds.
      const away = `${path}.stale-${randomBytes(4).toString('hex')}`
      if (
        await rename(path, away).then(
          () => true,
          () => false,
        )
      )
        await rmdir(away).catch(() => {})
      continue
    }
    if (Date.now() > deadline) throw new Error(`${path} is held by another process (for ${Math.round(age)} ms); nothing was written, try again`)
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause))
  }
  try {
    return await fn()
  } finally {
    await rmdir(path).catch(() => {})
  }
}
