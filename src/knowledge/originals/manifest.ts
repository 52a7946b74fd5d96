/**
 * The manifest of the originals folder: one JSON file, `originals/.manifest/manifest.json`, with an entry per
 * original (path, SHA-256, size, provenance, when its content last changed, what it replaces, whether and why it was
 * retired, what summaries were built from which hash). The knowledge root is often a team's git repository, so the
 * file is read as hostile: never through a link, bounded in size, every entry checked field by field (a bad entry is
 * dropped with a reason, never trusted); it is written atomically. Hashes stay in this file: nothing that lists
 * originals returns them.
 * @module dsh-knowledge-sync/knowledge/originals/manifest
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { writeFileAtomic } from '../disk/atomic.js'
import { originalPath, OriginalsError } from './names.js'

export const MANIFEST_VERSION = 1
/** A manifest larger than this is refused (about 40k entries). */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024

export type Provenance = { kind: 'run'; session?: string } | { kind: 'url'; url: string } | { kind: 'person' } | { kind: 'manual' }
export type RetireWhy = 'wrong' | 'replaced'
export const RETIRE_WHYS: readonly RetireWhy[] = ['wrong', 'replaced']

export interface Retirement {
  at: string
  why: RetireWhy
  reason: string
  replacedBy?: string
  /** Where the file now lives, relative to the originals folder (inside the hidden retired folder). */
  storedAs: string
}

/** What one summary was built from: the original's hash when it was ingested. */
export interface Ingest {
  sha256: string
  at: string
}

export interface OriginalEntry {
  path: string
  sha256: string
  size: number
  provenance: Provenance
  addedAt: string
  /** When the content (its hash) last changed; a touch does not move it. */
  changedAt: string
  /** The file's modification time when it was last hashed: an unchanged size and time skip the hash. */
  mtimeMs: number
  replaces?: string
  retired?: Retirement
  /** Pages (PDF) or slides (PPTX), counted for this hash. */
  counts?: { sha256: string; pages?: number; slides?: number; declaredPages?: number }
  /** Per summary document id. */
  ingests?: Record<string, Ingest>
}

export interface Manifest {
  version: number
  originals: OriginalEntry[]
}

const SHA = /^[0-9a-f]{64}$/
const isoOk = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && !Number.isNaN(Date.parse(v))
const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined)
const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined)

