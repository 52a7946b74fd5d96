/**
 * A deterministic generator of realistic coding-agent rounds, as the capture pipeline writes them: YAML front matter
 * plus a Markdown body with the user's question, the final answer and the tools used. Answers carry identifiers
 * (snake_case, camelCase, dotted and slashed paths), `package@version` pins, error codes, code blocks, some Chinese
 * and Japanese, across several workspaces; kinds are mostly `raw`, with some notes, distilled rounds and hand-written
 * global files. Reusable by any bench:
 *
 *   import { generateRounds, writeRounds } from './generate-rounds.mjs'
 *   const docs = generateRounds(1000, { seed: 7 })          // [{ meta, body, text, relPath }]
 *   await writeRounds('bench/.data/rounds-1000', 1000)       // writes the files, returns their relative paths
 *
 * CLI: `node bench/generate-rounds.mjs <count> <dir> [seed]`.
 * @module dsh-knowledge-sync/bench/generate-rounds
 */
import { mkdirSync, writeFileSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { mulberry32 as rng } from '../test/harness/rng.ts'

/** The same seed always yields the same corpus. */
export { rng }

export const WORKSPACES = [
  '/home/dev/projects/shop-api',
  '/home/dev/projects/shop-web',
  '/home/dev/projects/shop-web/packages/ui',
  '/home/dev/work/infra',
  '/home/dev/work/data-pipeline',
  '/home/dev/oss/dsh-knowledge-sync',
  '/home/dev/oss/cordis-plugins',
  '/srv/build/mobile-app',
]

const PACKAGES = [
  'react',
  'vite',
  'pnpm',
  'typescript',
  'esbuild',
  'vitest',
  'hmr',
  'zod',
  'prisma',
  'express',
  'next',
  'webpack',
  'eslint',
  'prettier',
  'jest',
  'axios',
  'lodash',
  'dayjs',
  'redis',
  'pg',
  'mongoose',
  'fastify',
  'koa',
  'sharp',
  'playwright',
  'tailwindcss',
  'postcss',
  'rollup',
  'turbo',
  'nx',
  'yaml',
  'picomatch',
  'chokidar',
  'ws',
  'undici',
  'node-fetch',
  'dotenv',
  'kysely',
  'drizzle-orm',
  'trpc',
  'graphql',
  'apollo-server',
  'socket.io',
  'bullmq',
  'pino',
  'winston',
  'commander',
  'yargs',
]
const ERRORS = [
  ['ERR_PNPM_FETCH_404', 'the registry returned 404 for a tarball'],
  ['ERR_PNPM_PEER_DEP_ISSUES', 'unmet peer dependencies'],
  ['ERR_PNPM_OUTDATED_LOCKFILE', 'the lockfile is out of date with package.json'],
  ['ERR_MODULE_NOT_FOUND', 'an ES module import could not be resolved'],
  ['ERR_REQUIRE_ESM', 'require() of an ES module'],
  ['ERR_UNKNOWN_FILE_EXTENSION', 'node does not know the .ts extension'],
  ['ECONNREFUSED', 'nothing listens on the port'],
  ['EADDRINUSE', 'the port is already taken'],
  ['ENOENT', 'a file or directory is missing'],
  ['EACCES', 'permission denied'],
  ['ETIMEDOUT', 'the connection timed out'],
  ['EPERM', 'operation not permitted'],
  ['TS2345', 'an argument type is not assignable to the parameter type'],
  ['TS2322', 'a type is not assignable to another type'],
  ['TS2307', 'cannot find module or its type declarations'],
  ['TS7016', 'could not find a declaration file for module'],
  ['TS18048', 'a value is possibly undefined'],
  ['E11000', 'duplicate key error collection'],
  ['SQLITE_BUSY', 'the database file is locked'],
  ['P2002', 'unique constraint failed on the fields'],
  ['ORA-00942', 'table or view does not exist'],
  ['CERT_HAS_EXPIRED', 'the TLS certificate expired'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'the certificate chain is incomplete'],
  ['EINTEGRITY', 'the tarball checksum does not match the lockfile'],
  ['ERESOLVE', 'npm could not resolve the dependency tree'],
  ['SIGSEGV', 'the process crashed with a segmentation fault'],
  ['OOMKilled', 'the container ran out of memory'],
  ['CrashLoopBackOff', 'the pod keeps restarting'],
  ['HTTP 429', 'rate limited by the upstream API'],
  ['HTTP 502', 'the gateway got a bad response from upstream'],
]
const DIRS = [
  'src',
  'src/components',
  'src/routes',
  'src/lib',
  'src/server',
  'packages/core/src',
  'packages/ui/src',
  'scripts',
  'test/unit',
  'test/e2e',
  'apps/web/src',
  'apps/api/src',
  'infra/terraform',
  'infra/k8s',
  'config',
  'lib',
  'src/db',
  'src/workers',
]
const STEMS = [
  'user',
  'order',
  'cart',
  'payment',
  'invoice',
  'session',
  'auth',
  'token',
  'cache',
  'queue',
  'job',
  'search',
  'index',
  'config',
  'logger',
  'router',
  'client',
  'server',
  'schema',
  'migration',
  'upload',
  'image',
  'report',
  'metrics',
  'webhook',
  'email',
  'profile',
  'product',
  'inventory',
  'shipment',
  'coupon',
  'tenant',
  'feature',
  'flag',
  'release',
  'build',
  'deploy',
  'health',
]
const VERBS = [
  'get',
  'set',
  'create',
  'update',
  'delete',
  'load',
  'save',
  'parse',
  'format',
  'validate',
  'handle',
  'fetch',
  'sync',
  'build',
  'resolve',
  'normalize',
  'compute',
  'render',
  'watch',
  'flush',
  'retry',
  'schedule',
]
const EXT = ['ts', 'tsx', 'js', 'mjs', 'json', 'yaml', 'py', 'go', 'rs', 'sql', 'sh', 'md']
const _TOOLS = [
  'bash',
  'read_file',
  'write_file',
  'edit_file',
  'grep',
  'glob',
  'list_dir',
  'web_fetch',
  'web_search',
  'bash_background',
  'todo_write',
  'knowledge_search',
  'knowledge_read',
  'git_diff',
  'run_tests',
]
const TAGS = [
  'pnpm',
  'typescript',
  'docker',
  'k8s',
  'ci',
  'testing',
  'performance',
  'security',
  'database',
  'frontend',
  'backend',
  'build',
  'deploy',
  'debugging',
  'networking',
  'auth',
  'migration',
  'refactor',
  'config',
  'release',
]
const FILLER = [
  'I checked the logs first and the failure is deterministic, it happens on every run.',
  'The root cause is a mismatch between what the build emits and what the runtime expects.',
  'After the change the tests pass locally and in CI.',
  'Nothing else in the repository depends on the old behaviour, so the change is safe.',
  'I left the public API unchanged; only the internal helper moved.',
  'Note that this only reproduces on a clean install, a warm cache hides it.',
  'If this comes back, look at the lockfile diff before anything else.',
  'The fix is small but the investigation took a while because the error message points at the wrong file.',
  'I also added a regression test so the next upgrade cannot silently reintroduce it.',
  'The same pattern exists in two other places; I fixed those as well.',
  'There is a simpler workaround, but it would hide real failures, so I did not use it.',
  'Running it twice shows the second run is much faster because of the cache.',
  'The documentation of the library is wrong about the default here.',
  'This matches what the upstream issue tracker describes.',
  'I measured before and after to make sure the change actually helps.',
  'The warning is harmless but noisy, so I silenced it at the source instead of filtering output.',
]
/** Sentence parts for explanation paragraphs: 24^4 combinations keep the vocabulary (and so term statistics) varied. */
const SUBJ = [
  'The retry loop',
  'The cache layer',
  'The migration script',
  'The request handler',
  'The build step',
  'The test fixture',
  'The background worker',
  'The config loader',
  'The session middleware',
  'The serializer',
  'The connection pool',
  'The file watcher',
  'The deploy pipeline',
  'The feature flag client',
  'The rate limiter',
  'The logger',
  'The validation schema',
  'The router',
  'The webhook consumer',
  'The scheduler',
  'The search query builder',
  'The image resizer',
  'The payment adapter',
  'The CLI wrapper',
]
const VERBP = [
  'was swallowing',
  'silently dropped',
  'kept re-reading',
  'never released',
  'double-counted',
  'mis-parsed',
  'eagerly loaded',
  'cached forever',
  'raced with',
  'blocked on',
  'retried without backoff on',
  'logged but ignored',
  'serialized twice',
  'leaked',
  'truncated',
  'duplicated',
  'skipped',
  'mutated',
  'reordered',
  'timed out on',
  'deadlocked on',
  'overwrote',
  'rejected',
  'ignored',
]
const OBJ = [
  'the error from upstream',
  'the last batch',
  'stale entries',
  'the lock',
  'unicode input',
  'the trailing newline',
  'large payloads',
  'the auth header',
  'empty arrays',
  'the first request after deploy',
  'concurrent writes',
  'the shutdown signal',
  'nested objects',
  'the timezone offset',
  'optional fields',
  'the pagination cursor',
  'the connection handshake',
  'partial failures',
  'the temp directory',
  'symlinked paths',
  'the default locale',
  'the response stream',
  'numeric ids',
  'the environment override',
]
const CTX = [
  'under load',
  'in CI only',
  'after the last upgrade',
  'on cold start',
  'when the queue was full',
  'on Windows paths',
  'behind the proxy',
  'in the staging cluster',
  'with the new driver',
  'for very old accounts',
  'when two tabs were open',
  'during the nightly job',
  'on slow disks',
  'with strict mode on',
  'on the first run',
  'after a failover',
  'in the docker image',
  'with an empty database',
  'when the cache was warm',
  'on ARM runners',
  'in production',
  'for large tenants',
  'during deploys',
  'on retries',
]

const sentence = (r) => `${pick(r, SUBJ)} ${pick(r, VERBP)} ${pick(r, OBJ)} ${pick(r, CTX)}.`
/** An explanation paragraph of 2–5 sentences. */
const paragraph = (r) => Array.from({ length: 2 + Math.floor(r() * 4) }, () => sentence(r)).join(' ')

const ZH = [
  ['安装依赖失败', '依赖安装时网络超时，配置镜像源之后恢复正常。'],
  ['构建速度太慢', '增量构建没有生效，缓存目录被清空了，修复后构建时间从三分钟降到四十秒。'],
  ['测试偶尔失败', '测试之间共享了全局状态，并发运行时互相干扰，改为每个测试单独初始化。'],
  ['数据库连接泄漏', '连接池没有释放连接，在请求结束时调用 release 之后问题解决。'],
  ['内存占用过高', '缓存没有设置上限，加上 LRU 淘汰策略后内存稳定在两百兆以内。'],
  ['接口返回超时', '下游服务响应慢，增加了超时和重试，并记录慢请求日志。'],
  ['部署后页面空白', '静态资源路径配置错误，base 设置为子路径之后页面正常显示。'],
  ['权限校验不生效', '中间件注册顺序错误，鉴权中间件必须在路由之前注册。'],
  ['日志里出现乱码', '终端编码不是 UTF-8，设置 LANG 环境变量之后正常。'],
  ['热更新不工作', '文件监听在容器里失效，改用轮询模式后热更新恢复。'],
]
const JA = [
  ['ビルドが失敗する', '型定義ファイルが見つからないため、tsconfig の paths を修正しました。'],
  ['テストがタイムアウトする', 'モックが解決されずに待ち続けていたので、タイマーを偽装しました。'],
  ['ログイン後にリダイレクトされない', 'セッションのクッキーに SameSite 属性が足りなかったのが原因です。'],
]

const pick = (r, list) => list[Math.floor(r() * list.length)]
const _pickN = (r, list, n) => {
  const out = new Set()
  while (out.size < n) out.add(pick(r, list))
  return [...out]
}
const version = (r) => `${Math.floor(r() * 20)}.${Math.floor(r() * 12)}.${Math.floor(r() * 30)}`
const camel = (r) => pick(r, VERBS) + pick(r, STEMS).replace(/^./, (c) => c.toUpperCase()) + (r() < 0.4 ? pick(r, STEMS).replace(/^./, (c) => c.toUpperCase()) : '')
const snake = (r) => `${pick(r, STEMS)}_${pick(r, STEMS)}${r() < 0.3 ? '_' + pick(r, ['id', 'at', 'count', 'ttl', 'key']) : ''}`
const envVar = (r) =>
  `${pick(r, ['DATABASE', 'REDIS', 'API', 'HTTPS', 'NODE', 'S3', 'SENTRY', 'JWT', 'SMTP'])}_${pick(r, ['URL', 'PROXY', 'KEY', 'HOST', 'PORT', 'OPTIONS', 'SECRET_NAME', 'TIMEOUT'])}`
const path = (r) => `${pick(r, DIRS)}/${pick(r, STEMS)}${r() < 0.5 ? '-' + pick(r, STEMS) : ''}.${pick(r, EXT)}`
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1)

