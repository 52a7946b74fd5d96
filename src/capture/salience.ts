/**
 * The salience bar: a deterministic, model-free judgement of whether a conversation round carries knowledge worth
 * writing down ("the cause was…", a pinned version, a config value) or is terse status ("12 passed", "已提交").
 * Pure: no I/O. Every regex runs over a bounded prefix of the text, so a 1 MB answer costs no more than a 32 KB one.
 * @module dsh-knowledge-sync/capture/salience
 */
import type { Round, Salience, ToolCall } from '../types.js'
import { answersWithFact, type StatedKind, statedKinds } from './statement.js'

/** The default bar, measured on test/fixtures/salience-set.json (see docs/salience.md). */
export { DEFAULT_MIN_SCORE } from '../knowledge/settings/fields.js'
import { DEFAULT_MIN_SCORE } from '../knowledge/settings/fields.js'

/** Only this many characters of an answer are scanned; signals live near the top and length is capped anyway. */
export const SCAN_LIMIT = 32_768

/** Only this many characters of all tool results together feed the echo check. */
export const TOOL_SCAN_LIMIT = 65_536

/** The reason given to a round whose answer is empty; such a round is never kept, whatever the bar. */
export const NO_ANSWER = '-no-answer'

/** Names of the knowledge signals, in their fixed tie-break order. */
export type SignalName = 'cause' | 'decision' | 'workaround' | 'correction' | 'error-code' | 'command' | 'config' | 'version' | 'fix' | 'rule' | 'path'

/** Weight of each signal and penalty; a reason is `+name` or `-name`. Order here is the tie-break order of reasons. */
export const WEIGHTS = {
  cause: 3,
  decision: 2.5,
  workaround: 2.5,
  correction: 2,
  'error-code': 1.5,
  command: 1.5,
  config: 1.5,
  version: 1.5,
  fix: 1.5,
  rule: 1.5,
  path: 1,
  // The person stated something lasting (./statement.ts): the first kind alone clears the default bar.
  'stated-correction': 3,
  'stated-rule': 3,
  'stated-decision': 3,
  'stated-preference': 3,
  'stated-fact': 3,
  'stated-owner': 3,
  'stated-schedule': 3,
  'stated-channel': 3,
  'code-block': 1,
  length: 2, // the cap, not a fixed amount
  echo: -4,
  'terse-status': -3,
  ack: -3,
  'too-short': -2,
  'no-signal': -1,
  // given to a round under the default bar that no other penalty explains: its signals were too few
  'weak-signal': 0,
} as const

type ReasonName = keyof typeof WEIGHTS
const ORDER = Object.keys(WEIGHTS) as ReasonName[]
const PENALTIES: ReadonlySet<ReasonName> = new Set(ORDER.filter((k) => WEIGHTS[k] <= 0))

// ---------------------------------------------------------------------------------------------------------------
// Patterns. All quantifiers are bounded or over disjoint classes, so matching is linear in the (capped) input.

