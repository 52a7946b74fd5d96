/**
 * The single-character channel: a short Chinese question that shares one character and no pair with its answer
 * (能吃辣吗 against a note saying 微辣/中辣; 锁死 against 死鎖) meets it through the characters of its runs, indexed in
 * a table of their own (`fts_chars`). A table, not a column of the main one: FTS5's bm25 normalizes by a row's total
 * length, so a column of characters would have made every Chinese document look twice as long to the words' ranking.
 * @module dsh-knowledge-sync/search/chars
 */
import type { StatementSync } from 'node:sqlite'
import type { Where } from './filter.js'
import { quote } from './schema.js'
import type { QueryTerm } from './tokenize.js'

/** At most this many characters are ranked per query (each is a pass over its posting list). */
export const MAX_QUERY_CHARS = 12

/**
 * Adds `weight × best × (character bm25 / best character bm25)` to the rows holding the query's characters, where
 * `best` is the best score of the query's own words (their bm25 itself when the words found nothing): characters
 * complete the ranking, they never outweigh the words. They are ranked only when the words found fewer rows than the page
 * holds (measured against ranking them always: docs/search.md). Only Chinese runs of two characters or more carry characters
 * ({@link QueryTerm.chars}); a query without them costs nothing.
 */
export function addChars(stmt: (sql: string) => StatementSync, pool: Map<number, number>, terms: QueryTerm[], where: Where, window: number, weight: number): void {
  // Only when the words leave the page short: a full page keeps the planner's ranking (and its `pruned` proof) as is.
  if (!(weight > 0) || pool.size >= window) return
  const chars = [...new Set(terms.flatMap((t) => t.chars ?? []))].slice(0, MAX_QUERY_CHARS)
  if (!chars.length) return
  const sql =
    `SELECT fts.rowid AS r, bm25(fts.fts_chars) AS s FROM fts_chars AS fts${where.needsDoc ? ' JOIN doc ON doc.rowid = fts.rowid' : ''}` + ` WHERE fts.fts_chars MATCH ?${where.sql} ORDER BY s LIMIT ?`
  let rows: Array<{ r: number; s: number }>
  try {
    rows = stmt(sql).all(chars.map(quote).join(' OR '), ...where.params, window) as Array<{ r: number; s: number }>
  } catch {
    return
  }
  if (!rows.length || !(rows[0].s < 0)) return
  // Scaled below the words' best score; when the words found nothing, the characters are the user's only evidence and
  // keep their own bm25 (so a translation does not outrank them just because their scale was arbitrary).
  const best = Math.max(0, ...pool.values())
  const scale = best > 0 ? (weight * best) / -rows[0].s : 1
  for (const { r, s } of rows) pool.set(r, (pool.get(r) ?? 0) + scale * -s)
}
