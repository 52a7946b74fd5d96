/**
 * A fact corrected later in the same session ("the staging database is on port 5432" … "actually it's 5433"): the
 * later round's document supersedes the earlier one through the store's relations (`supersedes` on the later one,
 * `superseded_by` and a notice on the earlier one, both readable), recorded in the ledger, never silently and never
 * across sessions. Deterministic and model-free; written after test/fixtures/correction-set.json.
 *
 * A round corrects an earlier one when all of these hold:
 * - its person's message carries a correction cue (actually / no / wrong / sorry, I meant / correction; 其实是 /
 *   不对，是 / 说错了 / 更正 / 应该是; 実は; eigentlich; en fait; en realidad …) and is not a question;
 * - it states a value for a subject key (port, version of a named tool, host, path, URL, channel, branch), or a bare
 *   number that takes its key from the earlier fact of the same shape ("actually it's 5433" after "port 5432");
 * - an earlier kept round of the same session stated that key with a different value; when the correction names the
 *   old value ("6380, not 6379", "不是 pnpm 8"), the earlier value must be that one;
 * - it names no other subject: every word it says beyond cue, key and value also appears in the earlier round (so
 *   "actually the prod database is on 5433" does not supersede "the staging database is on port 5432").
 * @module dsh-knowledge-sync/capture/corrected
 */
import { STATEMENT_SCAN } from './statement.js'

/** A subject key and the value a text gives it: `port` 5432, `version:node` 18, `path` deploy/values.yaml … */
export interface Fact {
  key: string
  value: string
}

/** What a correction supersedes: the earlier round's document and the fact that changed. */
export interface CorrectionTarget {
  id: string
  key: string
  from: string
  to: string
}

const CUE = [
  /^(?:no|nope|wrong|correction|sorry|oops|wait|actually)\b|,\s*not\s|\binstead of\b|\b(?:actually|wrong|incorrect|not right|i was wrong|i misspoke|i meant|my (?:bad|mistake)|scratch that|make (?:that|it)|correction)\b/i,
  /其实|不对|错了|说错|搞错|记错|更正|纠正|应该是|不是[^。！？!?]{1,30}[，,]\s?(?:而)?是/,
  /実は|いや|間違|訂正|じゃなくて/,
  /\b(?:eigentlich|korrektur|falsch|en fait|plutôt|en realidad|corrección|perdón|me equivoqué)\b|^(?:nein|non|doch)\b/i,
]
const QUESTION = /[?？]\s*$|(?:吗|呢)\s*[。]?\s*$/

const TOOLS =
  'node(?:\\.?js)?|python|postgres(?:ql)?|pnpm|npm|yarn|bun|deno|java|go|ruby|php|helm|kubernetes|k8s|redis|mysql|typescript|react|vue|rust|terraform|elasticsearch|kafka|nginx|ubuntu|debian'