const CAUSE = [
  /\b(?:because|root[- ]cause|the (?:cause|culprit|reason) (?:was|is)|caused by|turn(?:ed|s) out|due to|which is why|(?:comes|came|stems|stemmed) from|triggered by)\b/i,
  // "X, so Y" states a consequence; "that's the `bad interpreter` error" names what a finding explains
  /, so (?!far\b|much\b|many\b)\w/i,
  /\b(?:that|this)(?:'s| is| was) (?:why|what|the (?:culprit|problem|issue|bug|reason)\b|the [\w`' -]{1,40}(?:error|failure|crash)\b)/i,
  /原因|因为|所以|导致|由于|造成|引起|根源|问题出在|的缘故|来自|源于|出在/,
]
const DECISION = [
  /\b(?:we (?:chose|picked|went with|decided|opted|kept|prefer)|decided|decision|instead of|rather than|opted (?:for|to)|went with|chose|trade-?off|in favou?r of|staying on|not yet)\b/i,
  /\b(?:kept|chose|picked|prefer(?:red)?|use[ds]?) [\w@./:-]{1,40} over\b/i,
  /选择|选用|决定|改用|而不是|而非|权衡|取舍|暂时不|先保持|放弃/,
]
const WORKAROUND = [
  /\b(?:workaround|work around|pin(?:ned|ning|s)?|downgrad\w{0,10}|temporar(?:y|ily)|stopgap|hotfix|until (?:the )?upstream|monkey-?patch\w{0,10})\b/i,
  /绕过|临时方案|临时办法|临时解决|降级|固定在|固定为|锁定版本|规避|变通/,
]
const ERROR_CODE = [
  /\bE(?:NOENT|ACCES|PERM|ADDRINUSE|CONNREFUSED|CONNRESET|TIMEDOUT|EXIST|ISDIR|NOTDIR|MFILE|NOSPC|PIPE|NOTFOUND|AI_AGAIN|NOTEMPTY|BUSY|INVAL|HOSTUNREACH)\b/,
  /\b(?:ERR_[A-Z0-9_]{3,60}|E\d{4,5}|TS\d{4}|GH\d{3}|SIG(?:SEGV|KILL|TERM|ABRT|BUS|PIPE|INT|HUP|ILL|FPE)|OOMKilled|CrashLoopBackOff|ImagePullBackOff)\b/,
  /\b[A-Z][A-Za-z]{1,40}(?:Error|Exception|Warning)\b/,
  /\b(?:HTTP|status(?: code)?)[ /:]?[1-5]\d\d\b/i,
  /\b[45]\d\d (?:Not Found|Forbidden|Unauthorized|Too Many Requests|Payload Too Large|Bad Request|Conflict|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b/i,
  /\b(?:exit (?:code|status) \d{1,3}|Segmentation fault|panicked at|Traceback \(most recent call last\))/i,
  /\n\s{1,12}at [\w.<>$]{1,80} \([^()\n]{1,200}:\d{1,6}:\d{1,6}\)/,
]
const VERSION = [
  /\b\d{1,4}\.\d{1,4}\.\d{1,6}(?:-[\w.]{1,30})?\b/,
  /\b\d{1,4}\.x\b/,
  /[\w/-]@[\^~]?\d{1,4}(?:\.\d{1,6}){0,2}\b/,
  /\bv\d{1,4}(?:\.\d{1,6}){1,2}\b/,
  /(?:[<>]=?|==|~=)\s?\d{1,4}(?:\.\d{1,6}){0,2}\b/,
  /\b(?:node(?:\.js)?|python|java|jdk|go|rust|react|vue|angular|postgres(?:ql)?|mysql|redis|ubuntu|debian|alpine|typescript|pnpm|npm|yarn|esbuild|vitest|jest|numpy|scipy|django|rails|kotlin|swift|gcc|clang)[ :-]?v?\d{1,4}(?:\.\d{1,6}){0,2}\b/i,
]
const PATH = [
  // relative or absolute path with at least one directory and a file extension
  /(?:^|[\s`'"(=:])[~.]{0,2}\/?(?:[\w@.-]{1,80}\/){1,16}[\w@-]{1,80}(?:\.[\w-]{1,20}){0,3}\.[A-Za-z][\w]{0,7}\b/,
  // well-known absolute roots, even without an extension
  /(?:^|[\s`'"(=:])(?:~|\/(?:etc|usr|var|tmp|home|opt|proc|dev|srv|mnt|Users|Library|root))(?:\/[\w@.+-]{1,80}){1,16}/,
  // bare file names with a code or config extension
  /\b[\w-]{1,60}\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|cs|cpp|hpp|json|ya?ml|toml|ini|sql|sh|lock|gradle|tf)\b/,
]
const CONFIG = [
  /(?:^|[\s`'"(])[A-Z][A-Z0-9]{0,40}(?:_[A-Z0-9]{1,40}){0,8}=[^\s`'"]/, // KEY=value
  /(?:^|[\s`])--[a-z][\w-]{1,60}=\S/, // --flag=value
  /(?:^|[\s`'"(/])(?:\.env(?:\.[\w-]{1,20})?|\.npmrc|\.nvmrc|\.gitattributes|\.gitignore|\.editorconfig|\.yarnrc\.yml|settings\.ya?ml|(?:tsconfig|jsconfig)(?:\.[\w-]{1,20})?\.json|pyproject\.toml|setup\.cfg|Cargo\.toml|(?:docker-)?compose\.ya?ml|[\w-]{1,30}\.config\.[cm]?[jt]s|\.github\/workflows\/[\w.-]{1,60})(?=$|[\s`'",).:;])/,
  /\b(?:git config|npm config set|pnpm config set|yarn config set)\b/,
  /\b(?:set(?:ting)?|defaults?) (?:it |this )?(?:to|is|=) \S|\bby default\b|\(default \S/i,
  /配置项|配置成|配置为|设(?:置)?(?:成|为)|默认/,
]
/** A code span that reads as a setting: `key: value`, `key=value`, `a.b.c` setting path or an ENV_NAME. */
const CONFIG_SPAN = /^(?:[\w.@/-]{1,60}\s?[:=]\s?\S|[a-z][\w-]{0,40}(?:\.[A-Za-z][\w-]{0,40}){1,4}|[A-Z][A-Z0-9]{0,30}(?:_[A-Z0-9]{1,30}){1,8}_?)$/
const SHELL_PROGRAM =
  /^(?:\$\s)?(?:sudo\s)?(?:git|npm|npx|pnpm|pnpx|yarn|docker|docker-compose|kubectl|helm|pip3?|python3?|node|deno|bun|cargo|rustup|go|make|curl|wget|psql|mysql|redis-cli|gh|brew|apt(?:-get)?|terraform|uv|poetry|tsc|vitest|jest|pytest|eslint|prettier|ssh|scp|rsync|chmod|chown|tar|sed|awk|grep|rg|find|xargs|openssl|systemctl|journalctl)\s+\S/
const SHELL_WITH_FLAG = /^(?:\$\s)?[a-z][\w./@+-]{0,60}\s(?:[^\s`]{1,200}\s){0,20}--?[A-Za-z]/
const SHELL_FENCE = /```(?:bash|sh|shell|console|zsh|fish|powershell|ps1|cmd)\b/
/** A correction by contrast: "the service name, not localhost", "是预发环境，不是生产环境". */
const CORRECTION = [/, not (?!yet\b|sure\b|really\b)\w/i, /[，,]\s?(?:而)?不是|不是[^。！？!?]{1,30}而是/]
/** A described change with its target: "switched it to…", "now sends…", "改成…". */
const FIX = [
  /\b(?:switch(?:ed)?|change[ds]?|move[ds]?|replace[ds]?|rewr(?:ote|itten|ite)|made|turn(?:ed)?|convert(?:ed)?) (?:it |them |this |that |the [\w-]{1,30} )?(?:to|with|into|as)\b/i,
  /\bnow (?:uses?|sends?|returns?|goes|go|gets?|reads?|writes?|runs?|compares?|takes?)\b/i,
  /改成|改为|换成|换掉|替换|改用|改写为|现在(?:会|用|返回)/,
]
const RULE = [
  /\b(?:only|must|requires?|required|needs? to|never|cannot|can't|won't|doesn't|does not|don't|do not|avoid|isn't|not supported|deprecated|no longer|has to|instead)\b/i,
  /只(?:有|会|能|暴露|支持|用)|必须|需要|要求|不能|无法|不支持|弃用|不再|才能|不会|不要/,
]

const TERSE_STATUS = [
  // status phrases wherever they are
  /\b(?:\d{1,6} (?:tests? |specs? |checks? )?(?:passed|passing|failed|green)|all (?:\d{1,6} )?(?:tests?|checks?|specs?)?\s?(?:pass|passed|passing|green|are (?:passing|green))|tests? (?:pass|passed|are green)|build (?:succeeded|passed|is green)|no (?:issues|errors|problems|warnings) found|(?:reports|has|with|shows) no (?:errors|issues|warnings)|lgtm|nothing unusual|(?:is|looks) healthy|up to date)\b/i,
  // status verbs only where a sentence starts ("Done — renamed…", "Committed as…"), not inside a finding
  /(?:^|[.!;:\u2014\u2013-]\s{0,3})(?:(?:i|we)(?:'ve| have)? )?(?:done|ok|okay|committed|pushed|merged|reverted|formatted|installed|renamed|updated|added|removed|deleted|created|fixed|changes)\b/i,
  /完成|已(?:经)?[^。，,.！!？?]{0,12}?(?:提交|推送|完成|修改|改好|安装|格式化|回滚|合并|更新|重命名|删除|添加|修复)|改好了|测试(?:全部)?通过|全部通过|构建成功|没有(?:报错|错误|异常|问题)|运行正常|一切正常/,
]
const ACK = [
  /^(?:sure|ok(?:ay)?|thanks|thank you|you're welcome|glad|great|got it|understood|no problem|sorry|good (?:morning|afternoon|evening)|hi|hello|will do|of course|absolutely)\b/i,
  /\b(?:let me know|i'll wait|anything else|happy to help)\b/i,
  /^(?:好的|好|明白|谢谢|收到|没问题|不客气|抱歉|对不起|行|嗯)|告诉我|等你|随时/,
]
/** Signals strong enough that a round carrying one is not "terse status" or an "acknowledgement". */
const STRONG: ReadonlySet<SignalName> = new Set<SignalName>(['cause', 'decision', 'workaround', 'correction', 'error-code'])

const STOPWORDS = new Set(
  'the a an and or of to in on at for with is are was were be been it its this that these those i we you he she they all as by from has have had so not no but if then than there here my our your me us into out up do did does'.split(
    ' ',
  ),
)

// ---------------------------------------------------------------------------------------------------------------

/** Whether any of the patterns matches. */
function any(patterns: readonly RegExp[], text: string): boolean {
  for (const p of patterns) if (p.test(text)) return true
  return false
}

/** Whether a code point is CJK (Han, kana, Hangul): those scripts have no spaces, so each counts toward length alone. */
function isCjk(c: number): boolean {
  return (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x3040 && c <= 0x30ff) || (c >= 0xac00 && c <= 0xd7af)
}

/** How many CJK characters count as one word: a sentence takes ~1.6 Han characters per English word. */
export const CJK_CHARS_PER_WORD = 1.6

/**
 * A script-fair length in words: runs of Latin letters/digits count one each, CJK characters 1/1.6 each.
 * Scans at most SCAN_LIMIT characters.
 */
export function measureWords(text: string): number {
  const n = Math.min(text.length, SCAN_LIMIT)
  let words = 0
  let cjk = 0
  let inWord = false
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (isCjk(c)) {
      cjk++
      inWord = false
    } else if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c > 0xbf) {
      if (!inWord) words++
      inWord = true
    } else if (!(inWord && (c === 39 || c === 0x2019))) {
      // an apostrophe inside a word ("don't") keeps the word going
      inWord = false
    }
  }
  return words + cjk / CJK_CHARS_PER_WORD
}

/** Inline code spans and fenced blocks of a text, bounded in number. */
function codeSpans(text: string): { spans: string[]; fenced: boolean; shellFence: boolean } {
  const spans: string[] = []
  const fenced = /```[^`]/.test(text) && text.indexOf('```') !== text.lastIndexOf('```')
  const shellFence = SHELL_FENCE.test(text)
  const re = /`([^`\n]{1,300})`/g
  let m: RegExpExecArray | null
  while ((m = re.exec(text)) !== null && spans.length < 200) spans.push(m[1].trim())
  if (fenced) {
    // lines of fenced blocks count as spans too (commands in a ```bash block, `key: value` in a ```yaml block)
    const fence = /```[\w-]{0,20}\n([^`]{0,4000})```/g
    while ((m = fence.exec(text)) !== null && spans.length < 400) {
      for (const line of m[1].split('\n')) {
        const t = line.trim()
        if (t && t.length <= 300 && !t.startsWith('#')) spans.push(t)
        if (spans.length >= 400) break
      }
    }
  }
  return { spans, fenced, shellFence }
}

/** The knowledge signals present in a text (in the fixed order), without weights. Shared with the tag deriver. */
export function detectSignals(text: string): SignalName[] {
  const t = text.length > SCAN_LIMIT ? text.slice(0, SCAN_LIMIT) : text
  return signalsOf(t, codeSpans(t))
}

/** detectSignals over an already capped text and its code spans. */
function signalsOf(t: string, { spans, shellFence }: ReturnType<typeof codeSpans>): SignalName[] {
  const out: SignalName[] = []
  if (any(CAUSE, t)) out.push('cause')
  if (any(DECISION, t)) out.push('decision')
  if (any(WORKAROUND, t)) out.push('workaround')
  if (any(CORRECTION, t)) out.push('correction')
  if (any(ERROR_CODE, t)) out.push('error-code')
  if (shellFence || spans.some((s) => SHELL_PROGRAM.test(s) || SHELL_WITH_FLAG.test(s))) out.push('command')
  if (any(CONFIG, t) || spans.some((s) => CONFIG_SPAN.test(s))) out.push('config')
  if (any(VERSION, t)) out.push('version')
  if (any(FIX, t)) out.push('fix')
  if (any(RULE, t)) out.push('rule')
  if (any(PATH, t)) out.push('path')
  return out
}

/**
 * Lowercased content tokens of a text: Latin words (a trailing plural `s` dropped) and CJK character bigrams.
 * Stopwords are left out so that "the", "and" do not make every answer look like an echo.
 */
function tokenize(text: string, into: Set<string>): Set<string> {
  const re = /[a-z0-9_]{2,40}|[\u3400-\u9fff\uf900-\ufaff]{1,200}/g
  const lower = text.toLowerCase()
  let m: RegExpExecArray | null
  while ((m = re.exec(lower)) !== null) {
    const w = m[0]
    const c = w.charCodeAt(0)
    if (c >= 0x3400) {
      if (w.length === 1) into.add(w)
      for (let i = 0; i + 1 < w.length; i++) into.add(w.slice(i, i + 2))
    } else if (!STOPWORDS.has(w)) {
      into.add(w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w)
    }
  }
  return into
}

/** Share of the answer's content tokens that also occur in the tools' results (0 when there is nothing to echo). */
export function echoRatio(answer: string, tools: readonly ToolCall[]): number {
  let budget = TOOL_SCAN_LIMIT
  const pool = new Set<string>()
  for (const t of tools) {
    if (budget <= 0) break
    const r = t.result ?? ''
    if (!r) continue
    tokenize(r.length > budget ? r.slice(0, budget) : r, pool)
    budget -= r.length
  }
  if (pool.size === 0) return 0
  const mine = tokenize(answer.length > SCAN_LIMIT ? answer.slice(0, SCAN_LIMIT) : answer, new Set())
  if (mine.size < ECHO_MIN_TOKENS) return 0
  // weighted by token length: a shared `compilerOptions` says more about echoing than a shared "ok"
  let shared = 0
  let total = 0
  for (const w of mine) {
    total += w.length
    if (pool.has(w)) shared += w.length
  }
  return shared / total
}

/** An answer needs this many distinct content tokens before it can be judged an echo. */
export const ECHO_MIN_TOKENS = 6
/** From this share of echoed tokens on, an answer "only echoes its tool output". */
export const ECHO_THRESHOLD = 0.6
/** Answers up to this many words can be terse status or an acknowledgement. */
export const TERSE_MAX_WORDS = 25
/** Answers under this many words with no signal are "too short". */
export const SHORT_MAX_WORDS = 8
/** Length starts to count past this many words… */
export const LENGTH_FROM_WORDS = 20
/** …and reaches its cap (WEIGHTS.length) at this many. */
export const LENGTH_FULL_WORDS = 100

/**
 * What the person's message of a round states (./statement.ts), strongest first; `asked`: the agent's question the
 * message answers (./asked.ts), which makes a bare "pnpm" a stated fact.
 */
export function statedIn(question: string, asked?: string, corrects?: boolean): StatedKind[] {
  const kinds = statedKinds(question ?? '', detectSignals)
  if (asked && !kinds.includes('fact') && answersWithFact(question ?? '', detectSignals)) kinds.push('fact')
  // A message that corrects a fact the session stated earlier ("actually it's 5433") is a correction, however short.
  if (corrects && !kinds.includes('correction')) kinds.unshift('correction')
  return kinds
}

/** Each further kind the person stated adds this much to the first one's weight. */
const FURTHER_STATED = 0.5
/** Answer-side penalties an acknowledgement of a statement does not get: "Got it" is the right reply to a rule. */
const ACK_PENALTIES: readonly ReasonName[] = ['ack', 'too-short', 'no-signal', 'terse-status']

/** Score a round's content. Deterministic: the same question, answer and tools always give the same salience. */
export function scoreRound(round: Pick<Round, 'question' | 'answer' | 'tools' | 'asked' | 'corrects'>): Salience {
  const answer = round.answer ?? ''
  if (answer.trim() === '') return { score: 0, reasons: [NO_ANSWER] }
  const text = answer.length > SCAN_LIMIT ? answer.slice(0, SCAN_LIMIT) : answer
  const fired = new Map<ReasonName, number>()

  const code = codeSpans(text)
  const signals = signalsOf(text, code)
  for (const s of signals) fired.set(s, WEIGHTS[s])
  if (code.fenced) fired.set('code-block', WEIGHTS['code-block'])
  const words = measureWords(text)
  const lengthScore = Math.min(WEIGHTS.length, Math.max(0, ((words - LENGTH_FROM_WORDS) / (LENGTH_FULL_WORDS - LENGTH_FROM_WORDS)) * WEIGHTS.length))
  if (lengthScore > 0) fired.set('length', Math.round(lengthScore * 10) / 10)

  const strong = signals.some((s) => STRONG.has(s))
  if (echoRatio(text, round.tools ?? []) >= ECHO_THRESHOLD) fired.set('echo', WEIGHTS.echo)
  if (!strong && words <= TERSE_MAX_WORDS) {
    if (any(TERSE_STATUS, text)) fired.set('terse-status', WEIGHTS['terse-status'])
    else if (any(ACK, text.trim())) fired.set('ack', WEIGHTS.ack)
  }
  if (signals.length === 0) {
    if (words < SHORT_MAX_WORDS) fired.set('too-short', WEIGHTS['too-short'])
    else fired.set('no-signal', WEIGHTS['no-signal'])
  }

  const stated = statedIn(round.question, round.asked, round.corrects)
  stated.forEach((kind, k) => fired.set(`stated-${kind}`, k === 0 ? WEIGHTS[`stated-${kind}`] : FURTHER_STATED))
  if (stated.length) for (const penalty of ACK_PENALTIES) fired.delete(penalty)

  let score = 0
  for (const w of fired.values()) score += w
  score = Math.round(score * 10) / 10
  const dropped = score < DEFAULT_MIN_SCORE
  if (dropped && ![...fired.keys()].some((k) => PENALTIES.has(k))) fired.set('weak-signal', WEIGHTS['weak-signal'])
  return { score, reasons: orderReasons(fired, dropped) }
}

/**
 * Reasons by weight, largest first, ties in WEIGHTS order. For a round under the default bar the penalties come
 * first, so its top reason says why it was dropped (stats count dropped rounds by their top reason).
 */
function orderReasons(fired: Map<ReasonName, number>, dropped: boolean): string[] {
  const entries = [...fired.entries()]
  entries.sort((a, b) => {
    const pa = PENALTIES.has(a[0])
    const pb = PENALTIES.has(b[0])
    if (dropped && pa !== pb) return pa ? -1 : 1
    return Math.abs(b[1]) - Math.abs(a[1]) || ORDER.indexOf(a[0]) - ORDER.indexOf(b[0])
  })
  return entries.map(([name]) => (PENALTIES.has(name) ? '-' : '+') + name)
}

/**
 * Whether a scored round passes the bar. A bar of 0 (or below) keeps every round that has an answer, whatever its
 * score; a round without an answer is never kept.
 */
export function isKept(salience: Salience, minScore: number): boolean {
  if (salience.reasons.includes(NO_ANSWER)) return false
  return minScore <= 0 || salience.score >= minScore
}

/** The drop reason of a round that the default bar keeps but a raised `minScore` drops. */
export const BELOW_BAR = '-below-bar'

/**
 * The reason to count a dropped round under: its first penalty, or `-weak-signal` when none fired (possible when a
 * bar above the default drops a round whose reasons are all signals).
 */
export function dropReason(salience: Salience): string {
  return salience.reasons.find((r) => r.startsWith('-')) ?? '-weak-signal'
}
