/**
 * The query planner: which rows a ranked search scores, and how. bm25 costs about a microsecond per matching row and
 * per phrase, plus a pass over each phrase's posting list, so a query whose terms match more rows than the score
 * budget is planned like MaxScore: the rarest terms ("drivers") select the candidates, the common terms still count in
 * their scores, and the plan is `pruned` (provably the same top rows) when the common terms together could not lift a
 * document outside the candidates above the last hit of the page. Otherwise it is `approx`: documents holding only
 * common terms are left out, and a query made of nothing but common terms (each in thousands of documents) ranks the
 * newest matching documents, about a budget's worth.
 *
 * Ranking: `bm25(title 4, tags 2, body 1, identifier wholes ×2) × kind boost × superseded factor (0.5)`, OR semantics (any query term matches),
 * times an all-terms bonus (1.6) for documents that hold every query term (an identifier counts when one of its
 * wholes, or all of its words, are present), computed with an AND-ed MATCH under the same filters.
 * @module dsh-knowledge-sync/search/planner
 */
import type { StatementSync } from 'node:sqlite'
import type { DocKind } from '../types.js'
import type { Where } from './filter.js'
import { KINDS, quote, STATUS_INDEX } from './schema.js'
import type { QueryTerm } from './tokenize.js'

/**
 * Every ranking pass keeps at least this many rows, not only the page's: a translation's or a neighbour's row then
 * competes with the user's own 50 best, not with the 10 on the page (retrieval set `heldout` recall@5 0.389 → 0.500,
 * `xlang` MRR 0.664 → 0.673, nothing else moved; search p50 ×1.03 at 10k, measured in docs/search.md).
 */
export const RANK_DEPTH = 50

/** At most this many common (non-driver) terms are scored per query; see {@link QueryPlanner.candidates}. */
export const MAX_SCORED_COMMON = 4
/**
 * bm25 first counts, for every phrase of a query, the rows holding it (a pass over its posting list, ~0.1 µs an
 * entry): a ranking pass may read at most this many budgets' worth of postings for its common terms.
 */
export const POSTINGS_PER_BUDGET = 20
/** The all-terms bonus reads the rows holding every term in one pass when at most this many budgets of them can. */
export const RANGE_BUDGETS = 4

/**
 * How a search was evaluated: `exact` (every matching row scored), `pruned` (rare-term drivers, provably the same
 * top rows), `approx` (only common terms, or common-only documents left out), `list` (no query text), `none`.
 */
export type Plan = 'list' | 'none' | 'exact' | 'pruned' | 'approx'

/** What the planner reads from its index. */
export interface PlannerHost {
  stmt(sql: string): StatementSync
  /** Number of documents. */
  readonly size: number
}

/** Ranking settings, resolved. */
export interface RankSettings {
  boost: Record<DocKind, number>
  /** The `bm25(fts, …)` call with the column weights. */
  bm25: string
  bonus: number
  /** Rank multiplier of a superseded document. */
  superseded: number
  /** How many matching rows one ranking pass may score. */
  budget: number
}

/** One ranked row: its rowid and its boosted bm25 (lower is better). */
export interface Row {
  r: number
  s: number
}
/** The all-terms test: its MATCH expression, a bound on the rows satisfying it, and the postings bm25 would count. */
interface AllTerms {
  expr: string
  rows: number
  postings: number
}

/**
 * Entries each planning cache holds at most. Both are otherwise cleared only by writes: a process that searches for
 * days without writing (a read-only CLI beside dsh, a quiet base) would keep every token ever asked for.
 */
export const PLANNING_CACHE_MAX = 10_000

