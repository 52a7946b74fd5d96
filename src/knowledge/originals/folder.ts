/**
 * The originals folder and its manifest: the files a knowledge base is built from, kept as obtained. This class is
 * the one writer of the folder: it adds files (never overwriting, never copying a byte-identical file twice), picks
 * up files copied in by hand (`manual`), notices files that disappeared (`missing`), retires files into the hidden
 * retired folder, and records which hash each summary was built from. Every change is a read-modify-write of the
 * manifest under a lock the operating system holds (`.manifest/manifest.lock`, see disk/os-lock.ts), so two processes
 * on one root (dsh and the CLI, or the MCP server) never lose each other's update; the manifest is replaced atomically
 * (a complete, fsynced temporary file renamed over it), so a process killed at any instant leaves the last committed
 * manifest whole, and the kernel drops its lock as it dies.
 * @module dsh-knowledge-sync/knowledge/originals/folder
 */
import { closeSync, mkdirSync, readdirSync, realpathSync, renameSync, type Dirent } from 'node:fs'
import { link, rm } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import { hashDescriptor, lstatOrUndefined, openOriginal, placeNew, receive } from './files.js'
import { withOsLock } from '../disk/os-lock.js'
import { MANIFEST_DIR, MANIFEST_FILE, MANIFEST_LOCK, OriginalsError, RETIRED_DIR, originalPath, typeOf } from './names.js'
import { type Manifest, type OriginalEntry, type Provenance, type RetireWhy, parseManifest, readManifestFile, writeManifestFile } from './manifest.js'
import { listEntry, type ListedOriginal, type PageCounter } from './listing.js'

export interface OriginalsLogger {
  warn(format: string, ...args: unknown[]): void
  debug(format: string, ...args: unknown[]): void
}

export interface OriginalsOptions {
  /** The knowledge root (absolute). */
  root: string
  /** The folder of originals, relative to the root. */
  folder?: string
  logger?: OriginalsLogger
  /** Counts pages/slides of a file (injected by the row that knows the formats); cached per hash. */
  countPages?: PageCounter
  now?: () => Date
}

export interface Added {
  /** The original's path inside the folder. */
  path: string
  /** True when a byte-identical original was already present: nothing was copied and `path` names that one. */
  existing: boolean
}

const MAX_DEPTH = 8

export class OriginalsFolder {
  /** Absolute path of the folder (its real path once opened). */
  dir: string
  private readonly logger?: OriginalsLogger
  private readonly countPages?: PageCounter
  private readonly now: () => Date
  private queue: Promise<unknown> = Promise.resolve()
  /** Files on disk at the last scan (NFC path → on-disk relative name), and paths with a problem (a link, …). */
  private onDisk = new Map<string, string>()
  private problems = new Map<string, string>()

  constructor(options: OriginalsOptions) {
    const folder = options.folder ?? 'originals'
    if (folder.split(/[\\/]/).some((p) => p === '..') || folder.startsWith('/')) throw new OriginalsError(`the originals folder ${JSON.stringify(folder)} must be relative to the root, without ".."`)
    this.dir = join(options.root, folder)
    this.logger = options.logger
    this.countPages = options.countPages
    this.now = options.now ?? (() => new Date())
  }

  private get manifestPath(): string {
    return join(this.dir, MANIFEST_DIR, MANIFEST_FILE)
  }

  /** Creates the folder and its hidden folder when missing; refuses a folder that is a link. */
  open(): this {
    mkdirSync(join(this.dir, MANIFEST_DIR), { recursive: true })
    const real = realpathSync.native(this.dir)
    if (real !== join(realpathSync.native(dirname(this.dir)), basename(this.dir))) throw new OriginalsError(`${this.dir} is a symbolic link; the originals folder is never reached through a link`)
    this.dir = real
    return this
  }

  /**
   * Runs `change` on a fresh copy of the manifest, one at a time in this process and, under the manifest's lock, one
   * at a time across processes; writes it when `change` says so, before the lock is released.
   */
  private mutate<T>(change: (manifest: Manifest) => Promise<{ value: T; write: boolean }>): Promise<T> {
    const run = this.queue.then(() => {
      mkdirSync(join(this.dir, MANIFEST_DIR), { recursive: true })
      return withOsLock(join(this.dir, MANIFEST_DIR, MANIFEST_LOCK), async () => {
        const manifest = this.load()
        const { value, write } = await change(manifest)
        if (write) await writeManifestFile(this.manifestPath, manifest)
        return value
      })
    })
    this.queue = run.catch(() => {})
    return run
  }

