/**
 * The prepared statements of one index, by SQL text, least recently used out past a bound. Every statement the index
 * caches binds its values as parameters, so the texts are the shapes of the queries (filter clauses × ranking ×
 * listing order: a few hundred at most); the bound holds even if a caller ever put a value into the text. An evicted
 * statement is only dropped (node:sqlite finalizes it when it is collected); one still in use stays valid.
 * @module dsh-knowledge-sync/search/statement-cache
 */
import type { StatementSync } from 'node:sqlite'

/** More than the shapes the rows' filters make; a text past it costs one prepare when it comes back. */
export const STATEMENT_CACHE_MAX = 512

export class StatementCache {
  private readonly map = new Map<string, StatementSync>()
  constructor(readonly max = STATEMENT_CACHE_MAX) {}

  get size(): number {
    return this.map.size
  }

  /** The cached statement for `sql`, or the one `prepare` makes (then cached, the least recently used out). */
  get(sql: string, prepare: (sql: string) => StatementSync): StatementSync {
    let s = this.map.get(sql)
    if (s) {
      // Most recently used last: a Map keeps insertion order.
      this.map.delete(sql)
      this.map.set(sql, s)
      return s
    }
    s = prepare(sql)
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as string)
    this.map.set(sql, s)
    return s
  }

  clear(): void {
    this.map.clear()
  }
}
