/**
 * Traditional ↔ Simplified Chinese for queries, so a query in one script finds documents in the other.
 * - Traditional → Simplified: OpenCC via `opencc-js` (its `t2cn` build, Taiwan phrases included: 資料庫 → 数据库,
 *   記憶體 → 内存), loaded on the first Chinese query: ~40 ms and ~17 MB. (The opposite build, `cn2t`, costs 200–380 ms
 *   and 53–93 MB, so it is not used.)
 * - Simplified → Traditional: character by character from CC-CEDICT's single-character entries (see cedict.ts), which
 *   the same query loads anyway; words that differ by more than their characters (数据库 / 資料庫) meet through the
 *   dictionary's English glosses instead.
 * Both directions run at query time: documents are indexed as written (no index-time cost, nothing to rebuild).
 * @module dsh-knowledge-sync/search/expand/script
 */
import { createRequire } from 'node:module'
import { cedict } from './cedict.js'

type Convert = (text: string) => string
let toCn: Convert | undefined
let failed = false

/** Has opencc-js been loaded (or tried)? For tests of lazy loading. */
export const openccLoaded = (): boolean => toCn !== undefined || failed

/** Traditional (incl. Taiwan and Hong Kong phrasing) → Simplified; the text itself when opencc-js is unavailable. */
export function toSimplified(text: string): string {
  if (!toCn && !failed) {
    try {
      const require = createRequire(import.meta.url)
      const opencc = require('opencc-js/t2cn') as { Converter(o: { from: string; to: string }): Convert }
      toCn = opencc.Converter({ from: 'twp', to: 'cn' })
    } catch {
      failed = true
    }
  }
  try {
    return toCn ? toCn(text) : text
  } catch {
    return text
  }
}

/** Simplified → Traditional, character by character (CC-CEDICT); the text itself without the dictionary. */
export function toTraditional(text: string): string {
  const dict = cedict()
  if (!dict) return text
  let out = ''
  for (const ch of text) out += dict.traditional(ch)
  return out
}
