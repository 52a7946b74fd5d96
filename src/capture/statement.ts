/**
 * The person's side of a round: whether what the person said states something a later session needs (a rule or
 * prohibition, a fact about the environment, an owner, a schedule, a channel, a correction, a decision, a way of
 * working) even when the agent only acknowledged it. Deterministic, model-free, over a bounded prefix; the patterns
 * were written after test/fixtures/statement-set.json and measured on it (docs/salience.md).
 *
 * A statement is a declarative sentence about lasting work: a marker of its kind (an imperative marker such as
 * always / never / from now on / 以后 / 不要 / 一律, an owner verb, a schedule, a channel, "no, it's X", "we decided")
 * together with something it is about (a technical anchor: path, version, host, port, URL, setting, command, a
 * tool's name, or a word of the work itself: commit, branch, deploy, 提交, 发版 …). Questions, narration of one's own
 * habits ("I always forget…"), a pointer back to this exchange ("as you just said", 你刚才说的) and bare
 * imperatives for the task at hand ("run the tests") state nothing lasting.
 * @module dsh-knowledge-sync/capture/statement
 */
/** Only this many characters of the person's message are read: a statement is said in a sentence or two. */
export const STATEMENT_SCAN = 2000

/** What the person stated, strongest first in this order; a reason is `+stated-<kind>`. */
export type StatedKind = 'correction' | 'rule' | 'decision' | 'preference' | 'fact' | 'owner' | 'schedule' | 'channel'
export const STATED_KINDS: readonly StatedKind[] = ['correction', 'rule', 'decision', 'preference', 'fact', 'owner', 'schedule', 'channel']

// An anchor: what a statement is about. Technical shapes first, then the work's own words.
const URL = /\bhttps?:\/\/[\w.-]{1,100}/i
const HOST_PORT = /\b[a-z][\w-]{0,60}(?:\.[a-z][\w-]{0,60}){0,6}:\d{2,5}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b/i
const HOST = /\b[a-z][\w-]{0,60}\.(?:internal|local|lan|corp|prod|staging|dev|com|net|io|org|cn|cloud)\b/i
const PORT = /\bports? \d{2,5}\b|端口\s?(?:号)?\s?(?:是|为)?\s?\d{2,5}|\b\d{4,5}\b(?= ?(?:not|instead|，|,|。|\.|$))/i
const VERSION = /\b(?:node|python|postgres(?:ql)?|java|go|ruby|php|helm|kubernetes|k8s|redis|mysql|pnpm|npm|yarn|typescript|react|vue)\b[^\n.。]{0,20}?\b\d{1,3}(?:\.\d{1,3}){0,2}\b/i
const TOOL_NAMES =
  /\b(?:pnpm|npm|yarn|bun|vitest|jest|mocha|playwright|cypress|biome|prettier|eslint|ruff|black|uv|pip|poetry|conda|helm|docker|compose|kubectl|k8s|kubernetes|terraform|zod|pino|winston|dayjs|moment(?:\.js)?|grpc|rest|graphql|postgres(?:ql)?|mongo(?:db)?|redis|kafka|mysql|sqlite|ripgrep|rg|git|jira|slack|github|gitlab|vite|webpack|esbuild|turbo|nx)\b/i
const WORK_EN =
  /\b(?:commits?|push(?:es|ed)?|branch(?:es)?|PRs?|pull requests?|merges?|reviews?|tests?|lint(?:er)?|builds?|deploy(?:s|ment)?|releases?|migrations?|logs?|files?|code|functions?|docstrings?|apis?|endpoints?|database|db|config(?:uration)?|dependenc(?:y|ies)|packages?|install|chart|versions?|tags?|staging|prod(?:uction)?|CI|types?|registry|secrets?|passwords?|diffs?|answers?|replies|comments?|indent(?:ation)?|tabs|spaces|lines?|services?|webhooks?|schema|queries|modules?|repo(?:sitory)?|main|master|on-?call|incidents?|backups?|freeze|sprint|planning|rotation|notices?|channel|cron|jobs?|flags?|buckets?|keywords?|titles?|names?|sql|cluster|cache|dashboard|docs?|documentation)\b/i
