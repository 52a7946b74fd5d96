/**
 * The vocabulary shared by the server rows and the browser module: document kinds, round outcomes, and the JSON
 * shapes the knowledge-http routes return. The client imports this file too (esbuild bundles it), so a kind or a
 * field is declared once. Values here are plain constants with no imports.
 * @module dsh-knowledge-sync/wire
 */
import type { WorkspaceGroup } from './wire-workspaces.js'

/**
 * What a document is: a captured round, a deliberate note, a distilled round, a hand-written file, a person's
 * preference, or a wiki page (its page type is front matter `type` and the first part of its id, `concept/…`).
 * At most eight: the search index keeps the kind in three bits of a rowid.
 */
export const DOC_KINDS = ['raw', 'note', 'distilled', 'manual', 'preference', 'page'] as const
export type DocKind = (typeof DOC_KINDS)[number]

/**
 * Ids are file-name safe: no dot segments, bounded; at most one `/`, after a lowercase page type (`concept/spring-tides`,
 * a wiki page's id). An id never names a file by itself: the store maps it to a path it checked.
 */
export const ID_PATTERN = /^(?:[a-z][a-z0-9-]{0,31}\/)?[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/
export const MAX_ID_LENGTH = 128

/** True when `id` can name a document: refuses `../`, absolute paths, NUL and anything else outside the pattern. */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id)
}

/** Hits a `knowledge_search` chat card lists (the model's text has them all), and the longest query or title in it. */
export const SEARCH_CARD_HITS = 8
export const SEARCH_CARD_TEXT = 200

/** Ends the one-line status notice the store writes under a document's title ("Superseded by …", "Retired on …"). */
export const NOTICE_MARK = '<!-- knowledge:status -->'

/** An upstream section's start marker line (sync writes it; group 1 is the section name). */
export const UPSTREAM_START_LINE = /^[ \t]*<!--[ \t]*upstream:start[ \t]+name="([^"\r\n]{1,200})"[ \t]*-->[ \t]*$/
/** An upstream section's end marker line. */
export const UPSTREAM_END_LINE = /^[ \t]*<!--[ \t]*upstream:end[ \t]*-->[ \t]*$/
/** The provenance line sync writes first inside a section; group 1 is the URL or path. */
export const UPSTREAM_SOURCE_LINE = /^<!-- upstream:source (.{1,2000}?) -->$/

/** How many ranked matches a knowledge_search counts beyond the hits it returns (the chat row's "8 of 85"). */
export const SEARCH_COUNT_WINDOW = 100

/**
 * The search row's line: `Searched "<q>": <n> hits`, or `… 8 of 85 hits` when more documents matched than the tool
 * returned (`+` when the count stopped at its window). One spelling for dsh's card and the page's row.
 */
export function searchSummary(query: string, hits: number, total?: number, more?: boolean): string {
  const of = total !== undefined && (total > hits || more) ? `${hits} of ${total}${more ? '+' : ''} hits` : hits === 1 ? '1 hit' : `${hits} hits`
  return `Searched "${query.slice(0, 80)}": ${of}`
}

/** A document's standing: absent in the front matter = `active`. Retired documents stay on disk, out of search. */
export const DOC_STATUSES = ['active', 'superseded', 'retired'] as const
export type DocStatus = (typeof DOC_STATUSES)[number]

/** How a round ended. Only `completed` rounds are ever written. */
export const OUTCOMES = ['completed', 'no-answer', 'aborted', 'errored', 'blocked', 'max-tokens', 'interrupted'] as const
export type Outcome = (typeof OUTCOMES)[number]

/** Facet counts over the documents a filter selects. Tag keys are lowercased; workspace keys are `cwd` ('' = global). */
export interface Facets {
  kinds: Record<string, number>
  tags: Record<string, number>
  tools: Record<string, number>
  workspaces: Record<string, number>
}

