/**
 * Conversational context: the rounds next to a strong hit in the same session. A conversation answers in the round
 * after the one that asked ("do you play an instrument?" → "the violin, since I was ten"), so the round that holds
 * the answer often shares no word with a question that matches the round before it. Each of the best candidates
 * lends a share of its score to its neighbours (same session, turn ± 2, the farther one half as much), which may enter
 * the ranking that way.
 * Documents without a session and turn (notes, manual documents) neither lend nor receive.
 * @module dsh-knowledge-sync/search/context
 */
import type { StatementSync } from 'node:sqlite'
import type { Where } from './filter.js'

/** Rounds up to this far from a lender receive from it, `1 / distance` of its share (2 measured better than 1 on LoCoMo's development half). */
export const CONTEXT_SPAN = 2
/** How many of the best candidates lend to their neighbours (a neighbour lookup is one indexed statement each). */
export const CONTEXT_LENDERS = 20

/**
 * Adds `weight × (best lender's score / distance)` to every row near one of the {@link CONTEXT_LENDERS} best candidates
 * (rows that are not candidates yet join the pool so). Scores lent are the ones before this pass, so nothing
 * compounds. The neighbours found pass the same filters as the ranking (`where`, with the FTS alias).
 */
export function addNeighbours(stmt: (sql: string) => StatementSync, pool: Map<number, number>, where: Where, weight: number): void {
  if (!(weight > 0) || !pool.size) return
  const lenders = [...pool].sort((a, b) => b[1] - a[1]).slice(0, CONTEXT_LENDERS)
  const placed = stmt('SELECT rowid AS r, session AS s, turn AS t FROM doc WHERE rowid IN (SELECT value FROM json_each(?)) AND session IS NOT NULL AND turn IS NOT NULL').all(
    JSON.stringify(lenders.map(([r]) => r)),
  ) as Array<{ r: number; s: string; t: number }>
  if (!placed.length) return
  const near = stmt(`SELECT fts.rowid AS r, doc.turn AS t FROM doc JOIN doc AS fts ON fts.rowid = doc.rowid WHERE doc.session = ? AND doc.turn BETWEEN ? AND ?${where.sql}`)
  const lent = new Map<number, number>()
  for (const { r, s, t } of placed) {
    const score = pool.get(r)!
    for (const n of near.all(s, t - CONTEXT_SPAN, t + CONTEXT_SPAN, ...where.params) as Array<{ r: number; t: number }>) {
      // Same turn (a note recorded beside its round, a re-capture): not a neighbour.
      if (n.t === t) continue
      const v = score / Math.abs(n.t - t)
      if ((lent.get(n.r) ?? 0) < v) lent.set(n.r, v)
    }
  }
  for (const [r, score] of lent) pool.set(r, (pool.get(r) ?? 0) + weight * score)
}