const WORK_ZH =
  /提交|分支|合并|测试|发版|发布|部署|上线|生产|线上|接口|代码|依赖|日志|配置|数据库|镜像|注释|版本|目录|文件|仓库|评审|告警|周报|例会|模块|组件|密码|环境|集群|服务|结论|回答|格式|语法|字段|调用|迁移|备份|值班|回归|构建|任务|脚本|文档|术语|缓存|标题|单号|库|请求/
/** A name of the work: a kebab, snake or slash identifier (shop-uploads-prod, eu-west-1, Asia/Shanghai), a CamelCase product name, a time of day. */
const IDENTIFIER = /\b[a-z0-9]+(?:[-_/][a-z0-9]+){2,}\b|\b[A-Z][a-z]+[A-Z][A-Za-z]+\b|\b[A-Za-z][a-z]+\/[A-Z][a-z]+\b|\b\d{1,2} ?(?:am|pm)\b/
/** A named branch (release/2024 branch, 分支 hotfix-1) or chat channel (#team-weekly): names of the work, facts of it. */
const BRANCH_NAME = /\b[a-z][\w.-]*\/[\w./-]+ branch\b|\bbranch (?:is )?`?[a-z][\w.-]*\/[\w./-]+|[a-z][\w./-]*[/\d-][\w./-]*\s?分支/i
const CHANNEL_NAME = /(?:^|\s)#[a-z][\w-]{1,40}\b/i
/** What a thing is called, its HTTP method, its API version, a folder it is in: facts of the work too. */
const NAMED_AS = /\b(?:called|named)\s+`?[\w.-]{2,60}|叫(?:做)?\s?[A-Za-z][\w.-]{1,60}|(?:是|用)\s?(?:GET|POST|PUT|PATCH|DELETE)\b|\b(?:is|uses?) (?:a )?(?:GET|POST|PUT|PATCH|DELETE)\b/
const API_VERSION = /\bv\d{1,3}\b\s?(?:接口|api|endpoints?)|(?:api|接口)\s?v\d{1,3}\b/i
const FOLDER = /\b(?:in|under|at|from)\s+\.?\/?[a-z][\w.-]*\/[\w.-]+/i
/** A run of Latin letters inside Chinese text is nearly always a name of the work (requestId, release, k8s). */
const LATIN_IN_CJK = /[\u3400-\u9fff][^\n]{0,40}\b[A-Za-z][\w.-]{2,40}\b|\b[A-Za-z][\w.-]{2,40}\b[^\n]{0,40}[\u3400-\u9fff]/

