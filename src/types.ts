/**
 * Types shared by every row, the CLI and the tests. Types only: no values live here.
 * @module dsh-knowledge-sync/types
 */

import type { DocKind, DocStatus, Outcome } from './wire.js'

export type { DocKind, DocStatus, Outcome }

/** One tool call of a round, as the model made it. */
export interface ToolCall {
  name: string
  /** The raw arguments, as the model sent them (usually a JSON string). */
  arguments: string
  /** The tool's result text; never written to disk unless `capture.keepFailedResults` asks for failed ones. */
  result?: string
  isError?: boolean
}

/** One conversation round, folded from session events (or given to `dsh-knowledge capture`). No reasoning, ever. */
export interface Round {
  /** The dsh session id, e.g. `session-3f2a…`. */
  session: string
  /** 1-based turn number within the session. */
  turn: number
  /** The session's working directory. */
  cwd: string
  /** ISO 8601 UTC. */
  created: string
  /** The user's own words (messages with `source.kind === 'user'`), joined by blank lines. */
  question: string
  /** The text of the round's final assistant message. */
  answer: string
  outcome: Outcome
  tools: ToolCall[]
  /**
   * The question the agent's previous answer in this session ended on, when this round's message answers it
   * ("Which package manager?" … "pnpm, always"): kept with the stating round so the fact reads whole.
   */
  asked?: string
  /** The message corrects a fact an earlier kept round of this session stated (capture/corrected.ts): a stated correction. */
  corrects?: boolean
}

/** A deterministic judgement of whether a round carries knowledge. */
export interface Salience {
  score: number
  /** Short machine-readable reasons, signals as `+name` and penalties as `-name`, e.g. `+cause`, `-terse-status`. */
  reasons: string[]
}

/** Token accounting of one distillation call. */
export interface DistillCost {
  provider: string
  model: string
  tokensIn: number
  tokensOut: number
  at: string
}

/** The YAML front matter of a document. Unknown keys of hand-written files are kept as they are. */
export interface FrontMatter {
  id: string
  title: string
  kind: DocKind
  created: string
  cwd: string
  session?: string
  turn?: number
  outcome?: Outcome
  tools: string[]
  tags: string[]
  salience?: Salience
  /** How many values redaction masked in this document. */
  redacted?: number
  distill?: DistillCost
  /** Absent = active (see {@link DocStatus}). */
  status?: DocStatus
  /** The successor of a superseded document. */
  superseded_by?: string
  /** Ids this document replaces. */
  supersedes?: string[]
  /** When and why the document was retired (the reason is redacted). */
  retired?: { at: string; reason: string }
  [key: string]: unknown
}

/** A document as the store knows it. `path` is relative to the store's root, with `/` separators. */
export interface KnowledgeDoc {
  id: string
  path: string
  meta: FrontMatter
  /** The Markdown body after the front matter. */
  body: string
  /** File modification time, ms since the epoch. */
  mtimeMs: number
  /** Hash of the file's text (see `contentHash`): what "the document changed" means. */
  hash?: string
  /** The store-assigned revision (`v:N`) of this text. */
  version?: number
  /** What the file looked like when it was read (the persisted index's manifest entry). */
  stamp?: FileStamp
  /** The store's record of the document's links and status (opaque to the index, which keeps it for a restart). */
  relations?: string
}

/** Size, change time and content hash of a document file, and when they were taken (for the index cache). */
export interface FileStamp {
  size: number
  ctimeMs: number
  /** A hash of the file's text: the content check for files whose times cannot be trusted. */
  hash: string
  /** When the file was stat'ed; a file modified within the file system's time granularity of this is re-hashed. */
  seenMs: number
}

/** What redaction did to one piece of text. */
export interface Redaction {
  text: string
  count: number
  /** Masked values per credential family, e.g. `{ aws: 2, github: 1 }`. */
  families: Record<string, number>
  /**
   * The distinct values that were masked, with their family, so other fields of the same document can mask them too
   * (see redact/propagate). Non-enumerable where the redactor sets it, so it never reaches JSON output or a log.
   */
  values?: Array<{ value: string; family: string }>
}

/** Filters shared by `knowledge_search`, the CLI and the HTTP routes. */
export interface SearchFilter {
  kind?: DocKind
  /** Only ids that start with this (a wiki page type: `concept/`). */
  idPrefix?: string
  tag?: string
  /** A glob over tool names, e.g. `bash*`. */
  tool?: string
  /**
   * The visible workspace (the scoping rule's output): documents whose `cwd` is this directory or below it, plus
   * documents with no `cwd` (hand-written, global). Undefined = everything under the root.
   */
  scope?: string
  /** Which standings to include; default: active and superseded (retired documents leave search). `all`: every one. */
  status?: DocStatus | 'all'
  limit?: number
  offset?: number
  /** Hits without a snippet or a revision (the same ids, ranks and scores): the health probe, one search a document. */
  bare?: boolean
}

/** A snippet as plain text and its matches: [start, end) offsets into `text`, in order, never overlapping. */
export interface Excerpt {
  text: string
  marks: Array<[number, number]>
}

/** One search result. */
export interface SearchHit {
  id: string
  title: string
  kind: DocKind
  score: number
  /** Plain text with each query match wrapped in `**…**` (the convention the model and the CLI read). */
  snippet: string
  /** The same snippet as plain text and match offsets (the page draws highlight spans from it). */
  excerpt?: Excerpt
  path: string
  cwd: string
  tags: string[]
  tools: string[]
  created: string
  /** When the file last changed (its mtime), apart from `created` (front matter). */
  updated?: string
  /** Absent = active. */
  status?: DocStatus
  /** The successor's id, for a superseded document. */
  supersededBy?: string
  /** The store-assigned revision (`v:N`). */
  version?: number
}

/** The part of a dsh session the tool rows read (its id, workspace and events), from a tool call's or prompt's agent. */
export interface SessionLike {
  id: string
  header?: { cwd?: string }
  events?: ReadonlyArray<{ type: string; data?: unknown }>
}
