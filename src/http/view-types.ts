/**
 * The JSON shapes of the Originals, Wiki and in-place edit routes, shared with the browser module (types only; the
 * client imports them as `import type`, so nothing of the server is bundled).
 * @module dsh-knowledge-sync/http/view-types
 */

/** Where an original came from, as the manifest records it. */
export type OriginalProvenance = { kind: 'run'; session?: string } | { kind: 'url'; url: string } | { kind: 'person' } | { kind: 'manual' }

/** One original as the Originals view lists it (no hash ever leaves the manifest). */
export interface OriginalRow {
  path: string
  status: 'present' | 'missing' | 'retired'
  type: string
  size: number
  addedAt: string
  changedAt: string
  provenance: OriginalProvenance
  replaces?: string
  pages?: number
  slides?: number
  declaredPages?: number
  retired?: { at: string; why: 'wrong' | 'replaced'; reason: string; replacedBy?: string }
  /** Why the file cannot be read as it is (a link swapped in, not a regular file). */
  problem?: string
  /** Summary pages built from it; `stale` when the original changed after they were written. */
  summaries: Array<{ id: string; title: string; stale: boolean; status: string }>
  /**
   * `text`: its text can be opened; `counted`: a PDF, pages counted, text not extracted; `none`: an image or another
   * format; `unreadable`: the file is not a plain file now; `missing` / `retired`: not in the folder.
   */
  extraction: 'text' | 'counted' | 'none' | 'unreadable' | 'missing' | 'retired'
}

export interface OriginalsView {
  /** False when the knowledge-originals row is not running. */
  available: boolean
  /** The folder, relative to the root. */
  folder: string
  originals: OriginalRow[]
}

/** `GET /originals/text`: one page of an original's extracted, redacted text. */
export interface OriginalText {
  path: string
  text: string
  unit: string
  total: number
  from: number
  to: number
  next?: number
}

/** One line of the wiki's catalogue. */
export interface WikiEntry {
  id: string
  title: string
  type: string
  summary: string
  fields: Array<[string, string]>
  /** A summary whose original changed after it was written. */
  stale?: boolean
}

/** `GET /wiki`: the index grouped by type, the overview and the last entries of the operation log. */
export interface WikiView {
  available: boolean
  types: Array<{ type: string; section: string; description: string }>
  sections: Array<{ section: string; type: string; entries: WikiEntry[] }>
  pages: number
  /** Documents that are not pages, by kind (only counted). */
  others: Record<string, number>
  overview?: { id: string; title: string; content: string; version?: number }
  log: Array<{ at: string; operation: string; what: string; pages: string[] }>
}

/** `GET /editable?id=`: what the editor starts from. */
export interface EditableView {
  id: string
  as: 'page' | 'note'
  title: string
  content: string
  version: number | undefined
}

/** `POST /documents/<id>/edit`: the new revision. */
export interface EditResult {
  id: string
  version: number
  redacted: number
}
