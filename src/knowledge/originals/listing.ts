/**
 * How an original is listed: what `list_sources`, the CLI's `originals list --json` and the page show. No hash
 * leaves the manifest: an entry is listed with its status, when its content last changed, its type, size,
 * provenance and what it replaces.
 * @module dsh-knowledge-sync/knowledge/originals/listing
 */
import type { OriginalEntry, Provenance, Retirement } from './manifest.js'
import { type OriginalType, typeOf } from './names.js'

export type OriginalStatus = 'present' | 'missing' | 'retired'

/** Counts a file's pages (PDF) or slides (PPTX) without parsing it whole, from a descriptor opened without following links. */
export type PageCounter = (fd: number, path: string) => Promise<{ pages?: number; slides?: number; declaredPages?: number }>

export interface ListedOriginal {
  path: string
  status: OriginalStatus
  changedAt: string
  addedAt: string
  type: OriginalType
  size: number
  provenance: Provenance
  replaces?: string
  pages?: number
  slides?: number
  /** A PDF whose page tree claims another number of pages than it holds. */
  declaredPages?: number
  retired?: Omit<Retirement, 'storedAs'>
  /** Why the file cannot be read as it is (a link swapped in, not a regular file). */
  problem?: string
  /** Summary documents built from it (filled in by the row that reads the store's summaries). */
  summaries?: string[]
  staleSummaries?: string[]
}

export function listEntry(entry: OriginalEntry, present: boolean, problem: string | undefined): ListedOriginal {
  const status: OriginalStatus = entry.retired ? 'retired' : present ? 'present' : 'missing'
  const counts = entry.counts?.sha256 === entry.sha256 ? entry.counts : undefined
  return {
    path: entry.path,
    status,
    changedAt: entry.changedAt,
    addedAt: entry.addedAt,
    type: typeOf(entry.path),
    size: entry.size,
    provenance: entry.provenance,
    ...(entry.replaces ? { replaces: entry.replaces } : {}),
    ...(counts?.pages !== undefined ? { pages: counts.pages } : {}),
    ...(counts?.slides !== undefined ? { slides: counts.slides } : {}),
    ...(counts?.declaredPages !== undefined ? { declaredPages: counts.declaredPages } : {}),
    ...(entry.retired
      ? { retired: { at: entry.retired.at, why: entry.retired.why, reason: entry.retired.reason, ...(entry.retired.replacedBy ? { replacedBy: entry.retired.replacedBy } : {}) } }
      : {}),
    ...(problem && status !== 'retired' ? { problem } : {}),
  }
}
