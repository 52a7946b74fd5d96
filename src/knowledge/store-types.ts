/**
 * The store's vocabulary: what a write returns, a prepared (not yet written) document, change events, the logger and
 * the constructor's options. Re-exported by `store.ts`, so callers keep importing them from there.
 * @module dsh-knowledge-sync/knowledge/store-types
 */
import type { FrontMatter, Redaction } from '../types.js'
import type { Redactor } from '../redact/redactor.js'
import type { SearchIndexOptions } from '../search/search-index.js'

/** A document as written: its id, root-relative path, front matter, redaction count and revision. */
export interface WrittenDocument {
  id: string
  path: string
  meta: FrontMatter
  redaction: Redaction
  /** The revision the write created (`v:N`). */
  version?: number
}

/** A redacted, formatted document not yet on disk. */
export interface PreparedDocument extends WrittenDocument {
  body: string
  /** The whole file text. */
  text: string
  /** Files of the same round already on disk: the first is overwritten in place, any others are removed. */
  replaced?: string[]
}

/** A document written or removed, by this process or another on the same root. */
export type StoreChange = { type: 'written' | 'removed'; id: string; path: string; kind?: string; cwd?: string }

/** The store's logger (cordis's logger fits). */
export interface StoreLogger {
  info(format: string, ...args: unknown[]): void
  warn(format: string, ...args: unknown[]): void
  debug(format: string, ...args: unknown[]): void
}

/** How a store is opened. */
export interface KnowledgeStoreOptions {
  root: string
  redactor: Redactor
  logger?: StoreLogger
  /** Watch the root for changes made by others (default true). */
  watch?: boolean
  index?: SearchIndexOptions
}