/** Topic templates: each returns { title, question, answer, tags, tools } from the random source. */
const TOPICS = [
  (r) => {
    const [code, what] = pick(r, ERRORS.slice(0, 12))
    const pkg = pick(r, PACKAGES)
    const v = version(r)
    return {
      title: `${code} when installing ${pkg}@${v}`,
      question: `pnpm install fails with ${code} for ${pkg}@${v}. What is going on?`,
      answer:
        `${code} means ${what}. The lockfile pins ${pkg}@${v} but the registry mirror configured in .npmrc does not have it. ` +
        `I ran \`pnpm config get registry\` and it pointed at the internal mirror. Pointing \`@scope:registry\` back to https://registry.npmjs.org fixed it.\n\n` +
        '```sh\npnpm install --frozen-lockfile\n```\n\n' +
        pick(r, FILLER),
      tags: ['pnpm', pick(r, TAGS)],
      tools: ['bash', 'read_file'],
    }
  },
  (r) => {
    const [code, what] = pick(r, ERRORS.slice(12, 17))
    const file = path(r)
    const fn = camel(r)
    const line = 10 + Math.floor(r() * 400)
    return {
      title: `Fix ${code} in ${file.split('/').pop()}`,
      question: `tsc reports ${code} at ${file}:${line}. Can you fix it without using any?`,
      answer:
        `${code}: ${what}. The call \`${fn}(input)\` passes a \`string | undefined\` where the signature expects \`string\`. ` +
        `I narrowed it with an early return and changed the return type of \`${camel(r)}\` to \`Promise<${cap(pick(r, STEMS))} | null>\`.\n\n` +
        `\`\`\`ts\nif (input === undefined) return null\nconst result = await ${fn}(input)\n\`\`\`\n\n${pick(r, FILLER)} ${pick(r, FILLER)}`,
      tags: ['typescript'],
      tools: ['read_file', 'edit_file', 'bash'],
    }
  },
  (r) => {
    const [code, what] = pick(r, ERRORS.slice(6, 12))
    const port = pick(r, [3000, 5173, 8080, 5432, 6379, 27017, 9229])
    const svc = pick(r, ['postgres', 'redis', 'the dev server', 'mongodb', 'the API gateway', 'the worker'])
    return {
      title: `${svc} ${code} on port ${port}`,
      question: `Getting ${code} on 127.0.0.1:${port} when the tests start ${svc}.`,
      answer:
        `${code} (${what}). ${cap(svc)} was started by docker compose but bound to the container network only. ` +
        `I set \`ports: ["${port}:${port}"]\` in docker-compose.yml and added a wait-for loop in scripts/wait-for.sh.\n\n${pick(r, FILLER)}`,
      tags: ['docker', 'testing'],
      tools: ['bash', 'read_file', 'edit_file'],
    }
  },
  (r) => {
    const pkg = pick(r, PACKAGES)
    const from = version(r)
    const to = version(r)
    const fn = camel(r)
    return {
      title: `Upgrade ${pkg} from ${from} to ${to}`,
      question: `Please upgrade ${pkg} to ${to} and fix whatever breaks.`,
      answer:
        `Upgraded ${pkg}@${from} → ${pkg}@${to}. Breaking changes that affected us: the default export became a named export, ` +
        `and \`${fn}\` now returns a promise. I updated ${1 + Math.floor(r() * 9)} call sites and the ${pkg} config in ${path(r)}.\n\n` +
        `${pick(r, FILLER)}\n\n- ${path(r)}\n- ${path(r)}\n- ${path(r)}`,
      tags: ['release', pick(r, TAGS)],
      tools: ['bash', 'grep', 'edit_file', 'run_tests'],
    }
  },
  (r) => {
    const table = snake(r)
    const col = snake(r)
    const [code, what] = pick(r, [ERRORS[17], ERRORS[18], ERRORS[19], ERRORS[20]])
    return {
      title: `${code} on ${table}`,
      question: `The migration for ${table} fails with ${code}. The column ${col} was added last week.`,
      answer:
        `${code}: ${what}. The migration inserts rows before creating the unique index on ${col}, and existing data has duplicates. ` +
        `I added a dedupe step:\n\n\`\`\`sql\nDELETE FROM ${table} a USING ${table} b WHERE a.id > b.id AND a.${col} = b.${col};\nCREATE UNIQUE INDEX ${table}_${col}_key ON ${table} (${col});\n\`\`\`\n\n${pick(r, FILLER)}`,
      tags: ['database', 'migration'],
      tools: ['bash', 'read_file', 'write_file'],
    }
  },
  (r) => {
    const v = envVar(r)
    const file = path(r)
    return {
      title: `Where is ${v} read`,
      question: `Which code reads ${v}, and what happens when it is not set?`,
      answer:
        `${v} is read once in ${file} by \`${camel(r)}()\`; when it is missing the process falls back to a default and logs a warning at startup. ` +
        `It is also forwarded to the worker through \`process.env\` in ${path(r)}. ${pick(r, FILLER)}`,
      tags: ['config'],
      tools: ['grep', 'read_file'],
    }
  },
  (r) => {
    const ms = 100 + Math.floor(r() * 2000)
    const after = Math.floor(ms / (2 + r() * 8))
    const fn = camel(r)
    return {
      title: `Speed up ${fn}`,
      question: `${fn} takes ${ms} ms per request under load. Can you make it faster?`,
      answer:
        `Profiled with \`node --cpu-prof\`: most of the time is spent in JSON.parse of a cached blob and an N+1 query in ${path(r)}. ` +
        `Batched the query with a single \`WHERE id = ANY($1)\` and memoized the parse. p50 went from ${ms} ms to ${after} ms.\n\n${pick(r, FILLER)} ${pick(r, FILLER)}`,
      tags: ['performance'],
      tools: ['bash', 'read_file', 'edit_file'],
    }
  },
  (r) => {
    const wf = `.github/workflows/${pick(r, ['ci', 'release', 'test', 'deploy'])}.yml`
    const node = pick(r, ['18', '20', '22'])
    return {
      title: `CI fails on ${wf}`,
      question: `The ${wf} job started failing after we bumped Node to ${node}. Locally everything passes.`,
      answer:
        `The runner image caches ~/.pnpm-store from the previous Node version, and the native addon in the cache was built for another ABI. ` +
        `I added the Node version to the cache key (\`key: pnpm-\${{ runner.os }}-node${node}-\${{ hashFiles('pnpm-lock.yaml') }}\`). ${pick(r, FILLER)}`,
      tags: ['ci'],
      tools: ['read_file', 'edit_file', 'bash'],
    }
  },
  (r) => {
    const [code, what] = pick(r, ERRORS.slice(25, 30))
    const svc = pick(r, STEMS) + '-service'
    return {
      title: `${svc} ${code} in production`,
      question: `${svc} in the prod cluster shows ${code}. What should we change?`,
      answer:
        `${code}: ${what}. The memory limit in infra/k8s/${svc}.yaml is 256Mi while the heap grows to 400 MB during the nightly job. ` +
        `Raised the limit to 768Mi, set \`--max-old-space-size=512\`, and added a readiness probe on /healthz. ${pick(r, FILLER)}`,
      tags: ['k8s', 'deploy'],
      tools: ['bash', 'read_file', 'edit_file'],
    }
  },
  (r) => {
    const fn = camel(r)
    const file = path(r)
    return {
      title: `Refactor ${fn}`,
      question: `Refactor ${fn} in ${file} so it can be unit tested.`,
      answer:
        `Split ${fn} into a pure function that computes the result and a thin wrapper that does the I/O. The pure part now lives in ` +
        `${path(r)} with ${2 + Math.floor(r() * 10)} new tests. ${pick(r, FILLER)} ${pick(r, FILLER)}`,
      tags: ['refactor', 'testing'],
      tools: ['read_file', 'edit_file', 'write_file', 'run_tests'],
    }
  },
  (r) => {
    const [q, a] = pick(r, ZH)
    const pkg = pick(r, PACKAGES)
    return {
      title: q,
      question: `${q}，${pkg} 相关，怎么处理？`,
      answer: `${a}\n\n涉及文件：${path(r)}。使用的版本是 ${pkg}@${version(r)}。${pick(r, FILLER)}`,
      tags: [pick(r, TAGS)],
      tools: ['bash', 'read_file'],
    }
  },
  (r) => {
    const [q, a] = pick(r, JA)
    return { title: q, question: `${q}。どうすればいいですか？`, answer: `${a}\n\n対象ファイル: ${path(r)}`, tags: [pick(r, TAGS)], tools: ['read_file', 'edit_file'] }
  },
  (r) => {
    const fn = camel(r)
    const file = path(r)
    return {
      title: `What does ${fn} do`,
      question: `Explain what ${fn} in ${file} does and who calls it.`,
      answer:
        `${fn} ${pick(r, VERBS)}s the ${pick(r, STEMS)} ${pick(r, STEMS)} and caches it for ${pick(r, [30, 60, 300, 3600])} seconds. ` +
        `It is called from ${path(r)} and ${path(r)}. The cache key is built from \`${snake(r)}\`. ${pick(r, FILLER)}`,
      tags: [pick(r, TAGS)],
      tools: ['grep', 'read_file'],
    }
  },
  (r) => {
    const status = pick(r, [401, 403, 404, 409, 422, 500, 503])
    const route = `/api/${pick(r, STEMS)}s/:id/${pick(r, STEMS)}`
    return {
      title: `${route} returns ${status}`,
      question: `${route} returns ${status} for some users but not for others.`,
      answer:
        `The handler in ${path(r)} reads \`req.user.${camel(r)}\`, which is only set when the session was created after the last deploy. ` +
        `Older sessions lack it, so the guard rejects them with ${status}. I made the guard fall back to a lookup by user id. ${pick(r, FILLER)}`,
      tags: ['backend', 'auth'],
      tools: ['read_file', 'grep', 'edit_file'],
    }
  },
]