/** Plans and runs the ranking passes of one index; keeps the document-frequency cache it plans with. */
export class QueryPlanner {
  /** Document frequency per query token, for query planning only (never for scores: FTS5 computes those). */
  private readonly dfCache = new Map<string, { n: number; cap: number }>()
  private writesSinceDf = 0
  /** How many matching rows one ranking pass may score. */
  readonly budget: number
  private readonly boost: Record<DocKind, number>
  private readonly bonus: number
  private readonly superseded: number
  private readonly bm25: string
  /** {@link RANGE_BUDGETS}; 0: always a probe per candidate (the spec comparing both sets it). */
  rangeBudgets = RANGE_BUDGETS
  /** Query-expansion phrases the corpus does not hold (most dictionary translations); forgotten at the next write. */
  readonly absent = new Set<string>()

  /** Remembers that the corpus holds no `phrase` (until the next write), within {@link PLANNING_CACHE_MAX}. */
  noteAbsent(phrase: string): void {
    if (this.absent.size >= PLANNING_CACHE_MAX) this.absent.clear()
    this.absent.add(phrase)
  }

  /** Entries in the planning caches (tests). */
  get cached(): { df: number; absent: number } {
    return { df: this.dfCache.size, absent: this.absent.size }
  }
  /** The plan of the last {@link candidates} call. */
  plan: Plan = 'none'

  constructor(
    private readonly host: PlannerHost,
    settings: RankSettings,
  ) {
    this.budget = settings.budget
    this.boost = settings.boost
    this.bonus = settings.bonus
    this.superseded = settings.superseded
    this.bm25 = settings.bm25
  }

  private stmt(sql: string): StatementSync {
    return this.host.stmt(sql)
  }

  /** Writes seen (here or by another process): caches of what the documents hold compare it (cooccur.ts). */
  generation = 0
  /** {@link newestRowid}'s answers, by count, for one generation. */
  private cuts = { generation: -1, at: new Map<number, number>() }

  /** Called after every write: planning statistics are refreshed once the corpus changed by ~2%. */
  wrote(): void {
    this.generation++
    this.absent.clear()
    if (++this.writesSinceDf > Math.max(32, this.host.size * 0.02)) {
      this.dfCache.clear()
      this.writesSinceDf = 0
    }
  }

