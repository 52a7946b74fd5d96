/**
 * One index file, many processes: how each process keeps what it holds in memory beside the file (the counters, the
 * vocabulary, and its store's path table and relation graph) in step with the others' commits.
 *
 * Every write to a shared file appends one row per document row inserted or deleted to the `change` table, in the
 * same transaction (see ./index-file.ts), tagged with the writing connection's `origin`. A process asks SQLite's
 * `PRAGMA data_version` (a counter that moves when another connection commits; ~1 µs) before a read and inside each
 * write transaction, and when it moved reads the rows after the last one it saw, skipping its own. The log is pruned
 * to its last {@link CHANGE_KEEP} rows; a process that fell further behind (suspended for a long time) reloads
 * everything instead (`since` answers null).
 *
 * Why a log rather than the watcher: the watcher sees a file before or after the other process committed it, and
 * never sees what a start-up reconcile dropped; the log is exactly what the file holds, in commit order.
 * @module dsh-knowledge-sync/search/shared-file
 */
import { randomInt } from 'node:crypto'
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import type { Vocabulary } from './filter.js'
import { addedToSchema, ROWID_STEP, STATUS_INDEX } from './schema.js'

/** Rows the log keeps; older ones are pruned by the writer that crosses a multiple of {@link PRUNE_EVERY}. */
export const CHANGE_KEEP = 50_000
const PRUNE_EVERY = 1024

/** One document row another process inserted (`gone` false) or deleted, in commit order. */
export interface ForeignChange {
  /** Its place in the log. */
  readonly seq: number
  readonly id: string
  readonly path: string
  readonly gone: boolean
  /** The row was of a retired document. */
  readonly retired: boolean
  /** The row's tool names (JSON array). */
  readonly tools: string
  /**
   * What the row's facet counts were made of ({@link FacetSnapshot}, JSON): followers shift their cached counts by it
   * rather than count every document again. Null from a writer of an older build (or a file without the column).
   */
  readonly facets: string | null
}

/** A row as facet counts see it: rowid (kind and status are its bits), id, workspace, tag ids, tool ids. */
export type FacetSnapshot = [rowid: number, id: string, cwd: string, tags: number[], tools: number[]]

/** The change log's column for {@link ForeignChange.facets}: added to a file that lacks it, as the revision column is (schema.ts, addedToSchema). */
const FACETS_COLUMN = 'facets'

/** The change log of one connection to a shared file. */
export class SharedFile {
  /** This connection's tag on the rows it writes. */
  readonly origin = randomInt(1, 2 ** 47)
  private version = -1
  private seen = 0
  /** Off while the file is being built: no other process can have it open yet. */
  logging = false
  /** The log's end when the tool counts were read (changes up to it are in them). */
  private usesAt = 0
  /** The log has the {@link FACETS_COLUMN} column: this connection writes and reads facet snapshots. */
  private snapshots = false
  /** A catch-up is running (see {@link catchUp}). */
  private catching = false

  constructor(
    private readonly stmt: (sql: string) => StatementSync,
    private readonly db: Pick<DatabaseSync, 'isTransaction'>,
  ) {}

  /**
   * Reads back what lives in memory beside the file's tables, in one snapshot with the log position: the counters,
   * whether the corpus holds Chinese, and the vocabulary. Ids are looked up in the file's `doc_id` index rather than
   * a Map: opening a file then costs nothing per document.
   */
  open(state: FileState, vocabulary: Vocabulary): void {
    this.snapshots = addedToSchema(this.stmt, `SELECT 1 AS x FROM pragma_table_info('change') WHERE name = '${FACETS_COLUMN}'`, `ALTER TABLE change ADD COLUMN ${FACETS_COLUMN} TEXT`)
    this.stmt('BEGIN').run()
    try {
      this.restore(state, vocabulary)
      this.logging = (this.stmt("SELECT value FROM meta WHERE key = 'state'").get() as { value?: string } | undefined)?.value === 'complete'
    } finally {
      this.stmt('COMMIT').run()
    }
  }

  private restore(state: FileState, vocabulary: Vocabulary): void {
    this.mark()
    Object.assign(state, readState(this.stmt))
    for (const name of this.stmt('SELECT id, kind, text FROM name ORDER BY id').all() as Array<{ id: number; kind: number; text: string }>) {
      vocabulary.restore(name.kind === 0 ? 'tag' : 'tool', name.id, name.text)
    }
    vocabulary.deferToolUse(() => this.toolUse(vocabulary))
  }

  /**
   * Applies what other connections committed since the last look to `state` and `vocabulary`; returns their
   * changes (null: the log no longer reaches back, everything was read again), or undefined when nothing changed.
   */
  catchUp(state: FileState, vocabulary: Vocabulary, wrote: () => void): ForeignChange[] | null | undefined {
    // Not re-entered from `wrote` (the planner reads the index's size, which catches up): a nested call read the
    // commits another process made meanwhile before the outer one's were followed, and the cached facet counts, seeing
    // the versions out of order, were dropped (9 recounts in a 3,000-round soak, each ~80 ms at 120k documents).
    if (this.catching) return undefined
    this.catching = true
    try {
      return this.apply(state, vocabulary, wrote)
    } finally {
      this.catching = false
    }
  }

