/**
 * Where the document files module (./files.ts) sends what it reads: the search index plus the store's change listeners.
 * @module dsh-knowledge-sync/knowledge/view/index-sink
 */
import type { KnowledgeDoc } from '../../types.js'
import type { Location, PathQueries } from '../index-cache/path-table.js'

/** Where the files module sends what it reads. */
export interface IndexSink {
  upsertMany(docs: KnowledgeDoc[]): void
  upsert(doc: KnowledgeDoc): void
  remove(id: string): void
  /** Whether the index holds a document's file with these times (size, mtime, ctime), to skip a re-parse (manifest.ts, stampMatch). */
  indexedWith(id: string, size: number, mtimeMs: number, ctimeMs: number): { racy: boolean; hash: string | null } | undefined
  /** Holds background index maintenance during a bulk load; returns the release. */
  holdMerges(): () => void
  written(doc: KnowledgeDoc): void
  removed(id: string, path: string): void
  /** A document whose file has new times but the same content: only its stamp changes. */
  restamp(doc: KnowledgeDoc): void
  firstSeen?(id: string): number | undefined // when the store first saw a document: "created" of a file without one
  /** Id, file and session of every indexed document (read once, when the path table is first used). */
  locations(): Iterable<Location> | undefined
  /** Where the index has one id (a point query), for questions asked before the path table is loaded. */
  located(id: string): { path: string; session?: string | null } | undefined
  /** The index's own answers to which file holds which id, when it has them (then the path table keeps nothing). */
  pathQueries(): PathQueries | undefined
  /** Catches up with other processes' commits to a shared index (asked before the path table answers). */
  follow(): void
}
