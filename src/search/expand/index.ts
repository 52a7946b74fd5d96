/**
 * Query-time expansion: bridges a query and documents that share no word with it (another language, another script,
 * a synonym). Given a query's terms, returns
 * - `terms`: the same terms, a Chinese run also carrying its other script's bigrams (the user's own word, written
 *   the other way: same weight, and it counts for the all-terms bonus);
 * - `extra`: weighted phrases the index scores apart and adds at `weight` (below 1: a translation or a synonym never
 *   counts as much as the user's own word) — from the curated glossary (English synonyms and English ↔ Chinese), and
 *   from CC-CEDICT (Chinese words → English glosses, English words → Chinese words).
 * Identifier terms (`ERR_PNPM_FETCH_404`, `getUserById`, paths, versions) are never expanded, nor are errno-style
 * codes (`ENOENT`, `ETIMEDOUT`), words with digits (error numbers, versions) or stopwords. Japanese (kana) and Korean
 * runs are not expanded.
 *
 * Cost: nothing is loaded until a query needs it — the glossary (a few KB) on the first query, CC-CEDICT when a query
 * has Chinese or the corpus does, opencc-js on the first Chinese query. Numbers in docs/search.md.
 * @module dsh-knowledge-sync/search/expand
 */
import { cjkBigrams, cjkChars, queryTerms, STOPWORDS, stem, type QueryTerm } from '../tokenize.js'
import { type Cedict, cedict, cedictLoaded, MAX_WORD, tablesBuilt } from './cedict.js'
import { parseGlossary, type GlossaryMember } from './glossary.js'
import { openccLoaded, toSimplified, toTraditional } from './script.js'

/**
 * A phrase (space-separated index tokens, matched adjacent) scored at `weight` × its bm25, only in documents that
 * hold none of `instead` (the user's own tokens it stands for: a document that has the user's word gains nothing from
 * its synonym or translation).
 */
export interface WeightedPhrase {
  phrase: string
  weight: number
  via: 'glossary' | 'dictionary'
  instead: string[]
}

/** What {@link expandQuery} returns. */
export interface Expansion {
  terms: QueryTerm[]
  extra: WeightedPhrase[]
}

/** What the index tells the expander about its corpus. */
export interface CorpusHints {
  /** The index holds Chinese (Han) text: only then are English words looked up in the dictionary. */
  han: boolean
}

/** Which sources run; all on by default. For measuring one against another. */
export interface ExpandOptions {
  script?: boolean
  glossary?: boolean
  dictionary?: boolean
  /** Weights of glossary and dictionary phrases (defaults {@link GLOSSARY_WEIGHT}, {@link DICTIONARY_WEIGHT}). */
  weights?: { glossary?: number; dictionary?: number }
  /** Splits a Simplified Chinese run into words for dictionary lookup; default {@link segment} (measured vs jieba). */
  segmenter?: (run: string) => string[]
  /** An extra English synonym source (lowercased word → words or phrases), at the glossary's weight; for measuring. */
  synonyms?: (word: string) => string[]
}

/** Weights of expansion phrases relative to the user's own words (1). */
export const GLOSSARY_WEIGHT = 0.85
export const DICTIONARY_WEIGHT = 0.6
/** At most this many dictionary translations per query word, and this many extra phrases per query. */
export const MAX_PER_WORD = 4
export const MAX_EXTRA = 32

const HAN = /[\u3400-\u9FFF\uF900-\uFAFF]/
const KANA_HANGUL = /[\u3040-\u30FF\uAC00-\uD7AF\u1100-\u11FF]/
const DIGIT = /[0-9]/
/** errno-style codes typed as one word (`ENOENT`, `EADDRINUSE`, `ETIMEDOUT`): error codes, never expanded. */
const ERRNO = /^E[A-Z]{3,}$/

interface GlossaryIndex {
  /** Stemmed single English word → groups. */
  word: Map<string, number[]>
  /** Stemmed English phrase (2–3 words) → groups. */
  phrase: Map<string, number[]>
  /** Chinese members, longest first, with their groups. */
  chinese: Array<{ text: string; groups: number[] }>
  groups: GlossaryMember[][]
}
let glossaryIndex: GlossaryIndex | undefined

