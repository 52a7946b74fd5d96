/**
 * Filters (kind, status, tag, tool glob, workspace scope) as SQL clauses, and the tag/tool vocabulary they are resolved
 * against. Every value is a bound parameter and the SQL is built from fixed fragments only, so the prepared-statement
 * cache stays small and no filter value can change a statement's shape.
 * @module dsh-knowledge-sync/search/filter
 */
import { createRequire } from 'node:module'
import type { SQLInputValue } from 'node:sqlite'
import type { SearchFilter } from '../types.js'
import { KIND_INDEX, ownString, STATUS_INDEX } from './schema.js'
import { scopeRange } from './scope.js'

/**
 * picomatch, loaded with the first tool glob rather than at import: a search without `--tool` never needs it, and a
 * fresh CLI search paid for its six CommonJS modules (and Node's CommonJS lexer) every time.
 */
let globs: typeof import('picomatch') | undefined
const picomatch = (glob: string, options: import('picomatch').PicomatchOptions) => (globs ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'))(glob, options)

/** Filter clauses, ready to append to a `WHERE 1` or a `WHERE fts MATCH ?`. */
/**
 * The one form a tag is compared and stored in: Unicode NFKC (full-width and compatibility forms folded, so `ＣＩ` is
 * `ci`), then lowercase. Any script is kept: `性能` is a tag like `redis`.
 */
export function tagKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase()
}

export interface Where {
  sql: string
  params: SQLInputValue[]
  /** The filter can select nothing (unknown kind, a tool glob no tool name matches). */
  none: boolean
  /** The clauses read the `doc` table (the FTS query then joins it). */
  needsDoc: boolean
  /** The only clause is the default status filter (counted without a scan). */
  defaultOnly?: boolean
}

/**
 * Tags (lowercased) and tool names as small integers (ids shared by both vocabularies and never reused), plus how
 * many documents use each tool: tool globs are matched against this, not against every row.
 */
export class Vocabulary {
  readonly tagIds = new Map<string, number>()
  readonly toolIds = new Map<string, number>()
  readonly names: string[] = []
  /** Tool name → number of documents using it; loaded on first use when a persisted index is restored. */
  private uses?: Map<string, number> = new Map()
  private loadUses?: () => Map<string, number>

  /** `onNew` is told of every new name (the index persists them). */
  constructor(private readonly onNew?: (kind: 'tag' | 'tool', id: number, name: string) => void) {}

  /** Tool name → number of documents using it. */
  get toolUse(): Map<string, number> {
    if (!this.uses) {
      this.uses = this.loadUses?.() ?? new Map()
      this.loadUses = undefined
    }
    return this.uses
  }

  /**
   * The counts come from `load` when first asked (a glob over tool names), not now. Why: counting them is a scan
   * of every document's tools (~20–40 ms at 100k, ten times that at a million) that a start, and most searches,
   * never need. Until then a change is already in what `load` will read.
   */
  deferToolUse(load: () => Map<string, number>): void {
    this.uses = undefined
    this.loadUses = load
  }

  /** The id of a tag (lowercased by the caller). */
  tag(name: string): number {
    return this.intern(this.tagIds, name, 'tag')
  }

  /** The id of a tool name, counting one more document that uses it. */
  useTool(name: string): number {
    const id = this.intern(this.toolIds, name, 'tool')
    this.uses?.set(this.names[id], (this.uses.get(name) ?? 0) + 1)
    return id
  }

  /** One more document (another process's) uses this tool, already named. */
  countTool(name: string): void {
    this.uses?.set(name, (this.uses.get(name) ?? 0) + 1)
  }

  /** One document fewer uses this tool. */
  dropTool(name: string): void {
    if (!this.uses) return
    const n = (this.uses.get(name) ?? 1) - 1
    if (n > 0) this.uses.set(name, n)
    else this.uses.delete(name)
  }

  /** Restores a name read back from a persisted index (ids never change meaning). */
  restore(kind: 'tag' | 'tool', id: number, name: string): void {
    const own = ownString(name)
    this.names[id] = own
    ;(kind === 'tag' ? this.tagIds : this.toolIds).set(own, id)
  }

  private intern(ids: Map<string, number>, name: string, kind: 'tag' | 'tool'): number {
    let id = ids.get(name)
    if (id === undefined) {
      id = this.names.length
      const own = ownString(name)
      this.names.push(own)
      ids.set(own, id)
      this.onNew?.(kind, id, own)
    }
    return id
  }

