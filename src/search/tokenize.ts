/**
 * Token expansion for the search index, shared by indexing and querying so both sides agree. Pure: no I/O.
 *
 * SQLite's FTS5 tokenizer (`porter unicode61 tokenchars '_'`) only splits on spaces here: this module decides what
 * the tokens are and hands FTS5 space-separated streams of them (words, and identifier wholes apart).
 * - Plain words are lowercased; FTS5 then porter-stems them (so `running` finds `run`).
 * - Identifiers match as wholes and by parts: `ERR_PNPM_FETCH_404` yields `err_pnpm_fetch_404` and `err`, `pnpm`,
 *   `fetch`, `404`; `searchIndex` yields `searchindex`, `search`, `index`; `hmr@1.0.17` yields `hmr_1_0_17`, `hmr`,
 *   `1_0_17`, `17`; `src/recall/search-index.ts` yields the whole path, `search_index_ts`, `search_index` and each word.
 *   Wholes join their pieces with `_`, so `search-index`, `search_index` and `search.index` are the same token.
 * - Chinese, Japanese and Korean runs (no spaces between words) become overlapping character bigrams, the classic
 *   CJK n-gram scheme: `安装依赖` → `安装 装依 依赖`.
 * @module dsh-knowledge-sync/search/tokenize
 */

/** Han (incl. extension B+ and compatibility), kana with `ー`, `々〆〇`, Hangul syllables and jamo. */
const CJK_CLASS = String.raw`\u3005-\u3007\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uAC00-\uD7AF\u1100-\u11FF\u{20000}-\u{3134F}`
/**
 * Word characters other than CJK. Explicit ranges (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Thai, Lao,
 * Georgian, Latin extended, full-width alphanumerics) instead of `\p{L}`: three times faster, which matters when
 * 100k documents are indexed at start.
 */
const WORD_CLASS = String.raw`0-9A-Za-z_\u00AA\u00B5\u00BA\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u0587\u0590-\u08FF\u0900-\u0DFF\u0E00-\u0EFF\u10A0-\u10FF\u1E00-\u1FFF\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A`
/**
 * The scanner: a CJK run, or a compound (word characters joined by `. - / @ : # +`; a connector must sit between two
 * word characters). Shared with the snippet module so both cut text the same way.
 */
export const SCAN_SOURCE = String.raw`([${CJK_CLASS}]+)|([${WORD_CLASS}]+(?:[.\-\/@:#+][${WORD_CLASS}]+)*)`
const SCAN = new RegExp(SCAN_SOURCE, 'gu')
/** Compounds longer than this (base64 blobs, long URLs) only yield their words: a whole that long is never queried. */
const MAX_WHOLE = 80
/** Words longer than this are dropped (hashes, minified code); nobody types them. */
const MAX_WORD = 64