  /**
   * Scored candidates (rowid → final score, higher is better) that contain the top `window` of the ranking; each pass
   * keeps up to `depth` rows (≥ window: the rows just below the page keep their scores, see {@link RANK_DEPTH}).
   */
  candidates(terms: QueryTerm[], where: Where, window: number, depth = window): Map<number, number> {
    const n = this.host.size
    const df = new Map<string, number>()
    const dfOf = (t: string): number => {
      let v = df.get(t)
      if (v === undefined) df.set(t, (v = this.df(t)))
      return v
    }
    // Is an identifier's part rare? Counting stops as soon as the answer is no.
    const rareCap = Math.floor(this.budget / 8)
    const rare = (t: string): boolean => (df.get(t) ?? this.df(t, rareCap + 1)) <= rareCap
    // The phrases to rank with. An identifier contributes its wholes when the corpus has them (every document with a
    // whole also holds its parts), plus its rare parts; else all its parts.
    const ranked = new Set<string>()
    for (const t of terms) {
      let tokens = t.tokens
      if (t.kind === 'ident' && t.parts?.length) {
        const wholes = t.tokens.filter((x) => !t.parts!.includes(x) && dfOf(x) > 0)
        // With a whole present, only rare parts are worth their cost (they find `SqliteError … busy` for
        // `SQLITE_BUSY`); common ones (`src`, `ts`, `get`) would only slow the query down.
        tokens = wholes.length ? [...wholes, ...t.parts.filter(rare)] : t.parts
      }
      for (const x of tokens) if (dfOf(x) > 0) ranked.add(x)
    }
    let active = [...ranked]
    if (!active.length) return new Map()
    // Terms in half the corpus or more get idf 1e-6 from FTS5's bm25: they cannot change a score, only cost time.
    if (n >= 1000) {
      const informative = active.filter((t) => df.get(t)! * 2 < n)
      if (informative.length) active = informative
    }
    const activeSet = new Set(active)
    const all = this.allTerms(terms, df, activeSet, ranked)
    const pool = new Map<number, number>()
    const add = (rows: Row[]): void => {
      for (const r of rows) if ((pool.get(r.r) ?? -Infinity) < -r.s) pool.set(r.r, -r.s)
    }
    const sum = (list: string[]): number => list.reduce((acc, t) => acc + df.get(t)!, 0)
    const or = (list: string[]): string => list.map(quote).join(' OR ')
    if (sum(active) <= this.budget) {
      // Few enough matching rows to score them all.
      this.plan = 'exact'
      add(this.rank(or(active), where, depth))
      if (all) this.applyBonus(all, where, window, depth, 0, pool)
      return pool
    }
    const sorted = [...active].sort((a, b) => df.get(a)! - df.get(b)!)
    // Drivers: the rarest terms, as many as fit the budget.
    const drivers: string[] = []
    let acc = 0
    for (const t of sorted) {
      if (acc + df.get(t)! > this.budget) break
      drivers.push(t)
      acc += df.get(t)!
    }
    // Not even the rarest term fits: it drives alone, over the newest documents only (about a budget's worth of its
    // rows). Such a query is made of common words only; its ranking is approximate.
    let from = 0
    if (!drivers.length) {
      drivers.push(sorted[0])
      from = this.newestRowid(Math.ceil((this.budget * n) / df.get(sorted[0])!))
    }
    const rest = sorted.slice(drivers.length)
    const d = or(drivers)
    // Rows holding only drivers are scored exactly by the drivers alone.
    add(this.rank(d, where, depth, from))
    if (all) {
      // Rows holding every term are scored exactly (with every phrase) by the AND query and get the bonus; rows
      // holding a driver and some common terms keep their driver score (an underestimate): approximate.
      this.applyBonus(all, where, window, depth, from, pool)
      this.plan = rest.length || from ? 'approx' : 'pruned'
      return pool
    }
    // One query term (an identifier's wholes, a CJK run's bigrams): rows holding a driver and a common token, scored
    // with every phrase (only the rarest common tokens: each phrase costs a pass over its posting list).
    const scored: string[] = []
    let postings = 0
    for (const t of rest.slice(0, MAX_SCORED_COMMON)) {
      if (postings + df.get(t)! > POSTINGS_PER_BUDGET * this.budget) break
      scored.push(t)
      postings += df.get(t)!
    }
    if (scored.length) add(this.rank(`(${d}) AND (${or(scored)})`, where, depth, from))
    // Exact when no document outside the candidates could reach the page: it would hold only common tokens, and bm25
    // gives a token at most idf × (k1 + 1).
    const maxBoost = Math.max(...Object.values(this.boost))
    const ceiling = rest.reduce((total, t) => total + idf(n, df.get(t)!) * 2.2, 0) * maxBoost
    const best = [...pool.values()].sort((a, b) => b - a)
    const kth = best.length >= window ? best[window - 1] : 0
    this.plan = !from && scored.length === rest.length && ceiling <= kth ? 'pruned' : 'approx'
    return pool
  }

