/**
 * Expansion mined from the base's own documents: words that keep company with the query's words here. A question and
 * its answer often share no word ("What do Melanie's kids like?" → "They were stoked for the dinosaur exhibit"), but
 * the answer's words keep company, in this base, with the question's: such a candidate gains for them. The company of
 * a query word is counted over the documents that hold it, each with its neighbouring rounds (same session, turn ±
 * 1), and weighed by positive pointwise mutual information (PPMI: how much more often two words meet than chance
 * would have them), so words that are everywhere count for nothing. No model and no table on disk: the counts are
 * made at query time and kept in memory until the next write.
 * Only the best {@link COOCCUR_DEPTH} candidates are re-ranked; nothing enters the hits that the ranking did not find.
 * Measured on LoCoMo and the retrieval set in docs/search.md; off by default, like conversational context.
 * @module dsh-knowledge-sync/search/cooccur
 */
import { type PlannerHost, type QueryPlanner, RANK_DEPTH } from './planner.js'
import { quote } from './schema.js'
import { indexTokens, type QueryTerm, STOPWORDS, stem } from './tokenize.js'

/** The candidates re-ranked: as many as the ranking passes keep when a pass after them is on. */
export const COOCCUR_DEPTH = RANK_DEPTH
/** A query word held by more documents than this is skipped: it says little about any one of them, and counting its company is a pass over all of them. */
export const COOCCUR_MAX_DF = 2000
/** The documents of one query word read at most (the newest), their counts scaled to the word's frequency. */
export const COOCCUR_SAMPLE = 200
/** Entries each cache holds at most (documents' words, checked against their text; query words' company, emptied by any write). */
export const COOCCUR_CACHE_MAX = 4096
/** Two words must meet at least this often to count (a single meeting is chance). */
const MIN_MEETINGS = 2

/** A document's distinct word stems, each with the index token that stands for it (what `df` is asked with). */
type Words = Map<string, string>
/** A query word's company: how many of its documents (with their neighbours) hold each stem, over how many read. */
interface Company {
  met: Map<string, number>
  read: number
}