/** One row of the document list: a search hit (with `q`) or a metadata row (without). */
export interface DocumentItem {
  id: string
  title: string
  kind: DocKind
  cwd: string
  created: string
  /** When the file last changed (its mtime): a sync or an edit moves this, never `created`. */
  updated?: string
  tags: string[]
  tools: string[]
  path: string
  /** Absent = active. */
  status?: DocStatus
  /** The successor's id, for a superseded document. */
  supersededBy?: string
  /** The store-assigned revision (`v:N`): +1 on every change of the file's text. */
  version?: number
  /** The workspace the scoping rule puts `cwd` in (a git root, or the folder): the row names it with the path inside. */
  workspace?: string
  /** Search hits only. */
  score?: number
  snippet?: string
  /** The snippet as plain text and match offsets: the page draws these as highlight spans, never as Markdown. */
  excerpt?: { text: string; marks: Array<[number, number]> }
}

/** `GET <prefix>/documents`. */
export interface DocumentPage {
  /** Matching documents; with `more`, a lower bound (search reads one page ahead, not the whole ranking). */
  total: number
  more?: boolean
  offset: number
  items: DocumentItem[]
  facets: Facets
  /** The workspace filter's entries: `facets.workspaces` grouped by the scoping rule, named and counted. */
  workspaces?: WorkspaceGroup[]
  scope: string | null
}

/** The YAML front matter of one document as the page reads it (every field may be absent in a hand-written file). */
export interface WireFrontMatter {
  id?: string
  title?: string
  kind?: string
  created?: string
  cwd?: string
  session?: string
  turn?: number
  outcome?: string
  tools?: unknown
  tags?: unknown
  salience?: { score?: number; reasons?: unknown }
  redacted?: number
  [key: string]: unknown
}

/** A computed link between documents (by id), as the page shows it. */
export interface DocumentLink {
  id: string
  title: string
  status?: DocStatus
}

/** `GET <prefix>/documents/<id>`. */
export interface DocumentFile {
  id: string
  /** The revision of the text returned (`v:N`). */
  version?: number
  path: string
  /** The file's absolute path on this machine (what "Copy full path" copies). */
  file?: string
  /** When the file last changed (its mtime). */
  updated?: string
  meta: WireFrontMatter
  body: string
  /** Computed, never written: documents linking here, and the successor of a superseded document. */
  linkedFrom?: DocumentLink[]
  supersededBy?: DocumentLink
  supersedes?: DocumentLink[]
}

/** `POST <prefix>/documents/<id>/retire` (a reason is required) and `…/restore`. */
export interface StatusRequest {
  reason?: string
}

/** The answer of a status route. */
export interface StatusResult {
  id: string
  status: DocStatus
}

/** What the ledger says of rounds. */
export interface RoundStats {
  kept: number
  dropped: number
  /** Top reasons of dropped rounds, most frequent first. */
  dropReasons: Array<{ reason: string; count: number }>
  unanswered: Record<string, number>
  failed: number
  lastFailure?: string
  notes: number
  redacted: number
  distill: {
    calls: number
    failed: number
    skipped: Record<string, number>
    tokensIn: number
    tokensOut: number
    /** Calls (successful or failed) per UTC day (`YYYY-MM-DD`), for the budget. */
    perDay: Record<string, number>
  }
}

/** `GET <prefix>/stats`. */
export interface Stats {
  root: string
  scope: string | null
  documents: number
  byKind: Record<string, number>
  byWorkspace: Record<string, number>
  redactionEnabled: boolean
  rounds: RoundStats
  invalidFiles: Array<{ path: string; error: string }>
}

/** The sections of the live settings namespace. */
export const SETTINGS_SECTIONS = ['redact', 'capture', 'recall'] as const
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]

export interface ConfigSection {
  /** The owning row's own config. */
  inherited: Record<string, unknown>
  /** With the user's overrides laid over it. */
  effective: Record<string, unknown>
  /** The user layer of this section. */
  overrides: Record<string, unknown>
}

/** `GET <prefix>/config`. */
export interface ConfigView {
  /** A settings service is attached to the store row. */
  attached: boolean
  /** Only the sections whose rows are running. */
  sections: Partial<Record<SettingsSection, ConfigSection>>
}

/** The Health and History routes' shapes (kept in their own file; part of this vocabulary). */
export type { WorkspaceGroup } from './wire-workspaces.js'
export type { DocumentHistory, GrowthDay, HealthHistoryPoint, HealthReport, HealthView, HistoryDiff, HistoryRevision } from './wire-reports.js'