function glossary(): GlossaryIndex {
  if (glossaryIndex) return glossaryIndex
  const groups = parseGlossary()
  const word = new Map<string, number[]>()
  const phrase = new Map<string, number[]>()
  const chinese = new Map<string, number[]>()
  const add = (m: Map<string, number[]>, k: string, g: number): void => {
    const list = m.get(k)
    if (!list) m.set(k, [g])
    else if (!list.includes(g)) list.push(g)
  }
  groups.forEach((members, g) => {
    for (const m of members) {
      if (m.chinese) add(chinese, m.text, g)
      else if (m.words.length === 1) add(word, stem(m.words[0]), g)
      else add(phrase, m.words.map(stem).join(' '), g)
    }
  })
  glossaryIndex = {
    word,
    phrase,
    groups,
    chinese: [...chinese].map(([text, gs]) => ({ text, groups: gs })).sort((a, b) => b.text.length - a.text.length),
  }
  return glossaryIndex
}

/** The index tokens of a Chinese word as one phrase (its bigrams, adjacent). */
const chinesePhrase = (word: string): string => cjkBigrams(word).join(' ')

/**
 * Splits a Simplified Chinese run into dictionary words by forward maximum matching over CC-CEDICT headwords
 * (2–6 characters); characters no headword starts with are skipped. Measured against jieba in docs/search.md.
 */
export function segment(run: string, has: (w: string) => boolean): string[] {
  const chars = Array.from(run)
  const out: string[] = []
  for (let i = 0; i < chars.length; ) {
    let taken = 0
    for (let n = Math.min(MAX_WORD, chars.length - i); n >= 2; n--) {
      const w = chars.slice(i, i + n).join('')
      if (has(w)) {
        out.push(w)
        taken = n
        break
      }
    }
    i += taken || 1
  }
  return out
}

/** {@link segment} with one dictionary read for every candidate word of the run (one query, not one per candidate). */
function segmentWith(run: string, dict: Cedict): string[] {
  const chars = Array.from(run)
  const candidates: string[] = []
  for (let i = 0; i < chars.length; i++) for (let n = 2; n <= MAX_WORD && i + n <= chars.length; n++) candidates.push(chars.slice(i, i + n).join(''))
  const known = dict.known(candidates)
  return segment(run, (w) => known.has(w))
}

/**
 * Loads every source of expansion now (the glossary, CC-CEDICT, opencc-js: ~35 ms together, once per process) instead
 * of in the first query that needs them: a long-lived store calls this in the background after its start. Not when
 * the dictionary would have to be derived first (a run from sources: seconds, never in the background).
 */
export function warmExpansion(options: ExpandOptions = {}): void {
  if (tablesBuilt()) expandQuery(queryTerms('數據庫 database timeout'), { han: true }, options)
}