  /**
   * The all-terms test as a MATCH expression, with an estimate of how many rows satisfy it; undefined when the query
   * has fewer than two terms the corpus knows. One group per query term: a word; a CJK run (any of its bigrams); an
   * identifier (one of its wholes, else all its parts). Terms the corpus does not know are left out ("all terms" means
   * all the terms that occur), and so are near-universal ones (taken as present).
   */
  private allTerms(terms: QueryTerm[], df: Map<string, number>, active: Set<string>, ranked: Set<string>): AllTerms | undefined {
    const count = (x: string): number => df.get(x) ?? 0
    const groups: string[] = []
    let rows = Infinity
    let postings = 0
    const seen = new Set<string>()
    for (const t of terms) {
      const tokens = t.tokens.filter((x) => ranked.has(x))
      if (!tokens.length || !tokens.some((x) => active.has(x))) continue
      const key = tokens.join(' ')
      if (seen.has(key)) continue
      seen.add(key)
      postings += tokens.reduce((a, x) => a + count(x), 0)
      const wholes = t.kind === 'ident' && t.parts?.length ? tokens.filter((x) => !t.parts!.includes(x)) : []
      if (wholes.length) {
        groups.push(wholes.length === 1 ? quote(wholes[0]) : `(${wholes.map(quote).join(' OR ')})`)
        rows = Math.min(
          rows,
          wholes.reduce((a, x) => a + count(x), 0),
        )
      } else if (t.kind === 'ident') {
        const parts = tokens.filter((x) => active.has(x))
        groups.push(parts.length === 1 ? quote(parts[0]) : `(${parts.map(quote).join(' AND ')})`)
        rows = Math.min(rows, ...parts.map(count))
      } else {
        groups.push(tokens.length === 1 ? quote(tokens[0]) : `(${tokens.map(quote).join(' OR ')})`)
        rows = Math.min(
          rows,
          tokens.reduce((a, x) => a + count(x), 0),
        )
      }
    }
    return groups.length < 2 ? undefined : { expr: groups.join(' AND '), rows, postings }
  }

  /**
   * Gives the rows holding every query term the all-terms bonus, at their exact score. Ranking them costs a pass over
   * every term's posting list (bm25 counts the rows holding each) plus the rows themselves (at most as many as hold
   * the rarest term); when either is large, only the best candidates already found are tested (no bm25, no counts).
   */
  private applyBonus(all: AllTerms, where: Where, window: number, depth: number, from: number, pool: Map<number, number>): void {
    if ((all.rows <= this.budget || from) && all.postings <= POSTINGS_PER_BUDGET * this.budget) {
      for (const r of this.rank(all.expr, where, depth, from)) pool.set(r.r, Math.max(pool.get(r.r) ?? 0, -r.s) * this.bonus)
      return
    }
    // One statement per candidate: `rowid = ?` lets FTS5 seek each posting list (~15 µs a probe), where an IN list
    // made it walk them (ten times slower). The rowid is bound as a BigInt: node:sqlite binds a number as a REAL, and
    // FTS5 ignores a rowid bound that is not an INTEGER (the probe then matched every candidate).
    const best = [...pool].sort((a, b) => b[1] - a[1]).slice(0, Math.max(30, window * 3))
    if (all.rows <= this.budget * this.rangeBudgets && best.length > 1) {
      // Few rows can hold every term: one pass over them between the lowest and highest candidate answers for every
      // candidate at once (the same answer as a probe each; a probe of a long query costs ~1 ms, a pass about one).
      const holding = new Set<number>()
      let lo = Number.POSITIVE_INFINITY
      let hi = 0
      for (const [r] of best) [lo, hi] = [Math.min(lo, r), Math.max(hi, r)]
      const range = this.stmt('SELECT fts.rowid AS r FROM fts WHERE fts MATCH ? AND fts.rowid >= ? AND fts.rowid <= ?')
      for (const row of range.iterate(all.expr, BigInt(lo), BigInt(hi)) as Iterable<{ r: number }>) holding.add(row.r)
      for (const [r, score] of best) if (holding.has(r)) pool.set(r, score * this.bonus)
      return
    }
    const probe = this.stmt('SELECT 1 AS hit FROM fts WHERE fts MATCH ? AND fts.rowid = ?')
    for (const [r, score] of best) if (probe.get(all.expr, BigInt(r))) pool.set(r, score * this.bonus)
  }

