/**
 * The freshness stamp: how a one-shot reader (a CLI `search`), or a second long-lived process whose own watcher is
 * armed, knows that the shared index is current without stat-ing every document file. A process that owns the index
 * and watches the root (a dsh process, `dsh-knowledge watch`, any watching store) keeps it current already; while it does,
 * it keeps a stamp beside the index,
 * `<root>/.knowledge/cache/watcher-<pid>.json`: its pid, its start time (clock ticks since boot, from /proc), this
 * machine's boot id, the index file it holds (device and inode), the root it watches (links resolved) and a heartbeat
 * rewritten every {@link HEARTBEAT_MS}.
 * It writes the stamp only once its start-up scan is done and every folder of the root is watched (the watcher is
 * armed before the scan lists the files, so no edit falls between the two), and removes it when it closes or its
 * watcher loses part of the root.
 *
 * A reader trusts a stamp only when all of these hold, each checked on this machine, now:
 * - Linux (the checks read /proc; elsewhere the reader always walks);
 * - the boot id is this boot's (a stamp pushed from another machine, or left from before a reboot, never is);
 * - the root the owner watches, links resolved, is the reader's (a root moved under a live owner is not watched);
 * - the pid is alive and its start time is the stamp's (a pid reused by another process is not the owner);
 * - the heartbeat is at most {@link STALE_MS} old (an owner suspended or stuck cannot process its watcher's events);
 * - that very process holds open the same index file (device and inode) as the reader: seen in /proc/<pid>/fd and
 *   /proc/self/fd. A stamp copied along with a root, or an index file replaced under the owner (a `git pull` of a
 *   committed cache, a deleted cache folder rebuilt by another process), names an inode the owner does not hold.
 * Otherwise the reader does the full check (stat every file against the index's manifest), as before.
 *
 * What the stamp does not promise: an edit the owner has not indexed yet (its watcher's 30 ms debounce, or an event
 * loop busy for a moment) is not in the index; a reader sees it once the owner has indexed it, as a search inside the
 * owner does.
 * @module dsh-knowledge-sync/knowledge/index-cache/watch-stamp
 */
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { readRootStateFile } from '../disk/root-files.js'
import type { StoreLogger } from '../store-types.js'

/**
 * `DSH_KNOWLEDGE_FRESHNESS=walk`: no stamp is trusted, every start and reading command stats every file before it
 * answers (a baseline for the benches, and a way out for anyone who distrusts a watching owner or a check behind).
 * `=behind`: a watching process checks its files behind at any size (see {@link checksBehind}; tests and benches).
 */
export const FRESHNESS_ENV = 'DSH_KNOWLEDGE_FRESHNESS'

/**
 * From this many documents a watching process that reuses the index, with no owner to vouch for it, is ready once
 * the index is open; the check of every file against it runs behind, and the changes it finds are indexed (and
 * announced) as they are found. Why: the check is a stat per file (~6 µs on this VM) and the manifest read back,
 * ~1.5 s at 150k documents and 10–30 s at a million, and the watcher, armed before it, already covers what changes
 * from then on. A one-shot reader (the CLI) always waits for the check: it answers once.
 */
export const CHECK_BEHIND_FROM = 150_000

/** Whether a watching process with `documents` in its reused index checks its files behind (see {@link CHECK_BEHIND_FROM}). */
export function checksBehind(documents: number): boolean {
  const mode = process.env[FRESHNESS_ENV]
  return mode === 'behind' || (mode !== 'walk' && documents >= CHECK_BEHIND_FROM)
}

/** How often a watching owner rewrites its stamp. */
export const HEARTBEAT_MS = 2000
/** A stamp whose heartbeat is older than this is not trusted (five missed beats: an owner stuck or suspended). */
export const STALE_MS = 10_000
const STAMP = /^watcher-(\d+)\.json$/
const stampName = (pid: number) => `watcher-${pid}.json`

