/**
 * Deterministic tags for a captured round: what kind of round it was (`error`, `fix`, `decision`…), which
 * languages and ecosystems it touched (`typescript`, `python`, `docker`, `ci`…) and which well-known programs its
 * shell commands ran (`git`, `pnpm`, `pytest`…). Every tag comes from a fixed vocabulary, never from the round's
 * free text, so a tag can never carry a credential or a customer's name. Pure: no I/O.
 * @module dsh-knowledge-sync/capture/tags
 */
import type { Round, ToolCall } from '../types.js'
import { SCAN_LIMIT, detectSignals, statedIn } from './salience.js'
import { statesWayOfWorking } from './statement.js'
import { PREFERENCE_STATED_TAG as PREFERENCE_STATED } from '../knowledge/store-types.js'

/** At most this many tags per round. */
export const MAX_TAGS = 8

/** Kinds of round, derived from the answer's salience signals and a few keywords. Listed in output order. */
export const KIND_TAGS = [PREFERENCE_STATED, 'error', 'fix', 'decision', 'workaround', 'config', 'test', 'performance'] as const

/** Languages and ecosystems, each with the patterns that reveal it anywhere in the round. Listed in output order. */
const TOPIC_RULES: ReadonlyArray<readonly [string, readonly RegExp[]]> = [
  ['typescript', [/\.(?:tsx?|mts|cts)\b/, /\b(?:tsc|tsconfig|typescript)\b|\bTS\d{4}\b/i]],
  ['javascript', [/\b[\w-]{1,60}\.(?:jsx?|mjs|cjs)\b/, /\bjavascript\b|\becmascript\b/i]],
  ['node', [/\b(?:node_modules|package\.json|npm|npx|pnpm|yarn|corepack)\b|\bnode(?:\.js)?\s?v?\d{2}\b|\bnode\.js\b|\bnode:[a-z]{2,}/i]],
  ['python', [/\b[\w-]{1,60}\.py\b/, /\b(?:python3?|pip3?|pytest|pyproject|virtualenv|venv|conda|poetry|django|flask|fastapi|numpy|pandas|scipy)\b|Traceback \(most recent/i]],
  ['rust', [/\b[\w-]{1,60}\.rs\b/, /\b(?:cargo|rustc|rustup|rust)\b|Cargo\.toml|error\[E\d{4}\]|\bE0\d{3}\b/i]],
  ['go', [/\b[\w-]{1,60}\.go\b/, /\bgo\.mod\b|\bgo (?:build|test|run|mod|get|vet)\b|\bgolang\b|\bgoroutines?\b/i]],
  ['java', [/\b[\w-]{1,60}\.java\b/, /\b(?:java|jvm|jdk|maven|gradle|spring boot)\b|JAVA_TOOL_OPTIONS|-XX:/i]],
  ['kotlin', [/\b[\w-]{1,60}\.kts?\b/, /\bkotlin\b/i]],
  ['ruby', [/\b[\w-]{1,60}\.rb\b/, /\b(?:ruby|rails|bundler|gemfile)\b/i]],
  ['php', [/\b[\w-]{1,60}\.php\b/, /\b(?:php|composer\.json|laravel)\b/i]],
  ['csharp', [/\b[\w-]{1,60}\.(?:cs|csproj)\b/, /\b(?:dotnet|csharp|nuget)\b/i]],
  ['cpp', [/\b[\w-]{1,60}\.(?:cpp|cc|cxx|hpp|hh)\b/, /\b(?:cmake|clang\+\+|g\+\+)\b|\bc\+\+/i]],
  ['swift', [/\b[\w-]{1,60}\.swift\b/, /\b(?:swift|xcode|swiftui)\b/i]],
  ['shell', [/\b[\w-]{1,60}\.(?:sh|bash|zsh)\b/, /\b(?:shell script|bash script|shebang|bad interpreter)\b|```(?:bash|sh|shell)\b/i]],
  [
    'sql',
    [/\b[\w-]{1,60}\.sql\b/, /\b(?:select\s[^;]{1,200}?\sfrom|create (?:unique )?index|create table|alter table|insert into|explain analyze|postgres(?:ql)?|mysql|sqlite|psql|sql)\b/i, /\bEXPLAIN\b/],
  ],
  ['mongodb', [/\b(?:mongo(?:db|ose|sh)?|E11000)\b/i]],
  ['redis', [/\bredis\b/i]],
  ['docker', [/\b(?:docker(?:file)?|docker-compose|compose\.ya?ml|dockerignore)\b/i]],
  ['kubernetes', [/\b(?:kubectl|kubernetes|k8s|helm|CrashLoopBackOff|ImagePullBackOff|OOMKilled)\b/i]],
  ['ci', [/\.github\/workflows|\b(?:github actions|gitlab-ci|jenkins(?:file)?|circleci|buildkite)\b|actions\/[\w-]{1,40}@/i, /\bCI\b|CI ?上|流水线/]],
  ['git', [/\bgit (?:[a-z-]{2,20})\b|\.git(?:attributes|ignore|modules)\b|\b(?:rebase|cherry-pick|merge conflict|force-push)\b/i]],
  ['react', [/\breact(?:-dom)?\b|\buse(?:State|Effect|Memo|Callback|Ref)\b|\b[\w-]{1,60}\.[jt]sx\b/i]],
  ['vue', [/\bvue\b|\b[\w-]{1,60}\.vue\b/i]],
  ['vite', [/\bvite\b/i]],
]

/** Programs worth a tag when a shell command runs them, mapped to the tags they give (topic tags included). */
const PROGRAM_TAGS: Readonly<Record<string, readonly string[]>> = {
  git: ['git'],
  gh: ['git', 'github'],
  npm: ['node', 'npm'],
  npx: ['node', 'npm'],
  pnpm: ['node', 'pnpm'],
  pnpx: ['node', 'pnpm'],
  yarn: ['node', 'yarn'],
  node: ['node'],
  tsc: ['typescript'],
  vitest: ['test', 'vitest'],
  jest: ['test', 'jest'],
  mocha: ['test'],
  eslint: ['lint'],
  prettier: ['lint'],
  python: ['python'],
  python3: ['python'],
  pip: ['python', 'pip'],
  pip3: ['python', 'pip'],
  pytest: ['test', 'python', 'pytest'],
  uv: ['python'],
  poetry: ['python'],
  cargo: ['rust', 'cargo'],
  rustc: ['rust'],
  go: ['go'],
  docker: ['docker'],
  'docker-compose': ['docker'],
  kubectl: ['kubernetes'],
  helm: ['kubernetes', 'helm'],
  terraform: ['terraform'],
  make: ['make'],
  psql: ['sql'],
  mysql: ['sql'],
  sqlite3: ['sql'],
  'redis-cli': ['redis'],
  mongosh: ['mongodb'],
  curl: ['http'],
  wget: ['http'],
}

/** Tool names that say something about the topic; everything else is already in the `tools` front-matter field. */
const TOOL_TAGS: Readonly<Record<string, readonly string[]>> = {
  web_search: ['web'],
  web_fetch: ['web'],
}

const TOPIC_TAGS = TOPIC_RULES.map(([tag]) => tag)
const PROGRAM_ONLY_TAGS = [...new Set(Object.values(PROGRAM_TAGS).flat())].filter((t) => !TOPIC_TAGS.includes(t) && !(KIND_TAGS as readonly string[]).includes(t))
const TOOL_ONLY_TAGS = [...new Set(Object.values(TOOL_TAGS).flat())]

/** Every tag deriveTags can emit from its fixed vocabulary, in output order (MCP server tags come on top of these). */
export const TAG_VOCABULARY: readonly string[] = [...KIND_TAGS, ...TOPIC_TAGS, ...PROGRAM_ONLY_TAGS, ...TOOL_ONLY_TAGS]

/** Lowercase ASCII kebab-case of a name: `[a-z0-9-]`, no leading, trailing or doubled dashes, at most 32 chars. */
export function sanitizeTag(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 32)
    .replace(/^-+|-+$/g, '')
}

/** Options of deriveTags. */
export interface TagOptions {
  /**
   * Add `ws-<basename of cwd>` (sanitized). Off by default: the cwd is already a front-matter field that search
   * filters on, and a folder name is free text a user chose, which the rest of the vocabulary never is.
   */
  workspace?: boolean
}

const TEST_RE = /\b[\w-]{1,60}\.(?:spec|test)\.[cm]?[jt]sx?\b|\btest_\w{1,60}\.py\b|\b(?:tests?|specs?|vitest|jest|pytest|mocha|e2e|flaky|go test|cargo test)\b|测试|单测|用例/i
const PERF_RE = /\b(?:slow(?:er|ly|ness)?|faster|speed(?:s|ed)? up|latency|performance|perf|throughput|memory leak|heap|OOM|bundle size)\b|慢|性能|耗时|内存泄漏|内存溢出|卡顿/i
const ERROR_WORDS_RE = /\b(?:errors?|exceptions?|crash(?:es|ed)?|fails?|failing|failed|stack trace|segfault)\b|报错|错误|异常|崩溃|失败/i
const FIXED_RE = /\b(?:fixed|fixes|the fix|fix(?:ed)? (?:it|this|that))\b|(?:^|\n)\s*(?:[*_#>-]+\s*)?fix\s*[:：]|修复|修好|解决了|解决(?:办法|方法|方案)/i
/** An inline code span that sets a value: `KEY=value`, `key: value`. */
const ASSIGNMENT_SPAN_RE = /`[\w.@/-]{1,60}\s?[:=]\s?[^`\s][^`\n]{0,200}`/
/**
 * The `config` tag needs more than the salience signal (any `KEY_NAME` or `a.b` code span gives that): the round must
 * also speak of configuration, or name a configuration file.
 */
const CONFIG_TAG_RE =
  /\b(?:config(?:uration|ured|ure)?|settings?|env(?:ironment)? var(?:iable)?s?|tsconfig|pyproject)\b|(?:\.env|\.npmrc|\.nvmrc)\b|\b[\w-]{1,30}\.(?:ya?ml|toml|ini|conf|cfg)\b|配置|设置|环境变量/i

/** The `command` string of a tool call's raw JSON arguments, or '' when it has none. */
function commandOf(tool: ToolCall): string {
  if (!tool.arguments || tool.arguments.length > SCAN_LIMIT) return ''
  try {
    const args: unknown = JSON.parse(tool.arguments)
    if (args && typeof args === 'object') {
      const c = (args as Record<string, unknown>).command ?? (args as Record<string, unknown>).cmd
      if (typeof c === 'string') return c
      if (Array.isArray(c) && typeof c[0] === 'string') return c.join(' ')
    }
  } catch {
    // not JSON: nothing to read a program from
  }
  return ''
}

/** Program names a shell command runs: the first word of every `&&`/`||`/`;`/`|` segment, past env assignments. */
export function programsOf(command: string): string[] {
  const out: string[] = []
  for (const segment of command
    .slice(0, 4096)
    .split(/&&|\|\||[;|\n]/)
    .slice(0, 32)) {
    const words = segment.trim().split(/\s+/)
    let i = 0
    while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || /^(?:sudo|env|time|exec|nohup|\()$/.test(words[i]))) i++
    // `npx vitest`, `pnpm exec tsc`: the tool run is the interesting program too
    const base = (w: string) => w.replace(/^.*\//, '').replace(/\.(?:m?js|cjs)$/, '')
    const program = base(words[i] ?? '')
    if (program) out.push(program)
    if ((program === 'npx' || program === 'pnpx') && words[i + 1]) out.push(base(words[i + 1]))
    if ((program === 'pnpm' || program === 'yarn' || program === 'npm') && words[i + 1] === 'exec' && words[i + 2]) out.push(base(words[i + 2]))
    if (program === 'node' && words[i + 1]) {
      // `node node_modules/vitest/vitest.mjs run`: name the package the script belongs to
      const m = /node_modules\/(?:\.bin\/)?(?:@[\w.-]+\/)?([\w.-]+)/.exec(words[i + 1])
      if (m) out.push(m[1])
    }
    if (program === 'python' || program === 'python3') {
      if (words[i + 1] === '-m' && words[i + 2]) out.push(words[i + 2])
    }
  }
  return out
}

/**
 * Deterministic tags for a round, lowercase ASCII kebab-case, at most MAX_TAGS, in vocabulary order: kinds first,
 * then languages and ecosystems, then programs and tool topics, then MCP servers, then (if asked) the workspace.
 */
export function deriveTags(round: Pick<Round, 'question' | 'answer' | 'tools' | 'cwd'>, options: TagOptions = {}): string[] {
  const question = (round.question ?? '').slice(0, SCAN_LIMIT)
  const answer = (round.answer ?? '').slice(0, SCAN_LIMIT)
  const tools = round.tools ?? []
  const args = tools
    .map((t) => t.arguments ?? '')
    .join('\n')
    .slice(0, SCAN_LIMIT)
  const all = `${question}\n${answer}\n${args}`
  const found = new Set<string>()

  // kinds: from what the answer says (salience signals), helped by the question
  const signals = new Set(detectSignals(answer))
  const diagnosed = signals.has('cause') || signals.has('fix') || signals.has('workaround') || signals.has('correction')
  const qSignals = detectSignals(question)
  if (signals.has('error-code') || (diagnosed && (qSignals.includes('error-code') || ERROR_WORDS_RE.test(question)))) found.add('error')
  if (signals.has('fix') || FIXED_RE.test(answer)) found.add('fix')
  if (statesWayOfWorking(statedIn(question))) found.add(PREFERENCE_STATED)
  if (signals.has('decision')) found.add('decision')
  if (signals.has('workaround')) found.add('workaround')
  if (signals.has('config') && (CONFIG_TAG_RE.test(question) || CONFIG_TAG_RE.test(answer) || ASSIGNMENT_SPAN_RE.test(answer))) found.add('config')
  if (TEST_RE.test(question) || TEST_RE.test(answer)) found.add('test')
  if (PERF_RE.test(question) || PERF_RE.test(answer)) found.add('performance')

  for (const [tag, patterns] of TOPIC_RULES) if (patterns.some((p) => p.test(all))) found.add(tag)

  const mcp: string[] = []
  for (const tool of tools) {
    const name = tool.name ?? ''
    for (const tag of TOOL_TAGS[name] ?? []) found.add(tag)
    for (const program of programsOf(commandOf(tool))) for (const tag of PROGRAM_TAGS[program] ?? []) found.add(tag)
    // an MCP tool `mcp__<server>__<tool>`: the server name is a configured tool name, not user text
    const m = /^mcp__(.{1,64}?)__/.exec(name)
    if (m) {
      const server = sanitizeTag(m[1])
      if (server && !mcp.includes(server)) mcp.push(server)
    }
  }

  const tags = TAG_VOCABULARY.filter((t) => found.has(t))
  for (const server of mcp) if (!tags.includes(server)) tags.push(server)
  const limit = options.workspace ? MAX_TAGS - 1 : MAX_TAGS
  const out = tags.slice(0, limit)
  if (options.workspace) {
    const base = sanitizeTag((round.cwd ?? '').replace(/[\\/]+$/, '').replace(/^.*[\\/]/, ''))
    if (base) out.push(`ws-${base}`.slice(0, 32).replace(/-+$/, ''))
  }
  return out
}