  /**
   * The rowid below which lie all but the `count` most recently indexed documents; 0 for all. Exact (a reused index
   * must rank as a rebuild of the same files, whose rowids have no holes), so rows are counted: from whichever end is
   * nearer, and remembered until the next write. Counting back from the newest alone was 15-20 ms for 86k of 120k
   * documents at 100k, most of the slowest queries' time.
   */
  private newestRowid(count: number): number {
    const size = this.host.size
    if (count >= size) return 0
    if (this.cuts.generation !== this.generation) this.cuts = { generation: this.generation, at: new Map() }
    let cut = this.cuts.at.get(count)
    if (cut === undefined) {
      const fromNewest = count <= size / 2
      // The same rowids, from FTS5's per-document size table (one row per indexed document, ~20 bytes): an offset into
      // `doc` walked its large rows (100k documents, an offset of 50k: 60 ms from disk pages, 7.6 ms cached; 1M: 173 /
      // 9 ms), and every write made the next search of a common word ask again (the soak's lag grew with it).
      const sql = `SELECT id FROM fts_docsize ORDER BY id ${fromNewest ? 'DESC' : 'ASC'} LIMIT 1 OFFSET ?`
      const row = this.stmt(sql).get(fromNewest ? count : size - 1 - count) as { id: number } | undefined
      cut = row ? row.id + 1 : 0
      if (this.cuts.at.size >= PLANNING_CACHE_MAX) this.cuts.at.clear()
      this.cuts.at.set(count, cut)
    }
    return cut
  }

  /**
   * Rows holding `token`, counted up to `cap` (a result equal to the cap means "at least that many": counting is a
   * pass over the posting list, and planning never needs to know more). Cached for planning; zero is never cached,
   * so a new document is found at once.
   */
  df(token: string, cap = POSTINGS_PER_BUDGET * this.budget + 1): number {
    const cached = this.dfCache.get(token)
    if (cached !== undefined && (cached.n < cached.cap || cap <= cached.cap)) return cached.n
    let n = 0
    try {
      n = (this.stmt('SELECT count(*) AS n FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)').get(quote(token), cap) as { n: number }).n
    } catch {
      n = 0
    }
    if (n > 0) {
      if (this.dfCache.size >= PLANNING_CACHE_MAX) this.dfCache.clear()
      this.dfCache.set(token, { n, cap })
    }
    return n
  }

  /** Top `n` rows of one MATCH expression under the filters, best first (`s` is the boosted bm25, lower is better). */
  rank(expr: string, where: Where, n: number, fromRowid = 0): Row[] {
    const b = this.boost
    // Every kind's boost from the kinds' own order (the rowid's low bits), so a new kind is never ranked as another.
    const boost = KINDS.map((kind, k) => `WHEN ${k} THEN ${b[kind]}`).join(' ')
    const sql =
      `SELECT fts.rowid AS r, ${this.bm25} * (CASE fts.rowid & 7 ${boost} ELSE ${b.manual} END)` +
      ` * (CASE (fts.rowid >> 3) & 3 WHEN ${STATUS_INDEX.superseded} THEN ${this.superseded} ELSE 1 END) AS s ` +
      `FROM fts${where.needsDoc ? ' JOIN doc ON doc.rowid = fts.rowid' : ''} WHERE fts MATCH ?${fromRowid ? ' AND fts.rowid >= ?' : ''}${where.sql} ORDER BY s, fts.rowid DESC LIMIT ?`
    try {
      // The bound as a BigInt: FTS5 applies a rowid bound only when it is an INTEGER (a REAL one is checked by SQLite
      // after FTS5 walked every posting: the same rows, slower).
      return this.stmt(sql).all(expr, ...(fromRowid ? [BigInt(fromRowid)] : []), ...where.params, n) as unknown as Row[]
    } catch {
      // Our expressions are built from quoted tokens only, so this is not expected; a search must still never throw.
      return []
    }
  }
}

/** FTS5's bm25 idf: log((N − n + 0.5) / (n + 0.5)), floored at 1e-6. */
function idf(total: number, n: number): number {
  return Math.max(1e-6, Math.log((total - n + 0.5) / (n + 0.5)))
}