function provenanceOf(raw: unknown): Provenance | undefined {
  const p = raw as Record<string, unknown> | null
  if (!p || typeof p !== 'object') return undefined
  if (p.kind === 'manual' || p.kind === 'person') return { kind: p.kind }
  if (p.kind === 'run') return typeof p.session === 'string' ? { kind: 'run', session: p.session.slice(0, 200) } : { kind: 'run' }
  if (p.kind === 'url' && typeof p.url === 'string' && /^https?:\/\//i.test(p.url)) return { kind: 'url', url: p.url.slice(0, 2000) }
  return undefined
}

/** One entry checked field by field, or the reason it is dropped. */
export function entryOf(raw: unknown): OriginalEntry | string {
  const e = raw as Record<string, unknown> | null
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'not an object'
  let path: string
  try {
    path = originalPath(e.path)
  } catch (error) {
    return (error as Error).message
  }
  if (typeof e.sha256 !== 'string' || !SHA.test(e.sha256)) return `${path}: sha256 is not a hex digest`
  const size = count(e.size)
  if (size === undefined) return `${path}: size is not a count`
  const provenance = provenanceOf(e.provenance)
  if (!provenance) return `${path}: provenance is not run, url, person or manual`
  if (!isoOk(e.addedAt) || !isoOk(e.changedAt)) return `${path}: addedAt/changedAt are not dates`
  const entry: OriginalEntry = {
    path,
    sha256: e.sha256,
    size,
    provenance,
    addedAt: e.addedAt,
    changedAt: e.changedAt,
    mtimeMs: typeof e.mtimeMs === 'number' && Number.isFinite(e.mtimeMs) ? e.mtimeMs : 0,
  }
  if (e.replaces !== undefined) {
    try {
      entry.replaces = originalPath(e.replaces)
    } catch {
      return `${path}: replaces is not a path inside originals/`
    }
  }
  if (e.retired !== undefined) {
    const r = e.retired as Record<string, unknown> | null
    if (!r || typeof r !== 'object' || !isoOk(r.at) || !RETIRE_WHYS.includes(r.why as RetireWhy) || typeof r.storedAs !== 'string') return `${path}: retired is malformed`
    if (!/^\.retired\/[^\u0000]*$/.test(r.storedAs) || r.storedAs.split('/').some((p) => p === '..' || p === '')) return `${path}: retired.storedAs is outside the retired folder`
    entry.retired = {
      at: r.at,
      why: r.why as RetireWhy,
      reason: text(r.reason, 500) ?? '',
      storedAs: r.storedAs,
      ...(typeof r.replacedBy === 'string' ? { replacedBy: r.replacedBy.slice(0, 1024) } : {}),
    }
  }
  const c = e.counts as Record<string, unknown> | undefined
  if (c && typeof c === 'object' && typeof c.sha256 === 'string' && SHA.test(c.sha256)) {
    entry.counts = { sha256: c.sha256 }
    for (const k of ['pages', 'slides', 'declaredPages'] as const) if (count(c[k]) !== undefined) entry.counts[k] = count(c[k])
  }
  if (e.ingests && typeof e.ingests === 'object' && !Array.isArray(e.ingests)) {
    const ingests: Record<string, Ingest> = Object.create(null)
    for (const [id, v] of Object.entries(e.ingests as Record<string, unknown>).slice(0, 1000)) {
      const i = v as Record<string, unknown> | null
      if (id.length <= 200 && i && typeof i.sha256 === 'string' && SHA.test(i.sha256) && isoOk(i.at)) ingests[id] = { sha256: i.sha256, at: i.at }
    }
    if (Object.keys(ingests).length) entry.ingests = ingests
  }
  return entry
}

/** Parses a manifest's text: entries that fail their checks are dropped and reported; a duplicate path keeps the first. */
export function parseManifest(source: string, where: string): { manifest: Manifest; dropped: string[] } {
  let raw: unknown
  try {
    raw = JSON.parse(source)
  } catch (error) {
    throw new OriginalsError(`${where} is not valid JSON: ${(error as Error).message}`)
  }
  const list = (raw as { originals?: unknown } | null)?.originals
  if (!raw || typeof raw !== 'object' || !Array.isArray(list)) throw new OriginalsError(`${where} has no "originals" list`)
  const dropped: string[] = []
  const seen = new Set<string>()
  const originals: OriginalEntry[] = []
  for (const item of list) {
    const entry = entryOf(item)
    if (typeof entry === 'string') dropped.push(entry)
    else if (seen.has(entry.path)) dropped.push(`${entry.path}: listed twice`)
    else {
      seen.add(entry.path)
      originals.push(entry)
    }
  }
  return { manifest: { version: MANIFEST_VERSION, originals }, dropped }
}

/**
 * Reads the manifest file without following a link and within {@link MAX_MANIFEST_BYTES}; undefined when it does not
 * exist. Throws {@link OriginalsError} naming the file for anything else (a link, a FIFO, too large, not JSON).
 */
export function readManifestFile(full: string): { text: string; mtimeMs: number } | undefined {
  let fd: number
  try {
    fd = openSync(full, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') throw new OriginalsError(`${full} is a symbolic link; the manifest is never read through a link`)
    throw new OriginalsError(`cannot read ${full}: ${code ?? (error as Error).message}`)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new OriginalsError(`${full} is not a regular file`)
    if (info.size > MAX_MANIFEST_BYTES) throw new OriginalsError(`${full} is ${info.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`)
    return { text: readFileSync(fd, 'utf8'), mtimeMs: info.mtimeMs }
  } finally {
    closeSync(fd)
  }
}

/** Writes the manifest atomically (temporary file, fsync, rename), entries sorted by path for readable diffs. */
export async function writeManifestFile(full: string, manifest: Manifest): Promise<void> {
  const originals = [...manifest.originals].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  await writeFileAtomic(full, `${JSON.stringify({ version: MANIFEST_VERSION, originals }, null, 1)}\n`)
}