/** One word needing no splitting (non-ASCII letters count as lowercase: camel-case is an ASCII convention). */
const PLAIN = /^(?:[a-z\u00C0-\uFFFF]+|[A-Z][a-z\u00C0-\uFFFF]*|[A-Z]+|[0-9]+)$/
const FULL_WIDTH = /[\uFF10-\uFF5A]/
/** Camel-case and letter/digit boundaries inside one `_`-free piece: `HTTPServer2Go` → `HTTP`, `Server`, `2`, `Go`. */
const WORD_PARTS = /[A-Z]+(?![a-z\u00C0-\uFFFF])|[A-Z]?[a-z\u00C0-\uFFFF]+|[0-9]+/g
/** The connectors that separate components (paths, scopes, versions) and, inside a component, its segments. */
const COMPONENT_SEP = /[/@:#+]/
const SEGMENT_SEP = /[.-]/

/** English function words and question words, dropped from queries only (documents keep them; BM25 gives them ~0 weight anyway). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has hasn have haven ' +
    'having he her here hers herself him himself his how i if in into is isn it its itself just let me more most mustn my myself ' +
    'no nor not of off on once only or other ought our ours ourselves out over own same shan she should shouldn so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very was wasn we were ' +
    'weren what when where which while who whom why will with won would wouldn you your yours yourself yourselves ' +
    'please thanks thank hi hello ok okay yes also again still why whats hows ive youre dont doesnt cant wont isnt ' +
    'happen happens happened happening anything something someone somebody everything thing things way ways'
  ).split(/\s+/),
)

/**
 * Chinese particles and question framing, and Japanese politeness endings: a query run is split at them, so no bigram
 * straddles them (`依赖的时候怎么办` → `依赖`). Documents are not split (their bigrams cost nothing and help exact
 * matches). Longest alternatives first.
 */
const CJK_QUERY_BREAKS =
  /怎么办|怎么样|为什么|有没有|怎么|什么|如何|怎样|为何|一下|可以|这个|那个|是否|时候|请问|[的了吗呢吧啊嘛呀哦]|どうすればいいですか|どうすれば|ですか|でした|ました|ません|です|ます/
const lower = (s: string): string => s.toLowerCase()
/** Full-width Latin letters and digits (common in Chinese and Japanese text) become ASCII before scanning. */
const normalize = (text: string): string => (FULL_WIDTH.test(text) ? text.normalize('NFKC') : text)

/** Splits one `_`-joined segment into lowercased words (camelCase, letter/digit boundaries). */
function segmentWords(segment: string, out: string[]): void {
  for (const piece of segment.split('_')) {
    if (!piece) continue
    if (PLAIN.test(piece)) {
      out.push(piece.toLowerCase())
      continue
    }
    const parts = piece.match(WORD_PARTS)
    if (parts) for (const p of parts) out.push(lower(p))
  }
}

/** Keeps a word worth indexing: two characters or more (single letters and digits are noise), bounded length. */
const keep = (w: string): boolean => w.length >= 2 && w.length <= MAX_WORD

/**
 * Expands one compound (an identifier, a path, a version or a plain word) into its tokens, wholes first.
 * Exported for tests and for the query side.
 */
export function compoundTokens(input: string): string[] {
  const { wholes, words } = compoundParts(input)
  return wholes.length ? [...wholes, ...words] : words
}

/** A compound's tokens split by role: `wholes` (joined identifiers) and `words` (its parts, or the plain word). */
export function compoundParts(input: string): { wholes: string[]; words: string[] } {
  const compound = normalize(input)
  if (PLAIN.test(compound)) return { wholes: [], words: keep(compound) ? [compound.toLowerCase()] : [] }
  const out: string[] = []
  const words: string[] = []
  const components = compound.split(COMPONENT_SEP)
  const componentWholes: string[] = []
  const long = compound.length > MAX_WHOLE
  for (const component of components) {
    const segments = component.split(SEGMENT_SEP)
    const segmentWholes: string[] = []
    for (const segment of segments) {
      const before = words.length
      segmentWords(segment, words)
      const whole = lower(segment)
      segmentWholes.push(whole)
      // A segment that is more than one word (`searchIndex`, `ERR_PNPM_FETCH_404`, `TS2345`) is also a token itself.
      if (!long && words.length - before > 1 && whole.length <= MAX_WORD) out.push(whole)
    }
    if (segments.length > 1) {
      const whole = segmentWholes.join('_')
      componentWholes.push(whole)
      if (!long) {
        out.push(whole)
        // `search-index.ts` is also `search-index`: people name files without their extension.
        const last = segmentWholes[segmentWholes.length - 1]
        if (segments.length > 2 && /^[a-z]{1,4}$/.test(last)) out.push(segmentWholes.slice(0, -1).join('_'))
      }
    } else componentWholes.push(segmentWholes[0])
  }
  if (components.length > 1 && !long) out.push(componentWholes.filter(Boolean).join('_'))
  return { wholes: out, words: words.filter(keep) }
}

/** Overlapping bigrams of a CJK run (a lone character stays itself). Works on code points, not UTF-16 units. */
export function cjkBigrams(run: string): string[] {
  const chars = Array.from(run)
  if (chars.length === 1) return chars
  const out: string[] = []
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1])
  return out
}

/** Every index token of a text, in order (duplicates kept: term frequency counts). */
export function indexTokens(input: string): string[] {
  const text = normalize(input)
  const out: string[] = []
  SCAN.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = SCAN.exec(text)) !== null) {
    if (m[1] !== undefined) {
      for (const b of cjkBigrams(m[1])) out.push(b)
      continue
    }
    const c = m[2]
    if (PLAIN.test(c)) {
      if (c.length >= 2 && c.length <= MAX_WORD) out.push(c.toLowerCase())
      continue
    }
    for (const t of compoundTokens(c)) out.push(t)
  }
  return out
}

/**
 * The space-separated token stream FTS5 indexes for a text: the same tokens as {@link indexTokens}, built as one
 * string directly (this runs for every document at start; no intermediate arrays).
 */
export function indexText(input: string): string {
  const { words, wholes } = indexStreams(input)
  return words + wholes
}

/** Han characters, one at a time (CJK unified ideographs, extension A, compatibility ideographs, extension B+). */
const HAN_CHAR = /[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\u{20000}-\u{3134F}]/u
/**
 * Han characters too common alone to find anything (particles, pronouns, "is", "one"): never indexed or queried as
 * single characters. Everything else is, in a column of its own and at a low weight (see {@link cjkChars}).
 */