/** Per-source results of knowledge sync (`dsh-knowledge sync`, the Sources tab). */
export const SYNC_STATUSES = [
  'unchanged',
  'changed',
  'would-change',
  'source-missing',
  'fetch-error',
  'too-large',
  'missing-section',
  'target-missing',
  'invalid-target',
  'marker-error',
  'write-error',
  'conflict-suppressed',
] as const
export type SyncStatus = (typeof SYNC_STATUSES)[number]

/** What happened to one source in one run. */
export interface SyncResult {
  name: string
  /** `local`, `http`, `https`, or `sources.yml` for a whole-file problem. */
  type: string
  /** The URL or the local path. */
  source: string
  target: { file: string; section: string } | null
  status: SyncStatus
  /** One line saying why. */
  reason: string
  /** Served without any network round trip (a 304 revalidation is not). */
  from_cache?: boolean
  /** Dry runs: a unified diff of the target document. */
  diff?: string
}

/** `dry-run` or `sync` over the routes, and the CLI's `--json`. */
export interface SyncReport {
  at: string
  dryRun: boolean
  results: SyncResult[]
}

/** One row of the Sources tab. */
export interface SourceRow {
  name: string
  type: string
  source: string
  target: { file: string; section: string } | null
  origin: 'declared' | 'decision' | 'invalid'
  last?: { status: SyncStatus; reason: string; at: string; from_cache?: boolean }
  /** Cache state of an http source: when fetched, whether still within cache_ttl. */
  cache?: { fetchedAt: string; fresh: boolean; etag: boolean; lastModified: boolean; bytes: number } | null
}

/** `GET <prefix>/sources`. */
export interface SourcesView {
  available: boolean
  file: string
  exists: boolean
  error?: string
  lastRun?: string
  sources: SourceRow[]
}

/** `GET <prefix>/rounds`: the recent rounds' salience, for the page's chart of what the bar keeps. */
export interface RecentRounds {
  /** The bar in force (capture's effective `salience.minScore`), or null when the capture row is not running. */
  minScore: number | null
  /** Newest last. Titles are redacted; dropped rounds carry their first drop reason. */
  rounds: Array<{ at: string; kept: boolean; score: number; title: string; reason?: string; id?: string }>
}

/** `GET <prefix>/rounds?session=<id>`: what became of each round of one session (the chat's marker), by turn. */
export interface SessionRounds {
  session: string
  /** By turn number: kept (with the document's id while it exists) or dropped (with the salience reasons). */
  turns: Record<number, { kept: boolean; score: number; id?: string; reasons?: string[] }>
}

// ---- The Originals, Wiki and in-place edit routes (issues 26, 27): their JSON shapes, for the page.

export type OriginalProvenance = { kind: 'run'; session?: string } | { kind: 'url'; url: string } | { kind: 'person' } | { kind: 'manual' }

/** One original in the Originals view (no hash leaves the manifest); `problem`: why it cannot be read as it is. */
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
  problem?: string
  /** Summary pages built from it; `stale` when the original changed after they were written. */
  summaries: Array<{ id: string; title: string; stale: boolean; status: string }>
  /** `text` opens (a PDF's too, page by page); `none`: image or other; `unreadable`: not a plain file now. */
  extraction: 'text' | 'none' | 'unreadable' | 'missing' | 'retired'
}

/** `GET /originals` (`available` false: the originals row is off); `folder` relative to the root. */
export interface OriginalsView {
  available: boolean
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

/** One line of the wiki's catalogue (`stale`: a summary whose original changed after it was written). */
export interface WikiEntry {
  id: string
  title: string
  type: string
  summary: string
  fields: Array<[string, string]>
  stale?: boolean
}

/** `GET /wiki`: the index grouped by type, what else is counted, the overview, the last log entries. */
export interface WikiView {
  available: boolean
  types: Array<{ type: string; section: string; description: string }>
  sections: Array<{ section: string; type: string; entries: WikiEntry[] }>
  pages: number
  others: Record<string, number>
  overview?: { id: string; title: string; content: string; version?: number }
  log: Array<{ at: string; operation: string; what: string; pages: string[] }>
}

/** `GET /editable?id=`: what the editor starts from; `POST /documents/<id>/edit` answers {@link EditResult}. */
export interface EditableView {
  id: string
  as: 'page' | 'note'
  title: string
  content: string
  version: number | undefined
}

export interface EditResult {
  id: string
  version: number
  redacted: number
}