  /** The manifest as on disk. An unreadable one is set aside beside itself (nothing is lost) and rebuilt by the scan. */
  private load(): Manifest {
    let read: { text: string } | undefined
    try {
      read = readManifestFile(this.manifestPath)
      if (!read) return { version: 1, originals: [] }
      const { manifest, dropped } = parseManifest(read.text, this.manifestPath)
      for (const why of dropped.slice(0, 20)) this.logger?.warn('originals: manifest entry dropped: %s', why)
      return manifest
    } catch (error) {
      const aside = `${this.manifestPath}.unreadable-${this.now().getTime()}`
      try {
        renameSync(this.manifestPath, aside)
      } catch {
        throw error
      }
      this.logger?.warn('originals: %s; it was moved to %s and the manifest is rebuilt from the files', (error as Error).message, aside)
      return { version: 1, originals: [] }
    }
  }

  /** The files in the folder now (not hidden ones), keyed by NFC path, and the entries that are not regular files. */
  private listDisk(): void {
    const files = new Map<string, string>()
    const problems = new Map<string, string>()
    const walk = (dir: string, rel: string, depth: number) => {
      let entries: Dirent[]
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue
        const onDisk = rel ? `${rel}/${entry.name}` : entry.name
        const key = onDisk.normalize('NFC')
        if (entry.isSymbolicLink()) problems.set(key, `originals/${key} is a symbolic link; links are never followed`)
        else if (entry.isDirectory()) {
          if (depth < MAX_DEPTH) walk(join(dir, entry.name), onDisk, depth + 1)
        } else if (entry.isFile()) files.set(key, onDisk)
        else problems.set(key, `originals/${key} is not a regular file`)
      }
    }
    walk(this.dir, '', 1)
    this.onDisk = files
    this.problems = problems
  }

  /**
   * Reconciles the manifest with the folder: a new file is recorded (`manual`), a changed one re-hashed (its
   * `changedAt` moves only when the hash changes), a vanished one is reported `missing` by {@link list}.
   */
  scan(): Promise<{ added: string[]; changed: string[] }> {
    return this.mutate(async (manifest) => {
      this.listDisk()
      const byPath = new Map(manifest.originals.map((e) => [e.path, e]))
      const added: string[] = []
      const changed: string[] = []
      let write = false
      for (const [path, onDisk] of this.onDisk) {
        const entry = byPath.get(path)
        if (entry?.retired) continue
        const info = lstatOrUndefined(join(this.dir, onDisk))
        if (!info) continue
        if (entry && entry.size === info.size && entry.mtimeMs === info.mtimeMs) continue
        let sha256: string
        try {
          const { fd } = openOriginal(this.dir, onDisk)
          sha256 = await hashDescriptor(fd)
        } catch (error) {
          this.problems.set(path, (error as Error).message)
          continue
        }
        const at = this.now().toISOString()
        write = true
        if (!entry) {
          manifest.originals.push({ path, sha256, size: info.size, provenance: { kind: 'manual' }, addedAt: at, changedAt: at, mtimeMs: info.mtimeMs })
          added.push(path)
        } else {
          if (entry.sha256 !== sha256) {
            entry.sha256 = sha256
            entry.changedAt = at
            changed.push(path)
          }
          entry.size = info.size
          entry.mtimeMs = info.mtimeMs
        }
      }
      return { value: { added, changed }, write }
    })
  }

  /** Every original, present, missing and retired, after a scan; counts pages and slides (cached per hash). */
  async list(): Promise<ListedOriginal[]> {
    await this.scan()
    return this.mutate(async (manifest) => {
      let write = false
      const out: ListedOriginal[] = []
      for (const entry of manifest.originals) {
        const present = !entry.retired && this.onDisk.has(entry.path)
        if (present && this.countPages && entry.counts?.sha256 !== entry.sha256 && (typeOf(entry.path) === 'pdf' || typeOf(entry.path) === 'pptx')) {
          try {
            const { fd } = openOriginal(this.dir, this.onDisk.get(entry.path) ?? entry.path)
            try {
              entry.counts = { sha256: entry.sha256, ...(await this.countPages(fd, entry.path)) }
            } finally {
              closeSync(fd)
            }
            write = true
          } catch (error) {
            this.problems.set(entry.path, (error as Error).message)
          }
        }
        out.push(listEntry(entry, present, this.problems.get(entry.path)))
      }
      return { value: out.sort((a, b) => (a.path < b.path ? -1 : 1)), write }
    })
  }

  /** The manifest entries as they are (for the wiki link and the page; hashes included: callers keep them inside). */
  entries(): Promise<OriginalEntry[]> {
    return this.mutate(async (manifest) => ({ value: manifest.originals, write: false }))
  }

  /** The absolute on-disk path of a present original (its name as the disk spells it). */
  fullPath(path: string): string {
    return join(this.dir, this.onDisk.get(path) ?? path)
  }

  /** Finds an original by the name a tool or a person gave, tolerant of Unicode normalisation and a leading `originals/`. */
  async resolve(name: unknown): Promise<OriginalEntry> {
    const path = originalPath(name)
    await this.scan()
    const entries = await this.entries()
    const entry = entries.find((e) => e.path === path) ?? entries.find((e) => e.path.toLowerCase() === path.toLowerCase())
    if (!entry) {
      const problem = this.problems.get(path)
      throw new OriginalsError(problem ?? `originals/${path} is not an original (list_sources lists them)`)
    }
    return entry
  }

  /**
   * Opens a present original for reading (descriptor, no link followed); the caller closes it. A retired or missing
   * one is an error that says so (and what replaced it).
   */
  async openForReading(name: unknown): Promise<{ entry: OriginalEntry; fd: number }> {
    const entry = await this.resolve(name)
    if (entry.retired)
      throw new OriginalsError(`originals/${entry.path} is retired (${entry.retired.why}: ${entry.retired.reason})${entry.retired.replacedBy ? `; use originals/${entry.retired.replacedBy}` : ''}`)
    const onDisk = this.onDisk.get(entry.path)
    if (!onDisk) throw new OriginalsError(this.problems.get(entry.path) ?? `originals/${entry.path} is missing: it is in the manifest but no longer in the folder`)
    return { entry, fd: openOriginal(this.dir, onDisk).fd }
  }

  /** True when the path is present now. */
  isPresent(path: string): boolean {
    return this.onDisk.has(path)
  }

  /** Adds the bytes of `source` as `destination`, recording `provenance`. See {@link Added}. */
  async add(source: NodeJS.ReadableStream, destination: unknown, provenance: Provenance, options: { maxBytes: number; what: string; replaces?: unknown }): Promise<Added> {
    const path = originalPath(destination)
    const replaces = options.replaces === undefined || options.replaces === '' ? undefined : originalPath(options.replaces)
    await this.scan()
    await this.assertFree(path)
    const got = await receive(this.dir, source, options.maxBytes, options.what)
    return this.mutate<Added>(async (manifest) => {
      this.listDisk() // another process may have added files since this one's last scan
      const same = manifest.originals.find((e) => e.sha256 === got.sha256 && !e.retired && this.onDisk.has(e.path))
      if (same) {
        await rm(got.tmp, { force: true })
        return { value: { path: same.path, existing: true }, write: false }
      }
      const retiredTwin = manifest.originals.find((e) => e.sha256 === got.sha256 && e.retired)
      if (retiredTwin) {
        await rm(got.tmp, { force: true })
        throw new OriginalsError(`${options.what} is byte-identical to originals/${retiredTwin.path}, retired (${retiredTwin.retired?.why}): ${retiredTwin.retired?.reason}`)
      }
      if (replaces && !manifest.originals.some((e) => e.path === replaces)) {
        await rm(got.tmp, { force: true })
        throw new OriginalsError(`replaces: originals/${replaces} is not an original`)
      }
      this.refuseTaken(manifest, path, got.tmp)
      try {
        await placeNew(this.dir, got.tmp, path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw taken(path)
        throw error
      }
      const info = lstatOrUndefined(join(this.dir, path))
      const at = this.now().toISOString()
      manifest.originals.push({ path, sha256: got.sha256, size: got.size, provenance, addedAt: at, changedAt: at, mtimeMs: info?.mtimeMs ?? 0, ...(replaces ? { replaces } : {}) })
      this.onDisk.set(path, path)
      return { value: { path, existing: false }, write: true }
    })
  }

  /** Refuses a name that is taken on disk (in any Unicode normalisation) or in the manifest (a retired name stays taken). */
  private async assertFree(path: string): Promise<void> {
    const entries = await this.entries()
    this.refuseTaken({ version: 1, originals: entries }, path)
  }

  private refuseTaken(manifest: Manifest, path: string, tmp?: string): void {
    const lower = path.toLowerCase()
    const clash = manifest.originals.some((e) => e.path.toLowerCase() === lower) || [...this.onDisk.keys(), ...this.problems.keys()].some((p) => p.toLowerCase() === lower)
    if (clash) {
      if (tmp) void rm(tmp, { force: true })
      throw taken(path)
    }
  }

  /** Retires an original: the file moves to the hidden retired folder, the entry keeps why, the reason and the replacement. */
  retire(name: unknown, why: RetireWhy, reason: string, replacedBy?: unknown): Promise<OriginalEntry> {
    const path = originalPath(name)
    const replacement = replacedBy === undefined || replacedBy === '' ? undefined : originalPath(replacedBy)
    return this.mutate(async (manifest) => {
      this.listDisk()
      const entry = manifest.originals.find((e) => e.path === path)
      if (!entry) throw new OriginalsError(`originals/${path} is not an original`)
      if (entry.retired) throw new OriginalsError(`originals/${path} is already retired (${entry.retired.at})`)
      if (why === 'replaced' && !replacement) throw new OriginalsError('why "replaced" needs replacedBy: the original that replaces it')
      const next = replacement ? manifest.originals.find((e) => e.path === replacement && !e.retired) : undefined
      if (replacement && !next) throw new OriginalsError(`replacedBy: originals/${replacement} is not a present original`)
      if (replacement === path) throw new OriginalsError('an original cannot replace itself')
      const problem = this.problems.get(path)
      if (problem) throw new OriginalsError(`${problem}: nothing was moved; put the real file back (or remove the entry) first`)
      let storedAs = `${RETIRED_DIR}/${path}`
      const onDisk = this.onDisk.get(path)
      if (onDisk) {
        const { fd } = openOriginal(this.dir, onDisk) // refuses a link or a FIFO swapped in
        closeSync(fd)
        for (let n = 1; ; n++) {
          try {
            mkdirSync(dirname(join(this.dir, storedAs)), { recursive: true })
            await link(join(this.dir, onDisk), join(this.dir, storedAs))
            break
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n > 1000) throw error
            storedAs = `${RETIRED_DIR}/${path}.${n}`
          }
        }
        await rm(join(this.dir, onDisk))
        this.onDisk.delete(path)
      } else storedAs = `${RETIRED_DIR}/${path}.missing`
      entry.retired = { at: this.now().toISOString(), why, reason: reason.slice(0, 500), storedAs: storedAs.split(sep).join('/'), ...(replacement ? { replacedBy: replacement } : {}) }
      if (next && !next.replaces) next.replaces = path
      return { value: entry, write: true }
    })
  }

  /** Records that summary `summaryId` was built from the original's current bytes (for exact staleness). */
  recordIngest(name: unknown, summaryId: string): Promise<void> {
    const path = originalPath(name)
    return this.mutate(async (manifest) => {
      const entry = manifest.originals.find((e) => e.path === path)
      if (!entry) return { value: undefined, write: false }
      entry.ingests = { ...(entry.ingests ?? {}), [summaryId.slice(0, 200)]: { sha256: entry.sha256, at: this.now().toISOString() } }
      return { value: undefined, write: true }
    })
  }
}

function taken(path: string): OriginalsError {
  return new OriginalsError(`originals/${path} already exists: nothing is ever overwritten; choose another name (a new version goes under a new name with "replaces")`)
}
