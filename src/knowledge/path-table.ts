/**
 * Which file holds which document id, and the session each file's front matter names: what duplicate-id checks,
 * links and reads by id ask. Loaded from the index on first use, not at start: with a persisted index of 100k
 * documents, a start that finds nothing changed (and a CLI search) never asks, and building it up front cost
 * ~0.15 s and ~25 MB. Every access completes the load first, so it always starts from what the index holds at that
 * moment; a long-lived store loads it in the background in slices after its start (./loading.ts).
 * @module dsh-knowledge-sync/knowledge/path-table
 */

import { Loading } from './loading.js'

/** One indexed document's id, file (root-relative) and session. */
export type Location = readonly [id: string, path: string, session: string | null, ...rest: unknown[]]

/** Id ↔ file, loaded from the index on first use. */
export class PathTable {
  private readonly byPath = new Map<string, string>()
  /** Document id → its file (the inverse of `byPath`), so duplicate checks need no index query. */
  private readonly idPaths = new Map<string, string>()
  /** File → the session its front matter names (for the cross-machine id rule). */
  private readonly sessions = new Map<string, string>()
  private readonly loading: Loading<Location>

  constructor(load: () => Iterable<Location> | undefined) {
    this.loading = new Loading(load, ([id, path, session]) => {
      this.byPath.set(path, id)
      this.idPaths.set(id, path)
      if (session !== null) this.sessions.set(path, session)
    })
  }

  private ensure(): void {
    this.loading.step(Number.POSITIVE_INFINITY)
  }

  /** Loads a part, until `deadline` (performance.now()); true once loaded (see {@link Loading}). */
  warm(deadline: number): boolean {
    return this.loading.step(deadline)
  }

  /** The id of the document in a file. */
  idAt(path: string): string | undefined {
    this.ensure()
    return this.byPath.get(path)
  }

  /** The file of an id. */
  pathOf(id: string): string | undefined {
    this.ensure()
    return this.idPaths.get(id)
  }

  /** Is the id taken by an indexed file? */
  hasId(id: string): boolean {
    this.ensure()
    return this.idPaths.has(id)
  }

  /** The session a file's front matter names. */
  sessionAt(path: string): string | undefined {
    this.ensure()
    return this.sessions.get(path)
  }

  /** Records that `path` holds `id` (and names `session`). */
  put(path: string, id: string, session?: string): void {
    this.ensure()
    this.byPath.set(path, id)
    this.idPaths.set(id, path)
    if (session !== undefined) this.sessions.set(path, session)
  }

  /** Records the session a file names (before its document is indexed). */
  setSession(path: string, session: string): void {
    this.ensure()
    this.sessions.set(path, session)
  }

  /** Forgets which id a file holds (the id may still point to it until {@link dropId}). */
  dropPath(path: string): void {
    this.ensure()
    this.byPath.delete(path)
  }

  /** Forgets which file an id is in. */
  dropId(id: string): void {
    this.ensure()
    this.idPaths.delete(id)
  }

  /** Every file that holds a document. */
  paths(): string[] {
    this.ensure()
    return [...this.byPath.keys()]
  }
}