  /**
   * Tool names in use that the glob matches, case-insensitively; a broken glob matches literally. `named`: every tool
   * name known, used or not (what a snapshot of a row that is gone may hold).
   */
  toolsMatching(glob: string, named = false): string[] {
    let test: (s: string) => boolean
    try {
      const m = picomatch(glob, { nocase: true, dot: true })
      test = (s) => m(s)
    } catch {
      const lowered = glob.toLowerCase()
      test = (s) => s.toLowerCase() === lowered
    }
    return [...(named ? this.toolIds : this.toolUse).keys()].filter(test)
  }
}

/**
 * Filter clauses over `doc` (or, for kind, status, tag and tool, over the rowid of `alias`: `fts`, or `link` for a
 * tag or tool row seen as `(rowid = its document, id)`; only a filter without `needsDoc` can be asked of `link`). `retired`: how many retired
 * documents are indexed (while none is, the default status filter adds no clause). `ofSnapshots`: the clauses are
 * asked of rows that may no longer be in the tables (facets.ts, Snapshots): the status clause is always there, and a
 * tool glob matches every tool name known.
 */
export function whereOf(filter: SearchFilter | undefined, alias: 'doc' | 'fts' | 'link', vocabulary: Vocabulary, retired: number, ofSnapshots = false): Where {
  const clauses: string[] = []
  const params: SQLInputValue[] = []
  let needsDoc = false
  let none = false
  const f = filter ?? {}
  if (f.kind !== undefined && f.kind !== null) {
    const k = KIND_INDEX[f.kind as string]
    if (k === undefined) none = true
    else {
      clauses.push(`(${alias}.rowid & 7) = ?`)
      params.push(k)
    }
  }
  // Retired documents leave search, lists and counts unless the filter names a status (or `all`).
  let defaultClause = false
  if (f.status !== 'all') {
    const s = f.status === undefined || f.status === null ? undefined : STATUS_INDEX[f.status as string]
    if (f.status !== undefined && f.status !== null && s === undefined) none = true
    else if (s === undefined) {
      if (retired > 0 || ofSnapshots) {
        clauses.push(`((${alias}.rowid >> 3) & 3) <> ${STATUS_INDEX.retired}`)
        defaultClause = true
      }
    } else {
      clauses.push(`((${alias}.rowid >> 3) & 3) = ?`)
      params.push(s)
    }
  }
  if (typeof f.tag === 'string' && f.tag.trim()) {
    const tag = vocabulary.tagIds.get(tagKey(f.tag))
    if (tag === undefined) none = true
    else {
      clauses.push(`EXISTS (SELECT 1 FROM tag WHERE tag.doc = ${alias}.rowid AND tag.id = ?)`)
      params.push(tag)
    }
  }
  if (typeof f.tool === 'string' && f.tool.trim()) {
    const ids = vocabulary.toolsMatching(f.tool.trim(), ofSnapshots).map((name) => vocabulary.toolIds.get(name)!)
    if (!ids.length) none = true
    else if (ids.length === 1) {
      clauses.push(`EXISTS (SELECT 1 FROM tool WHERE tool.doc = ${alias}.rowid AND tool.id = ?)`)
      params.push(ids[0])
    } else {
      clauses.push(`EXISTS (SELECT 1 FROM tool WHERE tool.doc = ${alias}.rowid AND tool.id IN (SELECT value FROM json_each(?)))`)
      params.push(JSON.stringify(ids))
    }
  }
  if (typeof f.idPrefix === 'string' && f.idPrefix) {
    // A range, not LIKE: the prefix may hold `_`, and the id index answers a range.
    needsDoc = true
    clauses.push('(doc.id >= ? AND doc.id < ?)')
    params.push(f.idPrefix, f.idPrefix + '\u{10FFFF}')
  }
  if (typeof f.scope === 'string' && f.scope.trim()) {
    const { exact, lo, hi } = scopeRange(f.scope.trim())
    needsDoc = true
    clauses.push(`(doc.cwd = '' OR doc.cwd = ? OR (doc.cwd >= ? AND doc.cwd < ?))`)
    params.push(exact, lo, hi)
  }
  const defaultOnly = defaultClause && clauses.length === 1
  return { sql: clauses.length ? ' AND ' + clauses.join(' AND ') : '', params, none, needsDoc, defaultOnly }
}