/** Expands a query's terms; see the module comment. Never throws (a failing source is skipped). */
export function expandQuery(terms: QueryTerm[], corpus: CorpusHints, options: ExpandOptions = {}): Expansion {
  const useScript = options.script !== false
  const useGlossary = options.glossary !== false
  const useDictionary = options.dictionary !== false
  const gw = options.weights?.glossary ?? GLOSSARY_WEIGHT
  const dw = options.weights?.dictionary ?? DICTIONARY_WEIGHT
  const own = new Set(terms.flatMap((t) => t.tokens))
  const extra = new Map<string, WeightedPhrase>()
  let instead: string[] = []
  const push = (phrase: string, weight: number, via: WeightedPhrase['via']): void => {
    if (!phrase || own.has(phrase)) return
    const prev = extra.get(phrase)
    if (!prev || prev.weight < weight) extra.set(phrase, { phrase, weight, via, instead })
  }
  /** A member or translation as index phrases: an English phrase as is, a Chinese word in both scripts. */
  const emit = (text: string, weight: number, via: WeightedPhrase['via']): void => {
    if (HAN.test(text)) {
      // Chinese words cannot match a corpus without Chinese (and their Traditional forms would load the dictionary).
      if (!corpus.han) return
      push(chinesePhrase(text), weight, via)
      if (useScript) push(chinesePhrase(toTraditional(text)), weight, via)
    } else push(text, weight, via)
  }
  const emitGroups = (groups: number[], except: string): void => {
    const g = glossary()
    for (const k of groups) for (const m of g.groups[k]) if (m.text !== except) emit(m.text, gw, 'glossary')
  }
  const out: QueryTerm[] = []
  const words: string[] = []
  try {
    for (const t of terms) {
      if (t.kind === 'word') {
        out.push(t)
        const w = t.tokens[0]
        if (!DIGIT.test(w) && !STOPWORDS.has(w) && !ERRNO.test(t.source)) words.push(w)
        continue
      }
      if (t.kind !== 'cjk' || !HAN.test(t.source) || KANA_HANGUL.test(t.source)) {
        out.push(t)
        continue
      }
      // A Chinese run: its other script's bigrams join the term (same weight).
      const simplified = useScript ? toSimplified(t.source) : t.source
      const variants = useScript ? [simplified, toTraditional(simplified)] : []
      const tokens = [...t.tokens]
      for (const v of variants) for (const b of cjkBigrams(v)) if (!tokens.includes(b)) tokens.push(b)
      const chars = t.chars ? [...new Set([...t.chars, ...variants.flatMap(cjkChars)])] : undefined
      out.push(tokens.length === t.tokens.length && chars?.length === t.chars?.length ? t : { ...t, tokens, ...(chars ? { chars } : {}) })
      instead = tokens
      if (useGlossary) {
        for (const c of glossary().chinese) if (simplified.includes(c.text) || t.source.includes(c.text)) emitGroups(c.groups, c.text)
      }
      const dict = useDictionary ? cedict() : undefined
      if (dict) {
        const words = options.segmenter ? options.segmenter(simplified) : segmentWith(simplified, dict)
        for (const word of words) {
          for (const en of (dict.english(word) ?? []).slice(0, MAX_PER_WORD)) push(en, dw, 'dictionary')
        }
      }
    }
    // English words: single words and adjacent pairs ("rate limit", "graceful exit").
    const stems = words.map(stem)
    const keys: Array<{ key: string; words: string[] }> = stems.map((s, i) => ({ key: s, words: [words[i]] }))
    for (let i = 0; i + 1 < stems.length; i++) keys.push({ key: `${stems[i]} ${stems[i + 1]}`, words: [`${words[i]} ${words[i + 1]}`] })
    if (useGlossary && keys.length) {
      const g = glossary()
      for (const k of keys) {
        const groups = k.key.includes(' ') ? g.phrase.get(k.key) : g.word.get(k.key)
        instead = k.words
        if (groups) emitGroups(groups, '')
      }
    }
    if (options.synonyms) {
      for (let i = 0; i < words.length; i++) {
        instead = [words[i]]
        for (const syn of options.synonyms(words[i])) if (syn !== words[i]) push(syn, gw, 'glossary')
      }
    }
    const dict = useDictionary && corpus.han && words.length ? cedict() : undefined
    if (dict) {
      for (const k of keys) {
        instead = k.words
        for (const zh of dict.chinese(k.key).slice(0, k.key.includes(' ') ? MAX_PER_WORD : MAX_PER_WORD * 2)) emit(zh, dw, 'dictionary')
      }
    }
  } catch {
    // A source failing (a corrupt tables file, an odd input) must not fail the search: use what was gathered.
  }
  const list = [...extra.values()].sort((a, b) => b.weight - a.weight).slice(0, MAX_EXTRA)
  return { terms: out.length === terms.length ? out : terms, extra: list }
}

/** Does the text hold a Chinese (Han) character? The index asks this of every document it indexes (cheap). */
export function hasHan(text: string): boolean {
  return HAN.test(text)
}

/** Which sources are loaded in this process (each loads on the first query that needs it). */
export function loadedSources(): { glossary: boolean; dictionary: boolean; opencc: boolean } {
  return { glossary: glossaryIndex !== undefined, dictionary: cedictLoaded(), opencc: openccLoaded() }
}
