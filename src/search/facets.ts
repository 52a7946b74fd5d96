/**
 * Reads without a query: filtered listings (paged, newest first or by title), counts and facet counts over the
 * metadata tables. No FTS5 involved. Facet counts are cached per filter ({@link FacetCache}): at 100k documents one
 * count is four scans (~0.5 s), and the page asks for them on every list, search and stats request.
 * @module dsh-knowledge-sync/search/facets
 */
import type { StatementSync } from 'node:sqlite'
import type { SearchFilter } from '../types.js'
import type { Facets } from '../wire.js'
import { type Vocabulary, type Where, whereOf } from './filter.js'
import { DEFAULT_LIST_LIMIT, type DocRow, type IndexedMeta, KINDS, type ListSort, page, toMeta } from './schema.js'

/** What listings read from their index. */
export interface ListingHost {
  stmt(sql: string): StatementSync
  readonly size: number
  /** Retired documents indexed (the default status filter leaves them out). */
  readonly retired: number
  readonly vocabulary: Vocabulary
  /** The columns of a row's metadata (SearchIndex.docColumns). */
  readonly docColumns: string
}

/** Filtered documents without a query, paged; `total` counts them before paging. */
export function listDocs(host: ListingHost, filter: SearchFilter & { sort?: ListSort; after?: string } = {}): { total: number; items: IndexedMeta[] } {
  const { offset, limit } = page(filter, DEFAULT_LIST_LIMIT, Number.MAX_SAFE_INTEGER)
  const where = whereOf(filter, 'doc', host.vocabulary, host.retired)
  if (where.none) return { total: 0, items: [] }
  if (filter.after !== undefined) return { total: Number.NaN, items: listAfter(host, where, filter.after, limit, filter.sort) }
  const total = countWhere(host, where)
  if (limit === 0 || offset >= total) return { total, items: [] }
  const order = filter.sort === 'title' ? 'title COLLATE NOCASE, created_ms DESC, rowid DESC' : filter.sort === 'updated' ? 'mtime DESC, rowid DESC' : 'created_ms DESC, rowid DESC'
  const rows = host.stmt(`SELECT ${host.docColumns} FROM doc WHERE 1${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...where.params, limit, offset) as unknown as DocRow[]
  return { total, items: rows.map(toMeta) }
}

/**
 * The documents `where` selects right after the document `after` in the newest-first order, at most `limit` (none
 * when `after` is not indexed; its place is where it is now, whatever the filter). A seek on the created index: a page
 * costs its own rows wherever it is. Why: an OFFSET walks every row before the page and the list's count scans them
 * all, so each page of a scan cost more as the base grew (100k documents, the status filter: 14–50 ms a page; the
 * health probe reads 100 such pages, and their turns were the event-loop lag that grew with a long-lived process).
 */
function listAfter(host: ListingHost, where: Where, after: string, limit: number, sort: ListSort | undefined): IndexedMeta[] {
  if (sort !== undefined && sort !== 'created') throw new RangeError('a page after a document is in the newest-first order only')
  const at = host.stmt('SELECT created_ms, rowid FROM doc WHERE id = ? LIMIT 1').get(String(after)) as { created_ms: number; rowid: number } | undefined
  if (!at) return []
  const sql = `SELECT ${host.docColumns} FROM doc WHERE (created_ms, rowid) < (?, ?)${where.sql} ORDER BY created_ms DESC, rowid DESC LIMIT ?`
  return (host.stmt(sql).all(at.created_ms, at.rowid, ...where.params, limit) as unknown as DocRow[]).map(toMeta)
}

/** How many documents the filter selects (paging ignored). */
export function countDocs(host: ListingHost, filter: SearchFilter = {}): number {
  const where = whereOf(filter, 'doc', host.vocabulary, host.retired)
  return where.none ? 0 : countWhere(host, where)
}

function countWhere(host: ListingHost, where: Where): number {
  if (!where.sql) return host.size
  if (where.defaultOnly) return host.size - host.retired
  const row = host.stmt(`SELECT count(*) AS n FROM doc WHERE 1${where.sql}`).get(...where.params) as { n: number }
  return row.n
}

/** How many documents were recorded with exactly this `cwd` (an indexed lookup; cheaper than facets for that). */
export function workspaceCount(host: ListingHost, cwd: string): number {
  return (host.stmt('SELECT count(*) AS n FROM doc WHERE cwd = ?').get(String(cwd)) as { n: number }).n
}

/**
 * Rows given by what they held ({@link FacetSnapshot}s, JSON): rows another process replaced or added, counted by the
 * same statements as the tables, through common table expressions named like the tables they stand for.
 */
export interface Snapshots {
  snapshots: string
}

const SNAPSHOT_TABLES = `WITH snap AS (SELECT value AS v FROM json_each(?)),
  doc AS (SELECT v->>0 AS rowid, v->>1 AS id, v->>2 AS cwd FROM snap),
  tag AS (SELECT s.v->>0 AS doc, t.value AS id FROM snap AS s, json_each(s.v->3) AS t),
  tool AS (SELECT s.v->>0 AS doc, t.value AS id FROM snap AS s, json_each(s.v->4) AS t) `

/**
 * Counts per kind, tag, tool and workspace over the documents the filter selects (paging ignored); given `rows`, over
 * those rowids alone (what a write adds to or takes from cached counts, {@link FacetCache.shift}), or over snapshots of
 * rows (what another process's commit took out and put in, {@link FacetCache.followed}). Why these shapes
 * (100k documents, measured): kinds and workspaces come from one scan of the `cwd` index (kind and status are bits of
 * the rowid), not of the wide `doc` rows; tags and tools are counted in their link tables alone whenever the filter
 * reads only rowid bits and links (no scope, no id prefix): joining every link row to its document cost ~25× more.
 */
export function facetCounts(host: ListingHost, filter: SearchFilter = {}, over?: readonly number[] | Snapshots): Facets {
  const out: Facets = { kinds: {}, tags: {}, tools: {}, workspaces: {} }
  const snapshots = over !== undefined && 'snapshots' in over ? over.snapshots : undefined
  const rows = snapshots === undefined ? (over as readonly number[] | undefined) : undefined
  // Snapshots may hold a retired row, or a tool no document uses any more, while the tables hold none.
  const where = whereOf(filter, 'doc', host.vocabulary, host.retired, snapshots !== undefined)
  if (where.none) return out
  const names = host.vocabulary.names
  // A fixed fragment and one bound JSON array: the statement's shape does not depend on how many rows.
  const only = (column: string) => (rows ? ` AND ${column} IN (SELECT value FROM json_each(?))` : '')
  const ids = rows ? [JSON.stringify(rows)] : []
  const from = snapshots === undefined ? '' : SNAPSHOT_TABLES
  const first = snapshots === undefined ? [] : [snapshots]
  for (const r of host
    .stmt(`${from}SELECT cwd AS w, (rowid & 7) AS k, count(*) AS n FROM doc WHERE 1${where.sql}${only('doc.rowid')} GROUP BY cwd, k`)
    .all(...first, ...where.params, ...ids) as Array<{
    w: string
    k: number
    n: number
  }>) {
    out.kinds[KINDS[r.k]] = (out.kinds[KINDS[r.k]] ?? 0) + r.n
    out.workspaces[r.w] = (out.workspaces[r.w] ?? 0) + r.n
  }
  const links = where.needsDoc ? undefined : whereOf(filter, 'link', host.vocabulary, host.retired, snapshots !== undefined)
  for (const table of ['tag', 'tool'] as const) {
    const sql = links
      ? `SELECT link.id AS k, count(*) AS n FROM (SELECT doc AS rowid, id FROM ${table}) AS link WHERE 1${links.sql}${only('link.rowid')} GROUP BY link.id`
      : `SELECT ${table}.id AS k, count(*) AS n FROM ${table} JOIN doc ON doc.rowid = ${table}.doc WHERE 1${where.sql}${only(`${table}.doc`)} GROUP BY ${table}.id`
    const counts = table === 'tag' ? out.tags : out.tools
    for (const r of host.stmt(from + sql).all(...first, ...(links ?? where).params, ...ids) as Array<{ k: number; n: number }>) counts[names[r.k]] = r.n
  }
  return out
}

/**
 * `DSH_KNOWLEDGE_FACET_CACHE=off` counts every request afresh, as before the cache; `=drop` drops every cached count at
 * each write, as before shifting: the baselines that bench/page.bench.mjs measures in the same run through a real dsh
 * web. Not a setting: nothing else reads it.
 */
export const FACET_CACHE_ENV = 'DSH_KNOWLEDGE_FACET_CACHE'

/** How many filters' facet counts a {@link FacetCache} keeps (the page asks for a handful: its scope × the chips). */
export const FACET_CACHE_ENTRIES = 32

/**
 * Rows a {@link FacetCache} shifts its counts by between two reads before it drops them instead: past this, a bulk
 * write (a sync, an import) costs less as one recount at the next read than as a few small queries per row and filter.
 */
export const FACET_SHIFT_ROWS = 256

/** The facet counts of one filter (what the cache keys by, and what a shift re-counts over the written rows). */
interface FacetEntry {
  filter: SearchFilter
  facets: Facets
}

/**
 * Facet counts per filter, kept true through every write to the index: each write of this connection takes the
 * replaced row's counts out of every cached filter and adds the new row's ({@link FacetCache.shift}), counted by the
 * same SQL over those rows alone; another connection's commit (another process writing the same file) does the same
 * through the snapshots its change log rows carry ({@link FacetCache.followed}). Why: at 120k documents a recount held
 * the event loop ~80–100 ms, and dsh writes a round after every turn while the page polls its list and other
 * processes write beside it. `version` is the change counter of the commits by other connections that the counts
 * include, checked on every read: counts that missed one are dropped and the next read counts afresh.
 */
export class FacetCache {
  private readonly entries = new Map<string, FacetEntry>()
  private version?: number
  private shifted = 0
  private readonly off = process.env[FACET_CACHE_ENV] === 'off'
  private readonly drop = process.env[FACET_CACHE_ENV] === 'drop'
  /** Counts computed (not served from the cache): the tests watch it. */
  computed = 0

  /**
   * `versionOf`: the change counter of the other connections' commits followed so far (./shared-file.ts,
   * seenVersion); `count` counts one filter's facets over the given rowids or snapshots ({@link facetCounts}).
   */
  constructor(
    private readonly versionOf: () => number,
    private readonly count: (filter: SearchFilter, over: readonly number[] | Snapshots) => Facets,
  ) {}

  /** The counts for `filter`, computed by `count` only when this filter's are not cached for the index as it is now. */
  get(filter: SearchFilter, count: () => Facets): Facets {
    if (this.off) return count()
    const version = this.versionOf()
    if (version !== this.version) this.clear()
    this.version = version
    this.shifted = 0
    const key = JSON.stringify([filter.kind, filter.idPrefix, filter.tag, filter.tool, filter.scope, filter.status])
    let entry = this.entries.get(key)
    if (entry) {
      this.entries.delete(key) // most recently used last: the oldest is evicted first
    } else {
      const { kind, idPrefix, tag, tool, scope, status } = filter
      entry = { filter: { kind, idPrefix, tag, tool, scope, status }, facets: count() }
      this.computed++
      if (this.entries.size >= FACET_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, entry)
    return structuredClone(entry.facets)
  }

  /**
   * This connection is about to remove these rows (`sign` -1, before the write) or has just written them (+1, after):
   * every cached filter's counts follow. Past {@link FACET_SHIFT_ROWS} rows since the last read the cache is dropped.
   */
  shift(rows: readonly number[] | Snapshots, sign: 1 | -1, size = (rows as readonly number[]).length): void {
    if (!this.entries.size || !size) return
    this.shifted += size
    if (this.shifted > FACET_SHIFT_ROWS || this.drop) {
      this.clear()
      return
    }
    for (const { filter, facets } of this.entries.values()) {
      const by = this.count(filter, rows)
      for (const group of ['kinds', 'tags', 'tools', 'workspaces'] as const) {
        const into = facets[group]
        for (const [name, n] of Object.entries(by[group])) {
          const sum = (into[name] ?? 0) + sign * n
          // A recount lists no name with none: a shifted count must not either.
          if (sum > 0) into[name] = sum
          else delete into[name]
        }
      }
    }
  }

  /**
   * Other connections' commits since the counter was `before`, as the change log gave them (undefined: no document
   * row changed; null: the log no longer reaches back). Each change's snapshot takes a deleted row out and puts an
   * inserted one in; a change without one (a writer of an older build), a gap, or counts that missed a commit drop
   * the cache instead.
   */
  followed(changes: ReadonlyArray<{ gone: boolean; facets: string | null }> | null | undefined, before: number): void {
    const after = this.versionOf()
    if (this.off || !this.entries.size || after === before) {
      if (this.version === before) this.version = after
      return
    }
    if (this.version !== before || changes === null || changes?.some((change) => change.facets === null)) {
      this.clear()
      return
    }
    this.version = after
    if (!changes?.length) return
    try {
      for (const gone of [true, false]) {
        const taken = changes.filter((change) => change.gone === gone)
        if (taken.length) this.shift({ snapshots: `[${taken.map((change) => change.facets).join(',')}]` }, gone ? -1 : 1, taken.length)
      }
    } catch {
      // A snapshot SQLite cannot read (a file written by something else than this code): counted afresh instead.
      this.clear()
    }
  }

  /** Runs one write that shifts the counts; if it throws half-way, the counts are dropped (they may name a row not there). */
  writing<T>(write: () => T): T {
    try {
      return write()
    } catch (error) {
      this.clear()
      throw error
    }
  }

  /** Forgets every filter's counts (the index changed in a way not shifted, or a write failed half-way). */
  clear(): void {
    this.entries.clear()
  }
}
