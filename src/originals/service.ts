/**
 * What the tools, the CLI and the page do with originals, in one place: list (with stale summaries), extract
 * (redacted), save a file in, download a URL, retire. Every text bound for a model passes the store's redactor.
 * @module dsh-knowledge-sync/originals/service
 */
import { closeSync, createReadStream, readdirSync, realpathSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, resolve, sep } from 'node:path'
import type { KnowledgeStore } from '../knowledge/store.js'
import { type Added, type ListedOriginal, type OriginalsFolder, OriginalsError, type Provenance, RETIRE_WHYS, type RetireWhy, typeOf } from '../knowledge/originals/index.js'
import type { SafeFetcher } from '../net/fetcher.js'
import { type Downloaded, downloadOriginal } from './download.js'
import { type ExtractResult, extractText } from './extract/index.js'
import type { SummaryLinks } from './summaries.js'

/** The largest file copied in from disk. */
export const MAX_COPY_BYTES = 512 * 1024 * 1024

/** The JSON shape of `originals list --json`, one per original. */
export interface ListedJson {
  path: string
  status: string
  changedAt: string
  type: string
  size: number
  provenance: Provenance
  replaces?: string
  pages?: number
  slides?: number
  staleSummaries: string[]
}

export function listedJson(item: ListedOriginal): ListedJson & Partial<ListedOriginal> {
  const { path, status, changedAt, type, size, provenance, replaces, pages, slides, staleSummaries, ...rest } = item
  return {
    path,
    status,
    changedAt,
    type,
    size,
    provenance,
    ...(replaces ? { replaces } : {}),
    ...(pages !== undefined ? { pages } : {}),
    ...(slides !== undefined ? { slides } : {}),
    staleSummaries: staleSummaries ?? [],
    ...rest,
  }
}

/**
 * Finds `name` in `dir` tolerating another Unicode normalisation of accented names (NFC typed, NFD on disk, or the
 * reverse) for every segment. Returns the path as the disk spells it, or undefined.
 */
export function findNormalized(dir: string, name: string): string | undefined {
  let current = dir
  for (const part of name.split(/[\\/]/).filter(Boolean)) {
    if (part === '..' || part === '.') {
      current = resolve(current, part)
      continue
    }
    let entries: string[]
    try {
      entries = readdirSync(current)
    } catch {
      return undefined
    }
    const found = entries.find((e) => e === part) ?? entries.find((e) => e.normalize('NFC') === part.normalize('NFC'))
    if (found === undefined) return undefined
    current = join(current, found)
  }
  return current
}

export class OriginalsService {
  constructor(
    readonly store: KnowledgeStore,
    readonly folder: OriginalsFolder,
    readonly fetcher: () => SafeFetcher,
    readonly summaries?: SummaryLinks,
  ) {}

  async list(): Promise<ListedOriginal[]> {
    const listed = await this.folder.list()
    return this.summaries ? this.summaries.annotate(listed) : listed.map((l) => ({ ...l, summaries: [], staleSummaries: [] }))
  }

  /** The original's text, units `from`…`to`, redacted. */
  async extract(source: unknown, from?: unknown, to?: unknown): Promise<ExtractResult> {
    const { entry, fd } = await this.folder.openForReading(source)
    try {
      const got = await extractText(fd, entry.path, typeOf(entry.path), { from: number(from, 'from'), to: number(to, 'to') })
      return { ...got, text: (await this.store.redact(got.text)).text }
    } finally {
      closeSync(fd)
    }
  }

  /**
   * Copies `source` into the folder as `destination`. `within` (the run's folder) confines where it may come from:
   * its real path must lie inside it, so a tool cannot copy a key from elsewhere on the machine into a shared repo.
   */
  async save(source: unknown, destination: unknown, provenance: Provenance, options: { within?: string; cwd: string; replaces?: unknown }): Promise<Added> {
    if (typeof source !== 'string' || !source.trim()) throw new OriginalsError('source: a file path is required')
    const base = options.cwd
    const given = isAbsolute(source) ? source : resolve(base, source)
    const full = findNormalized(isAbsolute(source) ? sep : base, isAbsolute(source) ? given.slice(1) : source)
    if (!full) throw new OriginalsError(`${source}: no such file (also looked for it under another Unicode normalisation)`)
    const real = realpathSync.native(full)
    if (options.within) {
      const root = realpathSync.native(options.within)
      if (real !== root && !real.startsWith(root + sep)) throw new OriginalsError(`${source} is outside the run's folder (${options.within}); ask the person with request_file instead`)
    }
    if (real === this.folder.dir || real.startsWith(this.folder.dir + sep)) throw new OriginalsError(`${source} is already in the originals folder`)
    const info = statSync(real)
    if (!info.isFile()) throw new OriginalsError(`${source} is not a regular file`)
    const dest =
      typeof destination === 'string' && destination.trim() && !destination.endsWith('/') ? destination : `${typeof destination === 'string' ? destination : ''}${basename(full).normalize('NFC')}`
    return this.folder.add(createReadStream(real), dest, provenance, { maxBytes: MAX_COPY_BYTES, what: source, replaces: options.replaces })
  }

  download(url: unknown, destination: unknown, replaces?: unknown): Promise<Downloaded> {
    if (typeof url !== 'string') throw new OriginalsError('url: a URL is required')
    return downloadOriginal(this.folder, this.fetcher(), url, destination, { replaces, redact: async (text) => (await this.store.redact(text)).text })
  }

  async retire(source: unknown, why: unknown, reason: unknown, replacedBy?: unknown) {
    if (!RETIRE_WHYS.includes(why as RetireWhy)) throw new OriginalsError('why must be "wrong" or "replaced"')
    if (typeof reason !== 'string' || !reason.trim()) throw new OriginalsError('reason: say why, in one sentence')
    const entry = await this.folder.resolve(source)
    const redacted = (await this.store.redact(reason.trim().slice(0, 500))).text
    const retired = await this.folder.retire(entry.path, why as RetireWhy, redacted, replacedBy)
    const summaries = (await this.list()).find((l) => l.path === entry.path)?.summaries ?? []
    return { entry: retired, summaries }
  }
}

function number(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const n = typeof value === 'string' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new OriginalsError(`${name} must be a whole number from 1`)
  return n
}
