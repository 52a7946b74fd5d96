/**
 * The wiki link: summary documents (front matter `type: summary`, `file: <original>`, `ingested: <date>`) name the
 * original they were built from. Found through the store's query API (every document's path from `list`, then only
 * the front matter's first lines read, never through a link), kept current by the store's change events. When a
 * summary is written and the original has not changed since its `ingested`, the original's hash is recorded in
 * the manifest for that summary, so staleness is exact: a summary is stale when the original's hash is no longer
 * the recorded one, or, with no record, when the original changed after `ingested`.
 * @module dsh-knowledge-sync/originals/summaries
 */
import { closeSync, constants, existsSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { listedPagesWithTurns } from '../knowledge/pager.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import { DEFAULT_ORIGINALS_DIR, type ListedOriginal, MANIFEST_DIR, type OriginalEntry, OriginalsFolder, originalPath } from '../knowledge/originals/index.js'
import { provideStaleSummaries } from '../knowledge/wiki/wiki.js'

const HEAD_BYTES = 4096

export interface SummaryRef {
  file: string
  ingested?: string
}

/** `type`, `file` and `ingested` from the front matter at the start of `text`, when it is a summary. */
export function summaryFields(text: string): SummaryRef | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)
  if (!m) return undefined
  const field = (name: string) => {
    const line = new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(m[1])?.[1]?.trim()
    return line?.replace(/^(["'])(.*)\1$/, '$2')
  }
  if (field('type') !== 'summary') return undefined
  const file = field('file')
  if (!file) return undefined
  try {
    const ingested = field('ingested')
    return { file: originalPath(file), ...(ingested && !Number.isNaN(Date.parse(ingested)) ? { ingested: new Date(Date.parse(ingested)).toISOString() } : {}) }
  } catch {
    return undefined
  }
}

function readHead(full: string): string {
  let fd: number
  try {
    fd = openSync(full, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch {
    return ''
  }
  try {
    const bytes = Buffer.alloc(HEAD_BYTES)
    return bytes.subarray(0, readSync(fd, bytes, 0, HEAD_BYTES, 0)).toString('utf8')
  } catch {
    return ''
  } finally {
    closeSync(fd)
  }
}

export class SummaryLinks {
  private readonly byId = new Map<string, SummaryRef>()
  private loaded?: Promise<void>

  constructor(
    private readonly store: KnowledgeStore,
    private readonly folder: OriginalsFolder,
  ) {}

  /** Follows the store's changes; returns the disposer. */
  follow(): () => void {
    return this.store.onChange((change) => {
      if (change.type === 'removed') this.byId.delete(change.id)
      else void this.look(change.id, change.path)
    })
  }

  private async look(id: string, path: string): Promise<void> {
    const ref = summaryFields(readHead(join(this.store.root, path)))
    if (!ref) {
      this.byId.delete(id)
      return
    }
    this.byId.set(id, ref)
    if (!ref.ingested) return
    const entry = (await this.folder.entries()).find((e) => e.path === ref.file)
    const recorded = entry?.ingests?.[id]
    const newer = !recorded || Date.parse(ref.ingested) > Date.parse(recorded.at)
    // Only when the original has not changed since the summary's `ingested`: then its current hash is what was read.
    if (entry && newer && Date.parse(ref.ingested) >= Date.parse(entry.changedAt)) await this.folder.recordIngest(ref.file, id)
  }

  /** Reads every document's front matter once (in pages, yielding between them). */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      for await (const page of listedPagesWithTurns(this.store, { status: 'all' })) for (const item of page) await this.look(item.id, item.path)
    })()
    return this.loaded
  }

  /** The ids of the summaries whose original changed after they were written (for the wiki's catalogue). */
  async staleIds(): Promise<Set<string>> {
    await this.load()
    const entries = new Map((await this.folder.entries()).map((e) => [e.path, e]))
    const stale = new Set<string>()
    for (const [id, ref] of this.byId) {
      const entry = entries.get(ref.file)
      if (entry && isStale(entry, id, ref)) stale.add(id)
    }
    return stale
  }

  /** Adds `summaries` and `staleSummaries` to each listed original (one pass over the summaries, not one per original). */
  async annotate(listed: ListedOriginal[]): Promise<ListedOriginal[]> {
    const stale = await this.staleIds()
    const byFile = new Map<string, string[]>()
    for (const [id, ref] of this.byId) {
      const ids = byFile.get(ref.file)
      if (ids) ids.push(id)
      else byFile.set(ref.file, [id])
    }
    return listed.map((item) => {
      const ids = byFile.get(item.path) ?? []
      return { ...item, summaries: ids, staleSummaries: ids.filter((id) => stale.has(id)) }
    })
  }
}

export function isStale(entry: OriginalEntry, id: string, ref: SummaryRef | undefined): boolean {
  const recorded = entry.ingests?.[id]
  if (recorded) return recorded.sha256 !== entry.sha256
  if (!ref?.ingested) return false
  return Date.parse(entry.changedAt) > Date.parse(ref.ingested)
}

/**
 * For a process without the originals row (the CLI, the MCP server): marks stale summaries in the wiki's catalogue
 * from the manifest of `folder` (the row's default unless told), rescanning the folder first (no watcher here). A
 * root without a manifest is left as it is: a read command creates no folder. A folder named outside the root throws.
 */
export function markStaleSummaries(store: KnowledgeStore, folder = DEFAULT_ORIGINALS_DIR): void {
  const originals = new OriginalsFolder({ root: store.root, folder })
  if (!existsSync(join(originals.dir, MANIFEST_DIR))) return
  try {
    originals.open()
    const links = new SummaryLinks(store, originals)
    provideStaleSummaries(store, () => originals.scan().then(() => links.staleIds()))
  } catch {
    /* a folder that is a link or unreadable: no stale marks (originals list says why) */
  }
}
