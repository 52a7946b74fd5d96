/**
 * Which file holds which document id: what duplicate-id checks, links and reads by id ask. Asked of the index itself
 * when it has the `doc_path` index (search/doc-row.ts, pathIndex): two point queries, nothing kept here. Otherwise (a
 * read-only file an older build made) a table is loaded from the index when first needed, not at start: at 100k
 * documents it cost ~0.35 s and ~25 MB to build, ~200 bytes a document to keep. A load always starts from what the
 * index holds at that moment; a long-lived store loads it in the background in slices after its start (./loading.ts).
 * @module dsh-knowledge-sync/knowledge/index-cache/path-table
 */

import { Loading } from './loading.js'

/** One indexed document's id, file (root-relative) and session. */
export type Location = readonly [id: string, path: string, session: string | null]

/** What the index says of one id (a point query), for questions asked before the table is loaded. */
export type IdLookup = (id: string) => { path: string; session?: string | null } | undefined

/** Point queries of an index that has the `doc_path` index: the table then keeps nothing. */
export interface PathQueries {
  idAt(path: string): string | undefined
  pathOf(id: string): string | undefined
  paths(): string[]
}

/**
 * Id ↔ file, loaded from the index on first use. Until a load starts, questions by id go to the index (`byId`, one
 * point query) and changes are not recorded: each change goes with an index write, and the load reads the index
 * after it. So a start-up scan of a few changed files never loads the whole table (~0.35 s at 100k documents).
 * Questions by file, and anything once a load has started, complete the load first.
 */
export class PathTable {
  private readonly byPath = new Map<string, string>()
  /** Document id → its file (the inverse of `byPath`), so duplicate checks need no index query. */
  private readonly idPaths = new Map<string, string>()
  private loading!: Loading<Location>

  /**
   * `follow`: asked before the loaded table answers, so that it first takes in what other processes committed to a
   * shared index (they arrive through {@link put} and {@link remove}). `queries`: the index's point queries, when it
   * can answer them (asked each time: the store's index changes from memory to its file at start).
   */
  constructor(
    private readonly load: () => Iterable<Location> | undefined,
    private readonly byId: IdLookup = () => undefined,
    private readonly follow: () => void = () => {},
    private readonly queries: () => PathQueries | undefined = () => undefined,
  ) {
    this.reset()
  }

  /**
   * The index answers: a table loaded before it could is dropped. Other processes' commits are taken in first, as
   * before a loaded table answers: a watcher's event for a file another process indexed is how this process hears of
   * that document (./follow.ts announces it), since its own indexing of the file then finds nothing to do.
   */
  private get asked(): PathQueries | undefined {
    const queries = this.queries()
    if (!queries) return undefined
    if (!this.idle) this.reset()
    this.follow()
    return queries
  }

  /** Forgets everything: the next question loads the table from the index again. */
  reset(): void {
    this.byPath.clear()
    this.idPaths.clear()
    this.loading = new Loading(this.load, ([id, path]) => {
      this.byPath.set(path, id)
      this.idPaths.set(id, path)
    })
  }

  private ensure(): void {
    this.follow()
    this.loading.step(Number.POSITIVE_INFINITY)
  }

  /** Nothing loaded: answer by id from the index, record no change (each change goes with an index write). */
  private get idle(): boolean {
    return this.loading.state === 'idle'
  }

  /** Nothing to record: the index answers, or no load has begun. */
  private get unrecorded(): boolean {
    return this.asked !== undefined || this.idle
  }

  /** Loads a part, until `deadline` (performance.now()); true once loaded (see {@link Loading}), or when nothing is to load. */
  warm(deadline: number): boolean {
    return this.asked !== undefined || this.loading.step(deadline)
  }

  /** The id of the document in a file. */
  idAt(path: string): string | undefined {
    const asked = this.asked
    if (asked) return asked.idAt(path)
    this.ensure()
    return this.byPath.get(path)
  }

  /** The file of an id. */
  pathOf(id: string): string | undefined {
    const asked = this.asked
    if (asked) return asked.pathOf(id)
    if (this.idle) return this.byId(id)?.path
    this.ensure()
    return this.idPaths.get(id)
  }

  /** Is the id taken by an indexed file? */
  hasId(id: string): boolean {
    return this.pathOf(id) !== undefined
  }

  /**
   * The session named by the file that holds an id, as the index has it: asked only when two files claim one id (the
   * cross-machine rule), so a point query rather than a map of every file's session (~50 bytes a document: 50 MB at a
   * million, for the life of the process).
   */
  sessionOf(id: string): string | undefined {
    return this.byId(id)?.session ?? undefined
  }

  /** Records that `path` holds `id`. */
  put(path: string, id: string): void {
    if (this.unrecorded) return
    this.ensure()
    this.byPath.set(path, id)
    this.idPaths.set(id, path)
  }

  /** Forgets which id a file holds (the id may still point to it until {@link dropId}). */
  dropPath(path: string): void {
    if (this.unrecorded) return
    this.ensure()
    this.byPath.delete(path)
  }

  /** Forgets which file an id is in. */
  dropId(id: string): void {
    if (this.unrecorded) return
    this.ensure()
    this.idPaths.delete(id)
  }

  /** Forgets a document that left the index: its file, if it still holds it, and its id, if it is still there. */
  remove(path: string, id: string): void {
    if (this.unrecorded) return
    this.ensure()
    if (this.byPath.get(path) === id) this.byPath.delete(path)
    if (this.idPaths.get(id) === path) this.idPaths.delete(id)
  }

  /** Every file that holds a document. */
  paths(): string[] {
    const asked = this.asked
    if (asked) return asked.paths()
    this.ensure()
    return [...this.byPath.keys()]
  }
}