const WORD = /^\p{L}[\p{L}\p{N}']*$/u
const content = (token: string): boolean => token.length > 2 && !STOPWORDS.has(token) && WORD.test(token)

function wordsOf(text: string): Words {
  const out: Words = new Map()
  for (const t of indexTokens(text)) if (content(t)) out.set(stem(t), t)
  return out
}

/** The co-occurrence pass over one index: {@link run} re-ranks a pool in place. */
export class CooccurPass {
  private readonly words = new Map<number, { text: string; words: Words }>()
  private readonly company = new Map<string, Company>()
  private seen = -1

  constructor(
    private readonly host: PlannerHost,
    /** Documents holding a token (cached, capped for large ones), and the writes so far: the caches hold until they move. */
    private readonly planner: Pick<QueryPlanner, 'df' | 'generation'>,
    readonly weight: number,
  ) {}

  /** Entries in the caches (tests). */
  get cached(): { words: number; company: number } {
    return { words: this.words.size, company: this.company.size }
  }

  /** The words of each row, tokenized again only when its text changed (an edit keeps its rowid). */
  private wordsOfRows(rowids: number[]): Map<number, Words> {
    const out = new Map<number, Words>()
    if (!rowids.length) return out
    const rows = this.host.stmt('SELECT rowid AS r, text FROM body WHERE rowid IN (SELECT value FROM json_each(?))').all(JSON.stringify(rowids)) as Array<{ r: number; text: string }>
    for (const { r, text } of rows) {
      let known = this.words.get(r)
      if (known?.text !== text) {
        if (this.words.size >= COOCCUR_CACHE_MAX) this.words.clear()
        known = { text, words: wordsOf(text) }
        this.words.set(r, known)
      }
      out.set(r, known.words)
    }
    return out
  }

  /** The company of one query word, counted over (up to {@link COOCCUR_SAMPLE} of) its documents. */
  private companyOf(token: string): Company {
    const known = this.company.get(token)
    if (known) return known
    const holding = (this.host.stmt('SELECT rowid AS r FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?').all(quote(token), COOCCUR_SAMPLE) as Array<{ r: number }>).map((x) => x.r)
    const contexts = new Map<number, number[]>(holding.map((r) => [r, [r]]))
    // Every neighbour in one statement (the doc_session index), not one statement per document.
    const near = this.host
      .stmt(
        'SELECT h.rowid AS r, n.rowid AS n FROM doc AS h JOIN doc AS n ON n.session = h.session AND n.turn BETWEEN h.turn - 1 AND h.turn + 1 AND n.rowid <> h.rowid WHERE h.rowid IN (SELECT value FROM json_each(?)) AND h.session IS NOT NULL',
      )
      .all(JSON.stringify(holding)) as Array<{ r: number; n: number }>
    for (const { r, n } of near) contexts.get(r)!.push(n)
    const words = this.wordsOfRows([...new Set([...contexts.values()].flat())])
    const met = new Map<string, number>()
    for (const context of contexts.values()) {
      const here = new Set<string>()
      for (const r of context) for (const w of words.get(r)?.keys() ?? []) here.add(w)
      for (const w of here) met.set(w, (met.get(w) ?? 0) + 1)
    }
    const found = { met, read: holding.length }
    if (this.company.size >= COOCCUR_CACHE_MAX) this.company.clear()
    this.company.set(token, found)
    return found
  }

  /** Adds to each of the best candidates `weight × best score × its share of the strongest company found`. */
  run(pool: Map<number, number>, terms: QueryTerm[]): void {
    if (!(this.weight > 0) || pool.size < 2) return
    if (this.seen !== this.planner.generation) {
      this.company.clear()
      this.seen = this.planner.generation
    }
    const own = new Map<string, string>()
    for (const t of terms) if (t.kind === 'word') for (const x of t.tokens) if (content(x)) own.set(stem(x), x)
    if (!own.size) return
    const best = [...pool].sort((a, b) => b[1] - a[1]).slice(0, COOCCUR_DEPTH)
    const candidates = this.wordsOfRows(best.map(([r]) => r))
    // The candidates' words (not the query's own), each once, with the index tokens that stand for it.
    const wanted = new Map<string, Set<string>>()
    for (const words of candidates.values()) for (const [w, token] of words) if (!own.has(w)) (wanted.get(w) ?? wanted.set(w, new Set()).get(w)!).add(token)
    const n = this.host.size
    // The strongest association of each candidate word with any query word.
    const strength = new Map<string, number>()
    for (const token of own.values()) {
      const dfq = this.planner.df(token)
      if (dfq < MIN_MEETINGS || dfq > COOCCUR_MAX_DF) continue
      const { met, read } = this.companyOf(token)
      const scale = dfq / Math.max(1, read)
      for (const [w, tokens] of wanted) {
        const count = met.get(w) ?? 0
        if (count < MIN_MEETINGS) continue
        for (const wordToken of tokens) {
          const dfw = this.planner.df(wordToken)
          // A document's context is itself and up to two neighbours: chance meets a word about three times as often.
          const pmi = dfw > 0 ? Math.log((count * scale * n) / (dfq * dfw * 3)) : 0
          if (pmi > (strength.get(w) ?? 0)) strength.set(w, pmi)
        }
      }
    }
    if (!strength.size) return
    const gains = best.map(([r]) => {
      let gain = 0
      for (const w of candidates.get(r)?.keys() ?? []) gain += strength.get(w) ?? 0
      return [r, gain] as const
    })
    const most = Math.max(...gains.map(([, g]) => g))
    if (!(most > 0)) return
    const top = best[0][1]
    for (const [r, gain] of gains) pool.set(r, pool.get(r)! + (this.weight * top * gain) / most)
  }
}