const CHAR_STOP = new Set(Array.from('的了吗呢吧啊嘛呀哦是在我你他她它们这那和与就也都个一不有'))

/**
 * The single Han characters of a CJK run worth indexing, in order (duplicates kept). A short question that shares one
 * character and no pair with its answer (能吃辣 against 微辣/中辣, 锁死 against 死锁) meets it through these; pairs
 * still rank first, the characters' column weighing a fraction of the body's.
 */
export function cjkChars(run: string): string[] {
  const out: string[] = []
  for (const ch of run) if (HAN_CHAR.test(ch) && !CHAR_STOP.has(ch)) out.push(ch)
  return out
}

/**
 * The token streams of a text: `words` (plain words, identifier parts, CJK bigrams), `wholes` (joined identifiers) and
 * `chars` (the single Han characters, see {@link cjkChars}). The index keeps wholes and chars
 * in columns of their own so they can weigh more, or less, than words.
 */
export function indexStreams(input: string): { words: string; wholes: string; chars: string } {
  const text = normalize(input)
  let words = ''
  let wholes = ''
  let chars = ''
  SCAN.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = SCAN.exec(text)) !== null) {
    const run = m[1]
    if (run !== undefined) {
      for (const ch of cjkChars(run)) chars += ' ' + ch
      if (run.length === 1) {
        words += ' ' + run
        continue
      }
      // Bigrams by code point; surrogate pairs (CJK extension B+) take the slow path.
      if (!/[\uD800-\uDFFF]/.test(run)) {
        for (let i = 0; i + 1 < run.length; i++) words += ' ' + run.slice(i, i + 2)
        continue
      }
      for (const b of cjkBigrams(run)) words += ' ' + b
      continue
    }
    const c = m[2]
    if (PLAIN.test(c)) {
      if (c.length >= 2 && c.length <= MAX_WORD) words += ' ' + c.toLowerCase()
      continue
    }
    const parts = compoundParts(c)
    for (const t of parts.wholes) wholes += ' ' + t
    for (const t of parts.words) words += ' ' + t
  }
  return { words, wholes, chars }
}

/** One idea of a query: alternative tokens any of which counts as the idea being present. */
export interface QueryTerm {
  /** The query text this came from (a word, an identifier, a CJK run). */
  source: string
  kind: 'word' | 'ident' | 'cjk'
  /** Tokens to OR together for ranking; for an identifier the whole comes first. */
  tokens: string[]
  /** For an identifier: its distinct words; the idea is present when the whole is, or every one of these is. */
  parts?: string[]
  /** For a CJK run: its distinct single Han characters (ranked in a channel of their own, never counted as the term being present). */
  chars?: string[]
}

/** Bounds that keep a pasted 10 KB query from turning into a pathological MATCH expression. */
export const MAX_QUERY_TERMS = 24
export const MAX_QUERY_TOKENS = 64

/**
 * Parses a free-text query into {@link QueryTerm}s: same token rules as documents, English stopwords dropped (unless
 * the query is nothing but stopwords), CJK runs split at particles and framed by their bigrams. Duplicates are merged.
 * Never throws; returns `[]` when nothing searchable is left (punctuation, emoji, NUL).
 */
export function queryTerms(query: string): QueryTerm[] {
  const text = normalize(typeof query === 'string' ? query.slice(0, 20_000) : '')
  const terms: QueryTerm[] = []
  const stopped: QueryTerm[] = []
  const seen = new Set<string>()
  let tokenCount = 0
  const push = (t: QueryTerm, stop: boolean): void => {
    const key = t.tokens.join(' ')
    if (!t.tokens.length || seen.has(key)) return
    seen.add(key)
    ;(stop ? stopped : terms).push(t)
  }
  SCAN.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = SCAN.exec(text)) !== null && terms.length < MAX_QUERY_TERMS) {
    if (m[1] !== undefined) {
      const runs = m[1].split(CJK_QUERY_BREAKS)
      for (const run of runs) {
        // A lone character left between breaks is a fragment, not a word the user typed.
        if (!run || (runs.length > 1 && Array.from(run).length < 2)) continue
        const chars = [...new Set(cjkChars(run))]
        push({ source: run, kind: 'cjk', tokens: [...new Set(cjkBigrams(run))], ...(chars.length ? { chars } : {}) }, false)
      }
      continue
    }
    const c = m[2]
    const tokens = [...new Set(compoundTokens(c))]
    if (!tokens.length) continue
    if (tokens.length === 1 && (PLAIN.test(c) || tokens[0] === lower(c))) {
      push({ source: c, kind: 'word', tokens }, STOPWORDS.has(tokens[0]))
      continue
    }
    const parts: string[] = []
    segmentWordsOf(c, parts)
    const distinctParts = [...new Set(parts.filter(keep))]
    // Parts that are stopwords (`getUserById` → `by`) are kept only inside the whole.
    const rankTokens = tokens.filter((t) => t.includes('_') || !STOPWORDS.has(t) || distinctParts.length === 1)
    push({ source: c, kind: 'ident', tokens: rankTokens, parts: distinctParts.filter((p) => !STOPWORDS.has(p)) }, false)
  }
  const chosen = terms.length ? terms : stopped
  // Bound the total token count, keeping whole query terms.
  const out: QueryTerm[] = []
  for (const t of chosen) {
    if (tokenCount + t.tokens.length > MAX_QUERY_TOKENS) {
      const room = MAX_QUERY_TOKENS - tokenCount
      if (room > 0) out.push({ ...t, tokens: t.tokens.slice(0, room) })
      break
    }
    tokenCount += t.tokens.length
    out.push(t)
  }
  return out
}