// Markers of each kind.
const RULE_MARKERS = [
  /\b(?:always|never|from now on|going forward|from here on|every time|whenever|make sure|remember|must(?!\s+be\b)|do not|don't|only|should|has to|have to|needs? to|requires?|required|not allowed|follows?|gets? (?:its|their) own)\b/i,
  // a standing conditional addressed to the agent: "When you write SQL, uppercase the keywords"
  /^(?:when|whenever|if) you\b/i,
  /以后|今后|不要|不许|不准|不允许|禁止|必须|务必|应该|应当|需要|记住|一律|统一|都要|千万别|别(?:再|用|动|碰)|只能|只用|只读|每次|要(?=[带用写加走跑先经提改])|(?:的时候|时)[，,]?\s?(?:用|要|请|先|不要|都)/,
]
const OWNER = [
  /\b(?:owns?|is responsible for|are responsible for|maintains?|(?:is|are) the (?:code )?owners?|in charge of|go(?:es)? through|(?:it|that) is (?:his|hers|theirs))\b|\b(?:ping|ask|talk to|contact|check with) [A-Z][a-z]+\b/,
  /负责|在管|在维护|归[^，。]{1,10}(?:管|负责)|找(?:他|她)|请?找[^。？?]{1,15}[。]?$|联系[^。？?]{1,15}/,
]
const SCHEDULE = [
  /\bon (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays|weekends)\b|\b(?:every|each) (?:day|night|morning|week|month|sprint|quarter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\b(?:nightly|weekly|daily|monthly)\b|\bat \d{1,2}(?::\d\d)? ?(?:am|pm|utc)\b|\b\d{1,2}:\d\d ?utc\b/i,
  /每(?:周|天|日|晚|月|个月|季度|次迭代)|两周一个|隔周|最后一个周[一二三四五六日]/,
]
const CHANNEL = [/(?:^|\s)#[a-z][\w-]{1,40}\b|\b(?:channel|slack|teams|mailing list|jira)\b/i, /群|频道|飞书|钉钉|企业微信|Jira|邮件列表/]
const CORRECTION = [
  /^(?:no|nope|actually|wrong|not quite|that's (?:wrong|not right|incorrect)|that is (?:wrong|not right|incorrect))\b/i,
  /, not (?:the |in |on |at )?[\w.#/-]{2,}|\bnot [\w.#/-]{2,40}, (?:it's|it is|but)\b/i,
  /^(?:不是|不对|错了)|你?说错了|应该是[^。！？!?]{1,30}[，,]|不是[^。！？!?]{1,30}[，,]\s?(?:而)?是|是[^。！？!?]{1,30}[，,]\s?(?:而)?不是/,
]
const DECISION = [
  /\b(?:we(?:'re| are) going to|we (?:decided|chose|agreed|settled on|will go with|went with)|let's (?:use|go with|stick with|switch to|keep|move to)|decided to|decision is)\b/i,
  /决定|定了|确定|敲定|选定|就用|统一用|改用|先不[^。]{1,20}继续|先不上/,
]
const PREFERENCE = [
  /\b(?:i (?:prefer|'d prefer|would prefer|like|want you to|want answers)|keep (?:your )?(?:answers|replies|responses|it) (?:short|brief|concise)|answer in|reply in|respond in|show me [^.?!]{1,40} before|bullet points)\b/i,
  /先给结论|回答(?:的时候|时)|给我[^。]{0,20}(?:的时候|之前)|我(?:喜欢|希望|习惯)|不要加注释|用中文回答|用英文回答/,
]

// What states nothing lasting.
const QUESTION =
  /[?？]\s*$|^(?:is|are|was|were|should|shall|which|what|why|how|when(?! you\b)|where|who|can|could|does|did|will|would|do(?! not\b))\b|(?:吗|呢|么)[。\s]*$|^(?:谁|什么|哪|为什么|怎么|是不是|能不能|要不要)|是不是/i
const SELF_HABIT = /\bI (?:always|never|usually|sometimes) (?!want|prefer|use|need)\w|\bnever again\b|\bwill I\b/i
/** "For now", "wait for me", 等我, 先…吧: an instruction for the next few minutes, not a lasting one. */
const TEMPORARY = /\b(?:for now|for the moment|wait for me|until I (?:say|check|look))\b|等我|(?:^|[，,])先[^。]{0,20}吧\s*[。!！]?$/i
/** A fact is declared ("X is on…", "X 在…"); a sentence opening on a task verb asks for work on the thing named. */
const DECLARATIVE =
  /\b(?:is|are|was|were|lives?|sits?|runs?|listens?|located|hosted|stored|kept|uses?|we're on|we are on)\b|在|是|位于|地址|用的|我们[^，。？！\n]{0,8}用|端口(?:号)?\s?\d|版本(?:号)?\s?\d|(?:仓库|项目|团队|这边|公司|前端|后端|服务|CI)[^，。？！\n]{0,6}用\s?[A-Za-z]/i
const TASK_VERB =
  /^(?:please |pls |can you |could you )?(?:remove|delete|format|show|clean|open|run|fix|add|rename|move|check|look|help|print|read|write|update|install|revert|commit|push|rerun|retry|try)\b|^(?:帮我|请|把|给我看|看一下|打开|删|运行|跑一下)/i
/** Sentence-final 吧 without a lasting marker: a suggestion for the task at hand ("用 pnpm 吧"). */
const SUGGESTION = /吧\s*[。!！]?$/
const THIS_EXCHANGE = /\b(?:as you (?:just )?(?:said|suggested)|what you (?:just )?(?:said|suggested)|like you said)\b|刚才|刚刚说/i

const any = (patterns: readonly RegExp[], text: string): boolean => patterns.some((p) => p.test(text))

/** Whether the text names something a statement can be about. */
function hasAnchor(text: string, signals: readonly string[]): boolean {
  if (signals.some((s) => s === 'path' || s === 'version' || s === 'config' || s === 'command')) return true
  if (URL.test(text) || HOST_PORT.test(text) || HOST.test(text) || PORT.test(text) || VERSION.test(text) || TOOL_NAMES.test(text)) return true
  if (/`[^`\n]{1,80}`/.test(text) || IDENTIFIER.test(text) || BRANCH_NAME.test(text) || CHANNEL_NAME.test(text)) return true
  return WORK_EN.test(text) || WORK_ZH.test(text) || LATIN_IN_CJK.test(text)
}

/** Whether the text names a technical fact (not only the work's words): what an environment fact needs. */
function hasFactAnchor(text: string, signals: readonly string[]): boolean {
  return (
    signals.some((s) => s === 'path' || s === 'version' || s === 'config') ||
    IDENTIFIER.test(text) ||
    BRANCH_NAME.test(text) ||
    NAMED_AS.test(text) ||
    API_VERSION.test(text) ||
    FOLDER.test(text) ||
    URL.test(text) ||
    HOST_PORT.test(text) ||
    HOST.test(text) ||
    PORT.test(text) ||
    VERSION.test(text)
  )
}

/**
 * The kinds of statement the person's message makes ([] when it states nothing lasting), strongest first.
 * `message` is the person's text of the round (its Question section); `signalsOf` the answer-side signal detector
 * (salience.ts), passed in so that this module stays below it.
 */
export function statedKinds(message: string, signalsOf: (text: string) => readonly string[]): StatedKind[] {
  const text = (message.length > STATEMENT_SCAN ? message.slice(0, STATEMENT_SCAN) : message).trim()
  if (text.length < 4 || QUESTION.test(text) || SELF_HABIT.test(text) || THIS_EXCHANGE.test(text) || TEMPORARY.test(text)) return []
  const signals = signalsOf(text)
  const out = new Set<StatedKind>()
  // An owner statement is about the person it names; every other kind needs something of the work.
  if (any(OWNER, text)) out.add('owner')
  if (!hasAnchor(text, signals)) return [...out]
  if (any(CORRECTION, text)) out.add('correction')
  if (any(RULE_MARKERS, text)) out.add('rule')
  if (any(DECISION, text)) out.add('decision')
  if (any(PREFERENCE, text)) out.add('preference')
  if (any(SCHEDULE, text)) out.add('schedule')
  if (any(CHANNEL, text) && /\b(?:post|send|go(?:es)? to|file|raise|report)\b|发到|提到|发在|发给/i.test(text)) out.add('channel')
  const declared = DECLARATIVE.test(text) && !TASK_VERB.test(text)
  if (
    declared &&
    (hasFactAnchor(text, signals) || (TOOL_NAMES.test(text) && /\b(?:we use|we're on|we are on|run with|runs? with|is on|are on)\b|我们用|用的是|统一用|都用|管理|用\s?[A-Za-z]/i.test(text)))
  )
    out.add('fact')
  if (SUGGESTION.test(text) && !any(RULE_MARKERS, text)) return []
  return STATED_KINDS.filter((k) => out.has(k))
}

/**
 * The reply to a question the agent asked ("Which package manager?" … "pnpm"): a fact when it names something of the
 * work and is not itself a question, even without a marker.
 */
export function answersWithFact(reply: string, signalsOf: (text: string) => readonly string[]): boolean {
  const text = reply.trim()
  if (!text || QUESTION.test(text) || TEMPORARY.test(text) || THIS_EXCHANGE.test(text)) return false
  return hasAnchor(text, signalsOf(text))
}

/** Whether a statement describes how the person wants work done (the agent is told to record it as a preference). */
export function statesWayOfWorking(kinds: readonly StatedKind[]): boolean {
  return kinds.includes('rule') || kinds.includes('preference') || kinds.includes('decision')
}