/** Kind mix of a real store: mostly captured rounds. */
function kindOf(r) {
  const x = r()
  return x < 0.85 ? 'raw' : x < 0.93 ? 'note' : x < 0.98 ? 'distilled' : 'manual'
}

// The front-matter format of src/knowledge/documents/document.ts's formatDocument (one `key: value` line each; plain scalars
// when unambiguous, JSON otherwise), written here by hand so the generator needs no build. Kept in step by the
// bench itself: it checks that parseDocument's fast path reads every generated file (see `FORMAT`).
export const FORMAT = 'line-json-2'
const PLAIN = /^(?:[A-Za-z_/][A-Za-z0-9_./@+-]*|\d[A-Za-z0-9_./@+-]*[g-np-wyzG-NP-WYZ][A-Za-z0-9_./@+-]*|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)$/
const RESERVED = /^(?:true|false|null|yes|no|on|off|y|n|~)$/i

function formatValue(value) {
  if (typeof value === 'string') return PLAIN.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`
  return `{${Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}`
}

/** Renders front matter and body like the store's formatDocument (key order id/title/kind/…). */
export function renderDocument(meta, body) {
  const lines = Object.entries(meta)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
  return `---\n${lines.join('\n')}\n---\n\n${body.endsWith('\n') ? body : body + '\n'}`
}

/** Builds the Markdown body of a round the way capture lays it out. */
export function roundBody(title, question, answer, tools, r = Math.random) {
  const calls = tools.map((t) => `- \`${t}\`${t === 'bash' ? ` — \`${pick(r, ['pnpm install', 'pnpm test', 'git status', 'node --version', 'docker compose up -d', 'tsc --noEmit'])}\`` : ''}`)
  return `# ${title}\n\n## Question\n\n${question}\n\n## Answer\n\n${answer}\n\n## Tools\n\n${calls.join('\n')}\n`
}