function segmentWordsOf(compound: string, out: string[]): void {
  for (const component of compound.split(COMPONENT_SEP)) for (const segment of component.split(SEGMENT_SEP)) segmentWords(segment, out)
}

// ---------------------------------------------------------------------------------------------------------------
// Porter stemmer (M. F. Porter, 1980), the algorithm FTS5's `porter` tokenizer applies. The index never needs it (FTS5
// stems inside SQLite); snippets use it to mark `runs` when the query said `running`.

const STEP2: Record<string, string> = {
  ational: 'ate',
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  izer: 'ize',
  bli: 'ble',
  alli: 'al',
  entli: 'ent',
  eli: 'e',
  ousli: 'ous',
  ization: 'ize',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  iveness: 'ive',
  fulness: 'ful',
  ousness: 'ous',
  aliti: 'al',
  iviti: 'ive',
  biliti: 'ble',
  logi: 'log',
}
const STEP3: Record<string, string> = { icate: 'ic', ative: '', alize: 'al', iciti: 'ic', ical: 'ic', ful: '', ness: '' }
const C = '[^aeiou][^aeiouy]*'
const V = '[aeiouy][aeiou]*'
const MGR0 = new RegExp(`^(${C})?${V}${C}`)
const MEQ1 = new RegExp(`^(${C})?${V}${C}(${V})?$`)
const MGR1 = new RegExp(`^(${C})?${V}${C}${V}${C}`)
const S_V = new RegExp(`^(${C})?[aeiouy]`)

/** Porter-stems a lowercase ASCII word; other words come back unchanged. */
export function stem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word
  let w = word
  const firstY = w[0] === 'y'
  if (firstY) w = 'Y' + w.slice(1)
  let m: RegExpExecArray | null
  // Step 1a
  if ((m = /^(.+?)(ss|i)es$/.exec(w))) w = m[1] + m[2]
  else if ((m = /^(.+?)([^s])s$/.exec(w))) w = m[1] + m[2]
  // Step 1b
  if ((m = /^(.+?)eed$/.exec(w))) {
    if (MGR0.test(m[1])) w = w.slice(0, -1)
  } else if ((m = /^(.+?)(ed|ing)$/.exec(w))) {
    const s = m[1]
    if (S_V.test(s)) {
      w = s
      if (/(at|bl|iz)$/.test(w)) w += 'e'
      else if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1)
      else if (new RegExp(`^${C}[aeiouy][^aeiouwxy]$`).test(w)) w += 'e'
    }
  }
  // Step 1c
  if ((m = /^(.+?)y$/.exec(w)) && S_V.test(m[1])) w = m[1] + 'i'
  // Step 2
  if ((m = /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/.exec(w)) && MGR0.test(m[1]))
    w = m[1] + STEP2[m[2]]
  // Step 3
  if ((m = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/.exec(w)) && MGR0.test(m[1])) w = m[1] + STEP3[m[2]]
  // Step 4
  if ((m = /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/.exec(w))) {
    if (MGR1.test(m[1])) w = m[1]
  } else if ((m = /^(.+?)(s|t)(ion)$/.exec(w))) {
    if (MGR1.test(m[1] + m[2])) w = m[1] + m[2]
  }
  // Step 5
  if ((m = /^(.+?)e$/.exec(w))) {
    const s = m[1]
    if (MGR1.test(s) || (MEQ1.test(s) && !new RegExp(`^${C}[aeiouy][^aeiouwxy]$`).test(s))) w = s
  }
  if (/ll$/.test(w) && MGR1.test(w)) w = w.slice(0, -1)
  if (firstY) w = 'y' + w.slice(1)
  return w
}