  private apply(state: FileState, vocabulary: Vocabulary, wrote: () => void): ForeignChange[] | null | undefined {
    if (!this.moved()) return undefined
    const changes = this.since()
    if (changes === null) {
      this.restore(state, vocabulary)
      return null
    }
    if (!changes.length) return undefined
    for (const change of changes) {
      const sign = change.gone ? -1 : 1
      state.count += sign
      if (change.retired) state.retired += sign
      if (change.seq > this.usesAt) for (const tool of changeTools(change)) change.gone ? vocabulary.dropTool(tool) : vocabulary.countTool(tool)
      wrote()
    }
    const top = (this.stmt('SELECT coalesce(max(rowid), 0) AS top FROM doc').get() as { top: number }).top
    state.seq = Math.max(state.seq, Math.floor(top / ROWID_STEP))
    state.han ||= this.stmt("SELECT 1 AS x FROM meta WHERE key = 'han'").get() !== undefined
    for (const name of this.stmt('SELECT id, kind, text FROM name WHERE id >= ? ORDER BY id').all(vocabulary.names.length) as Array<{ id: number; kind: number; text: string }>) {
      vocabulary.restore(name.kind === 0 ? 'tag' : 'tool', name.id, name.text)
    }
    return changes
  }

  /**
   * The documents using each tool, counted in one snapshot with the log's end: the changes up to there are in the
   * counts, so catching up with them later must not count them again ({@link usesAt}).
   */
  private toolUse(vocabulary: Vocabulary): Map<string, number> {
    const uses = new Map<string, number>()
    const read = () => {
      this.usesAt = (this.stmt('SELECT coalesce(max(seq), 0) AS n FROM change').get() as { n: number }).n
      for (const row of this.stmt('SELECT id, count(*) AS n FROM tool GROUP BY id').all() as Array<{ id: number; n: number }>) {
        const name = vocabulary.names[row.id]
        if (name !== undefined) uses.set(name, row.n)
      }
    }
    if (this.db.isTransaction) read()
    else {
      this.stmt('BEGIN').run()
      try {
        read()
      } finally {
        this.stmt('COMMIT').run()
      }
    }
    return uses
  }

  /** Remembers where the log is now (inside the snapshot the caller reads its state from). */
  private mark(): void {
    this.version = this.dataVersion()
    this.seen = (this.stmt('SELECT coalesce(max(seq), 0) AS n FROM change').get() as { n: number }).n
  }

  private dataVersion(): number {
    return (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version
  }

  /** Whether another connection committed since the last look (and remembers this look). */
  private moved(): boolean {
    const now = this.dataVersion()
    if (now === this.version) return false
    this.version = now
    return true
  }

  /** The data_version this connection last looked at: a change log read after it holds every commit before it. */
  get seenVersion(): number {
    return this.version
  }

  /**
   * Records one document row inserted or deleted (inside the open write transaction); `snapshot` gives its
   * {@link FacetSnapshot} (asked only when the log keeps them, before a deleted row's tables are emptied).
   */
  record(id: string, path: string, gone: boolean, retired: boolean, tools: string, snapshot: () => FacetSnapshot): void {
    if (!this.logging) return
    const values: SQLInputValue[] = [this.origin, id, path, gone ? 1 : 0, retired ? 1 : 0, tools]
    if (this.snapshots) values.push(JSON.stringify(snapshot()))
    const columns = `origin, id, path, gone, retired, tools${this.snapshots ? `, ${FACETS_COLUMN}` : ''}`
    const { lastInsertRowid } = this.stmt(`INSERT INTO change (${columns}) VALUES (${values.map(() => '?').join(', ')})`).run(...values)
    const seq = Number(lastInsertRowid)
    this.seen = Math.max(this.seen, seq)
    if (seq % PRUNE_EVERY === 0) this.stmt('DELETE FROM change WHERE seq <= ?').run(seq - CHANGE_KEEP)
  }

  /**
   * The other connections' rows since the last call, oldest first; null when some of them were pruned before this
   * connection read them (the caller reloads everything).
   */
  private since(): ForeignChange[] | null {
    const rows = this.stmt(`SELECT seq, origin, id, path, gone, retired, tools, ${this.snapshots ? FACETS_COLUMN : `NULL AS ${FACETS_COLUMN}`} FROM change WHERE seq > ? ORDER BY seq`).all(
      this.seen,
    ) as Array<{
      seq: number
      origin: number
      id: string
      path: string
      gone: number
      retired: number
      tools: string
      facets: string | null
    }>
    const first = rows[0]?.seq
    // AUTOINCREMENT leaves no holes (a rolled-back insert rolls its counter back too): a hole is a pruned stretch.
    const gap = first !== undefined && first > this.seen + 1
    if (rows.length) this.seen = rows[rows.length - 1].seq
    if (gap) return null
    return rows.filter((r) => r.origin !== this.origin).map((r) => ({ seq: r.seq, id: r.id, path: r.path, gone: r.gone === 1, retired: r.retired === 1, tools: r.tools, facets: r.facets }))
  }
}

/** What an index keeps in memory beside its file, read back from the file. */
export interface FileState {
  count: number
  /** The highest rowid's sequence number (new rowids follow it). */
  seq: number
  retired: number
  han: boolean
}

/** Reads the counters of a file (the vocabulary is read by the caller). */
function readState(stmt: (sql: string) => StatementSync): FileState {
  const row = stmt('SELECT count(*) AS n, coalesce(max(rowid), 0) AS top FROM doc').get() as { n: number; top: number }
  return {
    count: row.n,
    seq: Math.floor(row.top / ROWID_STEP),
    retired: (stmt(`SELECT count(*) AS n FROM doc WHERE ((rowid >> 3) & 3) = ${STATUS_INDEX.retired}`).get() as { n: number }).n,
    han: stmt("SELECT 1 AS x FROM meta WHERE key = 'han'").get() !== undefined,
  }
}

/** The tool names of a change row. */
function changeTools(change: ForeignChange): string[] {
  try {
    const tools = JSON.parse(change.tools) as unknown
    return Array.isArray(tools) ? tools.filter((t): t is string => typeof t === 'string') : []
  } catch {
    return []
  }
}