const slug = (cwd) => (cwd ? cwd.split('/').filter(Boolean).slice(-2).join('-') : 'global')

/**
 * Generates `count` documents. Deterministic for a given seed. Each item: `{ meta, body, text, relPath }`, where `text`
 * is the file content and `relPath` the path under the corpus root (`<workspace-slug>/<id>.md`).
 */
export function generateRounds(count, { seed = 7, start = Date.UTC(2025, 0, 1) } = {}) {
  const r = rng(seed)
  const out = []
  for (let i = 0; i < count; i++) out.push(generateRound(r, i, start))
  return out
}

/** One round; `i` makes the id and the creation time unique and increasing. */
export function generateRound(r, i, start = Date.UTC(2025, 0, 1)) {
  const topic = TOPICS[Math.floor(r() * TOPICS.length)](r)
  const kind = kindOf(r)
  const cwd = kind === 'manual' ? '' : pick(r, WORKSPACES)
  const created = new Date(start + i * 97_000 + Math.floor(r() * 60_000)).toISOString()
  const session = `session-${((Math.floor(i / 6) * 2654435761) >>> 0).toString(16).padStart(8, '0')}`
  const id =
    kind === 'raw'
      ? `${created.slice(0, 10)}-${session.slice(8)}-t${(i % 6) + 1}-${i}`
      : `${kind}-${i}-${
          topic.title
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '')
            .slice(0, 40) || 'x'
        }`
  // Real answers vary a lot in length: most add an explanation or two, some a longer write-up.
  const paragraphs = r() < 0.25 ? 0 : r() < 0.7 ? 1 : r() < 0.92 ? 2 : 4
  let extra = ''
  for (let k = 0; k < paragraphs; k++) extra += `\n\n${paragraph(r)}${r() < 0.3 ? ' ' + pick(r, FILLER) : ''}`
  const tools = kind === 'raw' || kind === 'distilled' ? topic.tools : []
  const meta = {
    id,
    title: topic.title,
    kind,
    ...(kind === 'raw' || kind === 'distilled' ? { session, turn: (i % 6) + 1 } : {}),
    created,
    ...(kind === 'raw' ? { outcome: 'completed' } : {}),
    cwd,
    tools,
    tags: [...new Set(topic.tags)].slice(0, 3 + Math.floor(r() * 2)),
    ...(kind === 'raw' ? { salience: { score: Math.round(r() * 100) / 100, reasons: ['+cause'] } } : {}),
  }
  const body = kind === 'raw' || kind === 'distilled' ? roundBody(topic.title, topic.question, topic.answer + extra, tools, r) : `# ${topic.title}\n\n${topic.answer}${extra}\n`
  return { meta, body, text: renderDocument(meta, body), relPath: `${slug(cwd)}/${id}.md` }
}

