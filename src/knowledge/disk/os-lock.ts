/**
 * A cross-process lock held by the operating system: a write transaction (`BEGIN IMMEDIATE`) on a small SQLite file,
 * which SQLite takes as a POSIX advisory lock on the file. Why this and not a lock file holding a pid or an `mkdir`:
 * the kernel drops the lock the instant its process dies, kill -9 included, so there is nothing stale to detect, no
 * pid to outlive its process and be reused, no age to guess (a slow holder is never robbed), and no takeover race
 * between two processes breaking the same stale lock. Nothing is ever written into the lock file (it stays empty);
 * waiting never blocks the event loop (busy is answered at once and retried after a pause). A lock file that is not
 * a plain file (a link, a folder) is refused naming it; one that is not a database (a torn or hostile file, since
 * nothing writes it) is set aside and a fresh one used.
 * @module dsh-knowledge-sync/knowledge/disk/os-lock
 */
import { lstatSync, renameSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { DatabaseSync } from 'node:sqlite'

export interface OsLockOptions {
  /** How long to wait for another holder before giving up (ms). A holder is a live process: it will finish. */
  waitMs?: number
}

const SQLITE_BUSY = 5
const SQLITE_LOCKED = 6
const SQLITE_NOTADB = 26

export class LockBusyError extends Error {
  constructor(path: string, waitedMs: number) {
    super(`${path} is held by another process (waited ${Math.round(waitedMs / 1000)} s); nothing was written, try again`)
    this.name = 'LockBusyError'
  }
}

function openLock(path: string): DatabaseSync {
  try {
    const info = lstatSync(path)
    if (!info.isFile()) throw new Error(`${path} is not a plain file (a link, a folder or a device was put there); it is never used as the lock, remove it`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  // Loaded on first lock, not at import: a command that never takes one (`capture --dry-run`) never loads SQLite.
  const sqlite = createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite')
  return new sqlite.DatabaseSync(path, { timeout: 0 })
}

/** Runs `fn` holding the lock on file `path` (its folder must exist); other processes and other holders in this one wait. */
export async function withOsLock<T>(path: string, fn: () => Promise<T>, { waitMs = 120_000 }: OsLockOptions = {}): Promise<T> {
  const started = Date.now()
  let db = openLock(path)
  try {
    for (let pause = 1; ; pause = Math.min(pause * 2, 40)) {
      try {
        db.exec('BEGIN IMMEDIATE')
        break
      } catch (error) {
        const code = (error as { errcode?: number }).errcode
        if (code === SQLITE_NOTADB) {
          db.close()
          renameSync(path, `${path}.unreadable-${Date.now()}`)
          db = openLock(path)
          continue
        }
        if (code !== SQLITE_BUSY && code !== SQLITE_LOCKED) throw new Error(`cannot take the lock ${path}: ${(error as Error).message}`)
        if (Date.now() - started > waitMs) throw new LockBusyError(path, Date.now() - started)
        await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause))
      }
    }
    try {
      return await fn()
    } finally {
      db.exec('ROLLBACK')
    }
  } finally {
    db.close()
  }
}