const PORT = [/\bports?\s*(?:number\s*)?(?:is\s*|=\s*|:\s*)?(\d{2,5})\b/gi, /端口(?:号)?\s*(?:是|为|改成|改为|换成|用)?\s*(\d{2,5})/g, /\b(?:on|at)\s+(\d{4,5})\b/gi]
const HOST_PORT = /\b([a-z][\w-]*(?:\.[\w-]+)+):(\d{2,5})\b/gi
const VERSION = new RegExp(`\\b(${TOOLS})\\s*(?:v(?:ersion)?\\s*)?@?(\\d{1,3}(?:\\.\\d{1,3}){0,2})\\b`, 'gi')
const AT_VERSION = /\b([a-z][\w-]{1,40})@(\d{1,3}(?:\.\d{1,3}){0,2})\b/gi
const ZH_VERSION = /版本(?:号)?\s*(?:是|为)?\s*v?(\d+(?:\.\d+)*)/g
const URL = /\bhttps?:\/\/[^\s)>\]"'，。]+/gi
const HOST = /\b((?:[a-z0-9][\w-]*\.)+(?:internal|local|lan|corp|prod|staging|dev|com|net|io|org|cn|cloud))\b/gi
const PATH = /(?:^|[\s`'"(（：:，,])((?:~|\.{1,2})?\/?[\w.-]+(?:\/[\w.-]+)+\/?)/g
const FILE = /\b([\w-]+\.(?:ya?ml|json|toml|env|ini|conf|cfg|lock|properties))\b/gi
const CHANNEL = /(?:^|\s)(#[a-z][\w-]{1,40})\b/gi
const BRANCH = [/\b([\w][\w./-]*)\s+branch\b/gi, /\bbranch\s+(?:is\s+)?`?([\w][\w./-]*[\w])`?/gi, /([\w][\w./-]*)\s?分支/g]
/** A tool named for a job has one per project: a newer one named for the same job replaces it. */
const TOOL_JOBS: ReadonlyArray<[string, RegExp]> = [
  ['package-manager', /\b(npm|yarn|pnpm|bun)\b/gi],
  ['test-runner', /\b(jest|vitest|mocha|ava|jasmine|pytest|unittest)\b/gi],
  ['e2e-runner', /\b(playwright|cypress|puppeteer|selenium)\b/gi],
  ['linter', /\b(eslint|biome|ruff|pylint|flake8|golangci-lint)\b/gi],
  ['formatter', /\b(prettier|black|gofmt|rustfmt)\b/gi],
  ['bundler', /\b(webpack|vite|esbuild|rollup|parcel|turbopack)\b/gi],
]
const TIME = /\b(\d{1,2}(?::\d\d)?\s?(?:am|pm))\b|(?:^|\s)(\d{1,2}:\d\d)\b/gi
const NAMED = /\b(?:called|named)\s+`?([\w.-]{2,60})`?|叫(?:做)?\s?([A-Za-z][\w.-]{1,60})/gi
const METHOD = /\b(GET|POST|PUT|PATCH|DELETE)\b/g
const API_VERSION = /\b(v\d{1,3})\b(?!\.\d)/gi
/** A value with no key word, in a correction: a number or a dotted version. */
const BARE = /(?:^|[^\w.])(v?\d+\.\d+(?:\.\d+)?|\d{2,5})(?![\w.]*\w)/g
/** The clause naming the old value: "…, not 6379", "instead of 5432", "不是 pnpm 8，…". */
const OLD_CLAUSE =
  /\b(?:not|instead of|rather than|(?:don't|do not|doesn't|does not|isn't|aren't) (?:use|run|call)|nicht|pas)\s+([^,，。;；!！?？\n]*)|(?:而)?不是\s*([^,，。;；!！?？\n]*)|([^,，。;；!！?？\n]*)じゃなくて/gi

const STOP = new Set(
  (
    "a an the is are was were be been it it's its on in at to of for from and or we we're our us i i'm me my you your this that these those there here one " +
    'so just now yes ok okay really also still then use uses using used run runs running listen listens lives sits served hosted located goes go moved changed ' +
    'actually no nope wrong correction sorry oops wait meant mean mistake bad scratch make rather instead right correct earlier before said told typo ' +
    "not don't do does doesn't isn't aren't that's hmm um uh well since last week yesterday today anymore currently " +
    'port ports version host path url channel branch number value ' +
    "ist es das der die wir sind bei uns eigentlich nein c'est c est le la les ce nous en fait non el los son realidad"
  ).split(' '),
)
/** Chinese function characters and key words: what a correction says besides its subject. */
const CJK_FUNCTION = /端口号?|版本号?|地址|分支|频道|一下|我们|这个|那个|项目|[是的了在为用吗呢吧啊呀就也都还和与及或我你他她它们这那个些么要会能把被给对从到上中里其实应该]/g

const all = (re: RegExp, text: string): RegExpExecArray[] => [...text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))]
const normalTool = (tool: string): string =>
  tool
    .toLowerCase()
    .replace(/\.?js$/, '')
    .replace(/ql$/, '')

/** The keyed facts a text states. */
export function factsOf(raw: string): Fact[] {
  const out = new Map<string, Fact>()
  const add = (key: string, value: string | undefined) => {
    if (value) out.set(`${key}=${value.toLowerCase()}`, { key, value })
  }
  let text = raw.length > STATEMENT_SCAN ? raw.slice(0, STATEMENT_SCAN) : raw
  for (const m of all(URL, text)) add('url', m[0])
  text = text.replace(URL, ' ')
  for (const m of all(HOST_PORT, text)) {
    add('host', m[1])
    add('port', m[2])
  }
  for (const re of PORT) for (const m of all(re, text)) add('port', m[1])
  for (const m of all(VERSION, text)) add(`version:${normalTool(m[1])}`, m[2])
  for (const m of all(AT_VERSION, text)) add(`version:${normalTool(m[1])}`, m[2])
  for (const m of all(ZH_VERSION, text)) add('version', m[1])
  for (const m of all(HOST, text)) add('host', m[1])
  for (const [job, re] of TOOL_JOBS) for (const m of all(re, text)) add(`tool:${job}`, m[1].toLowerCase())
  for (const m of all(TIME, text)) add('time', (m[1] ?? m[2]).replace(/\s/g, '').toLowerCase())
  for (const m of all(NAMED, text)) add('name', (m[1] ?? m[2]).replace(/[.,]$/, ''))
  for (const m of all(METHOD, text)) add('method', m[1])
  for (const m of all(API_VERSION, text)) add('version', m[1].toLowerCase())
  for (const m of all(CHANNEL, text)) add('channel', m[1])
  const branches = new Set<string>()
  for (const re of BRANCH) for (const m of all(re, text)) if (/[\d/.-]/.test(m[1])) branches.add(m[1].toLowerCase()), add('branch', m[1])
  for (const re of [PATH, FILE]) for (const m of all(re, text)) if (!branches.has(m[1].toLowerCase()) && !/^\d/.test(m[1])) add('path', m[1].replace(/\/$/, ''))
  return [...out.values()]
}

const shapeOf = (value: string): string => (/^v?\d+\.\d+/.test(value) ? 'dotted' : /^\d+$/.test(value) ? 'int' : 'other')

/**
 * The words a text says beyond cues, keys and values: its subject. Each Latin word is one term; each run of Chinese
 * characters is one term given as its character pairs (a run is named in the earlier round when any pair is).
 */
function subjectTerms(text: string, values: readonly string[]): string[][] {
  let rest = text.toLowerCase()
  for (const v of values) rest = rest.split(v.toLowerCase()).join(' ')
  for (const cue of CUE) rest = rest.replace(new RegExp(cue.source, `${cue.flags.replace('g', '')}g`), ' ')
  const words = (rest.match(/[a-z][\w'’-]+/g) ?? []).filter((w) => !STOP.has(w)).map((w) => [w])
  const runs = (rest.replace(CJK_FUNCTION, ' ').match(/[\u3400-\u9fff]{2,}/g) ?? []).map((run) => Array.from({ length: run.length - 1 }, (_, i) => run.slice(i, i + 2)))
  return [...words, ...runs]
}

interface Remembered {
  id: string
  text: string
  facts: Fact[]
}

/** Characters of an earlier round kept for the subject check: 200 sessions × 20 rounds × this stays under 8 MB. */
const REMEMBERED_TEXT = 1000

/** The kept rounds of each session and the facts they state, newest last; bounded in sessions and rounds. */
export class SessionFacts {
  private readonly sessions = new Map<string, Remembered[]>()
  constructor(
    private readonly maxSessions = 200,
    private readonly perSession = 20,
  ) {}

  /** The session's earlier rounds that `message` corrects, for the kept round `id` (nothing when it corrects none). */
  corrects(session: string, message: string): CorrectionTarget[] {
    const earlier = this.sessions.get(session)
    const text = message.trim()
    if (!earlier?.length || !text || QUESTION.test(text) || !CUE.some((c) => c.test(text))) return []
    const oldValues: string[] = []
    const fresh = text.replace(new RegExp(OLD_CLAUSE.source, OLD_CLAUSE.flags), (_m, a?: string, b?: string, c?: string) => {
      const clause = a ?? b ?? c ?? ''
      oldValues.push(...factsOf(clause).map((f) => f.value), ...all(BARE, clause).map((m) => m[1]))
      return ' , '
    })
    const keyed = factsOf(fresh)
    const bare = keyed.length ? [] : all(BARE, fresh).map((m) => m[1])
    // The subject, clause by clause: a clause about the earlier value itself ("v1 已经下线了") says nothing new.
    const values = [...keyed.map((f) => f.value), ...bare, ...oldValues]
    const clauses = text.split(/[,，。;；!！:：\n]+/).map((clause) => ({ lower: clause.toLowerCase(), terms: subjectTerms(clause, values) }))
    const targets: CorrectionTarget[] = []
    const pick = (accept: (f: Fact) => boolean, to: string, prefer?: (f: Fact) => boolean) => {
      const found: Array<{ entry: Remembered; fact: Fact }> = []
      for (let i = earlier.length - 1; i >= 0; i--) {
        const entry = earlier[i]
        if (targets.some((t) => t.id === entry.id)) continue
        const lower = entry.text.toLowerCase()
        const about = clauses.filter((c) => !entry.facts.some((f) => c.lower.includes(f.value.toLowerCase())))
        if (about.some((c) => c.terms.some((term) => !term.some((t) => lower.includes(t))))) continue
        for (const fact of entry.facts)
          if (accept(fact) && fact.value.toLowerCase() !== to.toLowerCase() && (!oldValues.length || oldValues.some((v) => v.toLowerCase() === fact.value.toLowerCase()))) found.push({ entry, fact })
      }
      const best = found.find((f) => prefer?.(f.fact)) ?? found[0]
      if (best) targets.push({ id: best.entry.id, key: best.fact.key, from: best.fact.value, to })
    }
    for (const fact of keyed) pick((f) => f.key === fact.key, fact.value)
    for (const value of bare)
      pick(
        (f) => (f.key === 'port' || f.key.startsWith('version')) && shapeOf(f.value) === shapeOf(value),
        value,
        (f) => f.value.length === value.length,
      )
    return targets
  }

  /**
   * Remembers a kept round's facts (`text`: what the round says, both sides); a round that superseded others takes
   * their place for the keys it corrected, so a second correction supersedes the first one, not the original.
   */
  remember(session: string, id: string, text: string, corrected: readonly CorrectionTarget[] = []): void {
    let list = this.sessions.get(session)
    // The least recently active session goes first: a session still talking keeps its facts.
    this.sessions.delete(session)
    if (!list) {
      if (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string)
      list = []
    }
    this.sessions.set(session, list)
    const facts = factsOf(text.length > STATEMENT_SCAN * 2 ? text.slice(0, STATEMENT_SCAN * 2) : text)
    // What the subject check reads of the earlier round: its first REMEMBERED_TEXT characters (bounds the memory).
    const scan = text.length > REMEMBERED_TEXT ? text.slice(0, REMEMBERED_TEXT) : text
    facts.push(...corrected.map((t) => ({ key: t.key, value: t.to })))
    for (const t of corrected) {
      const old = list.find((e) => e.id === t.id)
      if (old) old.facts = old.facts.filter((f) => f.key !== t.key)
    }
    list.push({ id, text: [scan, ...corrected.map((t) => list.find((e) => e.id === t.id)?.text ?? '')].join('\n').slice(0, REMEMBERED_TEXT * 2), facts })
    while (list.length > this.perSession) list.shift()
  }

  /** Forgets a session (its documents stay; only the memory of its facts goes). */
  forget(session: string): void {
    this.sessions.delete(session)
  }
}