/**
 * Writes `count` generated documents under `dir` (one folder per workspace). Reuses the corpus when `dir/.manifest.json`
 * says it was generated with the same count and seed. Returns the relative paths.
 */
export function writeRounds(dir, count, { seed = 7, fresh = false } = {}) {
  const manifest = join(dir, '.manifest.json')
  if (!fresh && existsSync(manifest)) {
    const m = JSON.parse(readFileSync(manifest, 'utf8'))
    if (m.count === count && m.seed === seed && m.format === FORMAT) return m.paths
  }
  rmSync(dir, { recursive: true, force: true })
  const docs = generateRounds(count, { seed })
  const made = new Set()
  for (const d of docs) {
    const file = join(dir, d.relPath)
    const parent = dirname(file)
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true })
      made.add(parent)
    }
    writeFileSync(file, d.text)
  }
  const paths = docs.map((d) => d.relPath)
  writeFileSync(manifest, JSON.stringify({ count, seed, format: FORMAT, paths }))
  return paths
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 1000)
  const dir = process.argv[3] ?? `bench/.data/rounds-${count}`
  const seed = Number(process.argv[4] ?? 7)
  const t = performance.now()
  const paths = writeRounds(dir, count, { seed, fresh: true })
  console.log(`wrote ${paths.length} documents under ${dir} in ${Math.round(performance.now() - t)} ms`)
}
