/**
 * The store's public shapes (what a write returns, change events, the logger, options), apart from the class so that
 * its helpers can name them without importing it.
 * @module dsh-knowledge-sync/knowledge/store-types
 */
import type { FrontMatter, Redaction } from '../types.js'
import type { Redactor } from '../redact/redactor.js'
import type { SearchIndexOptions } from '../search/search-index.js'

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

/**
 * The tag capture gives a round in which the person stated how they want work done; recall reads it to suggest a
 * preference note (the two rows never import each other: the name lives with the store they share).
 */
export const PREFERENCE_STATED_TAG = 'preference-stated'

export type StoreChange = { type: 'written' | 'removed'; id: string; path: string; kind?: string; cwd?: string }

export interface StoreLogger {
  info(format: string, ...args: unknown[]): void
  warn(format: string, ...args: unknown[]): void
  debug(format: string, ...args: unknown[]): void
}

export interface KnowledgeStoreOptions {
  root: string
  redactor: Redactor
  logger?: StoreLogger
  /** Watch the root for changes made by others (default true). */
  watch?: boolean
  index?: SearchIndexOptions
  /** Keep the index in `<root>/.knowledge/cache/` between runs (default true; see index-cache.ts). */
  cache?: boolean
  /**
   * This process only reads (CLI search, list, stats, read): while another process owns the index cache, read that
   * file instead of indexing every document in memory, as long as no document changed since it was written.
   */
  readOnly?: boolean
  /**
   * A one-shot command (CLI search, list, read, history; capture, note, supersede, retire, restore): while a live
   * process that owns the index watches the whole root, trust its freshness stamp instead of stat-ing every document
   * file (index-cache/watch-stamp.ts). Default false.
   */
  trustWatcher?: boolean
}
