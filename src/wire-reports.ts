/**
 * What the Health and History routes return (`GET <prefix>/health`, `/health/last`, `POST /health/run`,
 * `GET <prefix>/history`, `/history/diff`) and `dsh-knowledge health|history --json` print; re-exported by
 * `wire.ts`, the one vocabulary the page imports. Types only.
 * @module dsh-knowledge-sync/wire-reports
 */

/** Rounds kept and dropped (by reason) and notes written on one UTC day, from the ledger. */
export interface GrowthDay {
  day: string
  kept: number
  dropped: number
  notes: number
  reasons: Record<string, number>
}

/** One recorded health probe. */
export interface HealthHistoryPoint {
  at: string
  scope: string | null
  documents: number
  probed: number
  recallAt5: number
  mrr: number
}

/** `dsh-knowledge health --json`, and `POST <prefix>/health/run`. */
export interface HealthReport extends HealthHistoryPoint {
  /** Documents their own title and finding do not find in the top 5. */
  unfindable: Array<{ id: string; title: string; query: string }>
  /** How many probed documents were not found (the list stops at 50). */
  unfindableTotal: number
  /** Pairs of active documents in one workspace whose words mostly coincide: candidates to supersede one with the other. */
  nearDuplicates: Array<{ a: string; b: string; aTitle: string; bTitle: string; similarity: number }>
  /** How many near-duplicate pairs were found (the list stops at 50). */
  nearDuplicatesTotal: number
  growth: GrowthDay[]
  history: HealthHistoryPoint[]
  ms: number
}

/** `GET <prefix>/health`: what the Health panel draws without probing again. */
export interface HealthView {
  /** The last probe this process ran from the page (kept until it restarts), so switching tabs keeps the findings. */
  last?: HealthReport
  /** A probe from the page is running: how far it got. */
  running?: { done: number; total: number }
  documents: number
  history: HealthHistoryPoint[]
  growth: GrowthDay[]
}

/** One revision in a document's history (`GET <prefix>/history?id=`, `dsh-knowledge history <id>`), newest first. */
export interface HistoryRevision {
  /** What a diff takes: a commit's 12-digit prefix (git), `v<N>` (local history), or `current` (the file now). */
  ref: string
  /** When: the commit's author date, the time the store saw the text, or the file's modification time. */
  at: string
  /** git: the commit's author name and subject line (redacted). */
  author?: string
  subject?: string
  /** The store's revision number, where known (local history). */
  version?: number
  /** False when only the revision's existence is known (its text was too large to keep). */
  hasText: boolean
}

/** A document's revisions, from git when the root is in a repository, else from the bounded local history. */
export interface DocumentHistory {
  id: string
  path: string
  source: 'git' | 'local'
  revisions: HistoryRevision[]
  /** Older revisions exist than the list shows (over the commit bound, or dropped by the local history's bound). */
  more: boolean
  /** The bounds in force: at most `commits` commits listed (git); `perDocument` revisions and `bytes` in all (local). */
  limits: { commits?: number; perDocument?: number; bytes?: number }
  /** The store's revision count (`v:N`). */
  version?: number
}

/** The line diff between two revisions of one document (both redacted), as unified-diff hunks. */
export interface HistoryDiff {
  id: string
  from: string
  to: string
  added: number
  removed: number
  hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }>
  /** The two texts differ too much for a line diff within its bound: only the counts of lines are given. */
  tooLarge?: boolean
}