/** What a stamp says. */
interface Stamp {
  pid: number
  /** Process start time, clock ticks after boot (field 22 of /proc/<pid>/stat). */
  start: string
  boot: string
  dev: number
  ino: number
  /** The root it watches, links resolved: a root moved (or renamed) under a live owner is no longer the one it watches. */
  root: string
  /** Heartbeat, ms since the epoch. */
  beat: number
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startTime(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')[19]
      ?.trim()
  } catch {
    return undefined
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/** Whether process `pid` holds a file descriptor on the file with this device and inode. */
function holds(pid: number | 'self', dev: number, ino: number, name: string): boolean {
  const dir = `/proc/${pid}/fd`
  let fds: string[]
  try {
    fds = readdirSync(dir)
  } catch {
    return false
  }
  for (const fd of fds) {
    try {
      // The link's text first (cheap): only descriptors on a file of that name are stat'ed.
      if (!readlinkSync(`${dir}/${fd}`).includes(name)) continue
      const info = statSync(`${dir}/${fd}`)
      if (info.dev === dev && info.ino === ino) return true
    } catch {
      /* closed meanwhile */
    }
  }
  return false
}

/** `root` with its links resolved; undefined when it cannot be (gone). */
function realRoot(root: string): string | undefined {
  try {
    return realpathSync(root)
  } catch {
    return undefined
  }
}

/** Why a stamp is not trusted, or undefined when it is. */
function distrust(stamp: Partial<Stamp>, pid: number, boot: string, file: { dev: number; ino: number }, name: string, root: string | undefined, now: number): string | undefined {
  if (stamp.pid !== pid || typeof stamp.start !== 'string' || typeof stamp.beat !== 'number' || typeof stamp.root !== 'string') return 'malformed'
  if (stamp.boot !== boot) return 'another boot or machine'
  if (stamp.dev !== file.dev || stamp.ino !== file.ino) return 'another index file'
  // The same index file under another path: the root was moved while its owner ran, whose watcher lost it.
  if (stamp.root !== root) return 'the owner watches another path (the root was moved)'
  if (Math.abs(now - stamp.beat) > STALE_MS) return `heartbeat ${now - stamp.beat} ms old`
  if (startTime(pid) !== stamp.start) return 'process gone (or its pid reused)'
  if (!holds(pid, file.dev, file.ino, name)) return 'process does not hold the index file'
  return undefined
}

/** What a reader learned from the stamps beside an index file. */
export interface Freshness {
  /** The pid of a live watching owner whose stamp holds; undefined: walk. */
  watcher?: number
  /** That owner's last heartbeat (ms since the epoch). */
  beat?: number
  /** Why no stamp was trusted (for the debug line). */
  why: string
}

/** Whether any process left a freshness stamp beside the index file `file`: one listing, nothing checked. */
export function stampedBeside(file: string): boolean {
  try {
    return process.platform === 'linux' && readdirSync(join(file, '..')).some((n) => STAMP.test(n))
  } catch {
    return false
  }
}

/**
 * Whether a live watching owner vouches for the index file `file` (under `root`), which this process has open: see
 * the module comment for every check. `only`: that owner's stamp alone is looked at. Never throws.
 */
export function liveWatcher(root: string, file: string, only?: number): Freshness {
  if (process.platform !== 'linux') return { why: 'not Linux' }
  const boot = bootId()
  if (!boot) return { why: 'no boot id' }
  const dir = join(file, '..')
  const name = file.slice(dir.length + 1)
  let names: string[]
  let info: { dev: number; ino: number }
  try {
    names = readdirSync(dir).filter((n) => STAMP.test(n) && (only === undefined || n === stampName(only)))
    info = statSync(file)
  } catch (error) {
    return { why: (error as Error).message }
  }
  if (!names.length) return { why: 'no watching owner' }
  // The reader's own connection must be on that inode too (the file was not replaced between its open and now).
  if (!holds('self', info.dev, info.ino, name)) return { why: 'this process does not hold the index file' }
  const reasons: string[] = []
  const now = Date.now()
  const real = realRoot(root)
  for (const n of names) {
    const pid = Number(STAMP.exec(n)![1])
    try {
      const stamp = JSON.parse(readRootStateFile(root, join(dir, n), 1024) ?? '{}') as Partial<Stamp>
      const why = distrust(stamp, pid, boot, info, name, real, now)
      if (!why) return { watcher: pid, beat: stamp.beat, why: '' }
      reasons.push(`${pid}: ${why}`)
    } catch (error) {
      reasons.push(`${pid}: ${(error as Error).message}`)
    }
  }
  return { why: reasons.join('; ') }
}

/**
 * After a long-lived process started on the word of watching owner `pid` (its own watcher armed at `armed`, ms since
 * the epoch), whether that owner goes on to index what it had seen before then. An edit made just before `armed` may
 * still sit in the owner's debounce (~30 ms) or in its event queue: this process's watcher never saw it. Once the
 * owner has beaten a full {@link HEARTBEAT_MS} after `armed`, its event loop has run since, so every change it saw is
 * indexed: confirmed. If it is gone first (killed, closed, or stuck past {@link STALE_MS}), `lapsed` is called with
 * why, and the caller does the check it skipped. Checked every {@link HEARTBEAT_MS}; returns the cancel.
 */
export function confirmVouch(root: string, file: string, pid: number, armed: number, lapsed: (why: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined
  const check = (): void => {
    const fresh = liveWatcher(root, file, pid)
    if (!fresh.watcher) lapsed(fresh.why || 'no stamp')
    else if ((fresh.beat ?? 0) < armed + HEARTBEAT_MS) timer = setTimeout(check, HEARTBEAT_MS).unref()
  }
  timer = setTimeout(check, HEARTBEAT_MS).unref()
  return () => clearTimeout(timer)
}

/**
 * The stamp of this process as a watching owner of `file`. {@link start} writes it and keeps its heartbeat while
 * `healthy()` says the watcher covers the whole root; {@link withdraw} removes it (also on close).
 */
export class WatchStamp {
  private timer?: NodeJS.Timeout
  private path: string
  private stamp?: Stamp
  /** Paused ({@link pause}): the file is removed until {@link resume}; the stamp is not withdrawn for good. */
  private paused = false

  constructor(
    private readonly root: string,
    private readonly file: string,
    private readonly healthy: () => boolean,
    private readonly logger: StoreLogger,
  ) {
    this.path = join(file, '..', stampName(process.pid))
  }

  /** Writes the stamp (and sweeps those of owners that are gone); false when this machine cannot vouch (not Linux). */
  start(): boolean {
    if (this.timer || process.platform !== 'linux') return false
    const boot = bootId()
    const start = startTime('self')
    const root = realRoot(this.root)
    if (!boot || !start || !root) return false
    try {
      const { dev, ino } = statSync(this.file)
      // By the cache folder's real path: a root given as a link that is pointed elsewhere later still loses its stamp.
      this.path = join(realpathSync(join(this.file, '..')), stampName(process.pid))
      this.stamp = { pid: process.pid, start, boot, dev, ino, root, beat: Date.now() }
      this.sweep(boot)
      this.write()
    } catch (error) {
      this.logger.debug('freshness stamp not written: %s', (error as Error).message)
      return false
    }
    this.timer = setInterval(() => this.beat(), HEARTBEAT_MS).unref()
    return true
  }

  /** Whether the stamp is kept now (written, not withdrawn since, not paused). */
  get kept(): boolean {
    return this.stamp !== undefined && !this.paused
  }

  /** Whether it was withdrawn for good (after {@link start} wrote it). */
  get withdrawn(): boolean {
    return this.stamp === undefined
  }

  /** Removes the file for a while (the index is behind: a burst of changes, a check of every file); see {@link resume}. */
  pause(): void {
    if (!this.stamp || this.paused) return
    this.paused = true
    rmSync(this.path, { force: true })
  }

  /** Writes the file again after {@link pause}, unless the watcher or the index file no longer allow it (then withdrawn). */
  resume(): void {
    if (!this.stamp || !this.paused) return
    this.paused = false
    this.beat()
  }

  /** Removes the stamp: readers walk again until {@link start}. */
  withdraw(): void {
    clearInterval(this.timer)
    this.timer = undefined
    if (!this.stamp) return
    this.stamp = undefined
    rmSync(this.path, { force: true })
  }

  private beat(): void {
    if (!this.stamp || this.paused) return
    if (!this.healthy()) {
      this.logger.debug('freshness stamp withdrawn: the watcher no longer covers the root')
      this.withdraw()
      return
    }
    // The index file replaced or removed under this process (a deleted cache folder rebuilt by another process, a
    // committed cache pulled): readers open a file this process does not keep current, and would walk anyway.
    const info = statSync(this.file, { throwIfNoEntry: false })
    if (info?.dev !== this.stamp.dev || info?.ino !== this.stamp.ino) {
      this.logger.debug('freshness stamp withdrawn: the index file was replaced or removed')
      this.withdraw()
      return
    }
    this.stamp.beat = Date.now()
    try {
      this.write()
    } catch (error) {
      this.logger.debug('freshness stamp withdrawn: %s', (error as Error).message)
      this.withdraw()
    }
  }

  /** Written whole and renamed into place (a reader never sees half a stamp); never through a link. */
  private write(): void {
    const tmp = `${this.path}.tmp`
    rmSync(tmp, { force: true })
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644)
    try {
      writeSync(fd, JSON.stringify(this.stamp))
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, this.path)
  }

  /** Stamps left by owners that are gone (killed, or from an earlier boot) are removed. */
  private sweep(boot: string): void {
    const dir = join(this.file, '..')
    for (const n of readdirSync(dir)) {
      const match = STAMP.exec(n)
      if (!match || Number(match[1]) === process.pid) continue
      try {
        const stamp = JSON.parse(readRootStateFile(this.root, join(dir, n), 1024) ?? '{}') as Partial<Stamp>
        if (stamp.boot === boot && typeof stamp.pid === 'number' && startTime(stamp.pid) === stamp.start) continue
      } catch {
        /* unreadable: removed */
      }
      rmSync(join(dir, n), { force: true })
    }
  }
}
