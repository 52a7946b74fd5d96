/**
 * Query expansion's ranking passes (the phrases come from `expand/`): how the phrases that stand for the user's words
 * (another script, a translation, a synonym) are scored into a search's candidate pool, below the user's own words.
 * @module dsh-knowledge-sync/search/expansion
 */
import type { WeightedPhrase } from './expand/index.js'
import type { Where } from './filter.js'
import type { QueryPlanner } from './planner.js'
import { quote } from './schema.js'

/** Query expansion's cap for a word is computed exactly when the word occurs in at most this many documents. */
export const EXACT_CAP_ROWS = 64
/** At most this many sets of query words are expanded per query (each costs one or two ranking passes). */
export const MAX_EXPANDED_WORDS = 4

/**
 * Adds expansion phrases to the pool below the user's own words: the phrases standing for the same query words, at
 * the same weight, are ranked apart as `(phrases) NOT (the user's words)` (a document holding the user's word gains
 * nothing from its synonym), `weight / √(phrases) × bm25` is added to a row's score, and the sum for one set of
 * words is capped at the top weight × the best score those words reach in a document that holds them. Phrases the
 * corpus lacks are dropped, and only the rarest that fit the score budget are ranked (a translation as common as
 * "error" would only cost time). Returns the phrases that matched (for snippet marks).
 */
export function addExpansion(planner: QueryPlanner, pool: Map<number, number>, extra: WeightedPhrase[], where: Where, window: number): string[] {
  const budget = planner.budget
  // Words in more documents than the score budget are not expanded: they already fill the page with direct hits, and
  // `NOT (word)` would walk their long posting lists. Counting stops past the budget; that is all this needs.
  const dfCap = budget + 1
  const common = new Map<string, boolean>()
  const isCommon = (t: string): boolean => {
    let c = common.get(t)
    if (c === undefined) common.set(t, (c = planner.df(t, dfCap) >= dfCap))
    return c
  }
  const dfOf = (phrase: string): number => {
    if (planner.absent.has(phrase)) return 0
    const n = planner.df(phrase, dfCap)
    if (!n) planner.noteAbsent(phrase)
    return n
  }
  const live = extra
    .filter((e) => !e.instead.some(isCommon))
    .map((e) => ({ ...e, df: dfOf(e.phrase) }))
    .filter((e) => e.df > 0 && e.df < dfCap)
    .sort((a, b) => a.df - b.df)
  // Groups by the user's words they stand for, then by weight: each is ranked as `(phrases) NOT (the user's words)`.
  const byWords = new Map<string, { instead: string[]; byWeight: Map<number, string[]> }>()
  let rows = 0
  for (const e of live) {
    if (rows + e.df > budget) break
    rows += e.df
    const key = e.instead.join(' ')
    let group = byWords.get(key)
    if (!group) byWords.set(key, (group = { instead: e.instead, byWeight: new Map() }))
    const list = group.byWeight.get(e.weight)
    if (list) list.push(quote(e.phrase))
    else group.byWeight.set(e.weight, [quote(e.phrase)])
  }
  const ownBest = Math.max(0, ...pool.values())
  const used: string[] = []
  // At most MAX_EXPANDED_WORDS sets of words, the rarest first (a word the corpus lacks needs its synonyms most).
  const sets = [...byWords.values()]
    .map((g) => ({ ...g, df: g.instead.reduce((a, t) => a + planner.df(t, dfCap), 0) }))
    .sort((a, b) => a.df - b.df)
    .slice(0, MAX_EXPANDED_WORDS)
  for (const { instead, byWeight } of sets) {
    const added = new Map<number, number>()
    const not = instead.length ? ` NOT (${instead.map(quote).join(' OR ')})` : ''
    for (const [weight, phrases] of byWeight) {
      // bm25 sums over the phrases a row holds: divided by √(phrases), many synonyms of one word do not outweigh it.
      const w = weight / Math.sqrt(phrases.length)
      for (const r of planner.rank(`(${phrases.join(' OR ')})${not}`, where, window)) added.set(r.r, (added.get(r.r) ?? 0) - w * r.s)
      if (added.size) for (const p of phrases) used.push(p.slice(1, -1).replace(/""/g, '"'))
    }
    // What stands for the user's words never adds more than the top weight × the best score those words reach
    // themselves (when they occur at all): a translation cannot outrank the documents that hold the words.
    const own = instead.filter((t) => planner.df(t, dfCap) > 0)
    const ownRows = own.reduce((a, t) => a + planner.df(t, dfCap), 0)
    // Exact for rare words (ranking their rows is cheap); for words in many documents the best score of the page's
    // candidates bounds it (ranking hundreds of rows for a cap would double the query's cost).
    // Words the index lacks (a lone character, a word nobody wrote) are capped by the best of the user's own evidence
    // found so far (other words, the characters channel); only a query that found nothing lets translations through uncapped.
    const best = !own.length ? (ownBest > 0 ? ownBest : Infinity) : ownRows <= EXACT_CAP_ROWS ? -(planner.rank(own.map(quote).join(' OR '), where, 1)[0]?.s ?? -ownBest) : ownBest
    const cap = Math.max(...byWeight.keys()) * best
    for (const [r, v] of added) pool.set(r, (pool.get(r) ?? 0) + Math.min(v, cap))
  }
  return used
}
