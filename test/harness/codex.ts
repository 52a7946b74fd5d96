/**
 * The real Codex CLI (`codex exec`) driven through `dsh-knowledge mcp`, with nothing reachable but 127.0.0.1:
 * a throw-away CODEX_HOME whose config.toml names a custom model provider (the scripted Responses server of
 * responses-server.ts) and the knowledge base's MCP server (the built `lib/cli/bin.js`), an environment with no
 * inherited variables and every proxy variable pointing at that server (which logs and refuses what comes), and, where
 * `strace` can trace here, a record of every address Codex and its children connected to.
 *
 * Codex is not a dependency of the project: `KS_CODEX_BIN` names its binary (`npm install --prefix /tmp/codex-cli
 * @openai/codex@0.171.0`, then `/tmp/codex-cli/node_modules/.bin/codex`).
 * Plain TypeScript that Node 22 runs with type stripping (scripts/codex-round.ts imports it).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { functionOutputs, itemText, namespaceOf, type ResponsesServer, startResponsesServer } from './responses-server.ts'
import { spawnCollect, type Finished } from './spawn.ts'

/** The Codex binary named by KS_CODEX_BIN, or why there is none. */
export function codexBinary(env: NodeJS.ProcessEnv = process.env): { bin?: string; reason?: string } {
  const bin = env.KS_CODEX_BIN
  if (!bin) return { reason: 'KS_CODEX_BIN is not set (npm install --prefix /tmp/codex-cli @openai/codex@0.171.0; KS_CODEX_BIN=/tmp/codex-cli/node_modules/.bin/codex)' }
  if (!existsSync(bin)) return { reason: `KS_CODEX_BIN=${bin} does not exist` }
  return { bin }
}

/** Whether `strace -f` can trace a child here (it needs ptrace, which some containers refuse). */
export function straceWorks(): boolean {
  const probe = spawnSync('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', '/dev/null', 'true'], { stdio: 'ignore' })
  return probe.status === 0
}

const toml = (s: string) => JSON.stringify(s)

export interface CodexHomeOptions {
  /** The scripted Responses server's `/v1` URL. */
  modelUrl: string
  /** How to start the MCP server: command and arguments. */
  mcp: { command: string; args: string[] }
  /** The MCP server's name in config.toml: docs/mcp.md's `dsh-knowledge` unless said. */
  serverName?: string
}

/**
 * A CODEX_HOME with config.toml: the local provider (no retries, so a refused request is one request), the MCP server
 * as `required` (Codex waits for it before the first model request; without it 0.171.0's `codex exec` sent its first
 * request before the server's tools were listed), and the features that fetch from the internet at start-up switched
 * off (curated plugin sync from github.com and chatgpt.com, apps, analytics).
 */
export function writeCodexHome(home: string, options: CodexHomeOptions): string {
  mkdirSync(home, { recursive: true })
  const name = options.serverName ?? 'dsh-knowledge'
  const config = [
    'model = "scripted"',
    'model_provider = "local"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    '',
    '[model_providers.local]',
    'name = "local"',
    `base_url = ${toml(options.modelUrl)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    `[mcp_servers.${toml(name)}]`,
    `command = ${toml(options.mcp.command)}`,
    `args = [${options.mcp.args.map(toml).join(', ')}]`,
    'required = true',
    // Hang guards, not budgets: on a loaded machine the server's start alone has taken over 20 s (Codex's default: 10).
    'startup_timeout_sec = 300',
    'tool_timeout_sec = 300',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n')
  writeFileSync(join(home, 'config.toml'), config)
  return config
}

/** An address a traced process connected (or sent a datagram) to. */
export interface Connection {
  family: string
  address: string
  port?: number
}

/** The AF_INET/AF_INET6 addresses in an `strace -e trace=connect,sendto,sendmsg` log (AF_UNIX and netlink are local). */
export function tracedConnections(log: string): Connection[] {
  const out: Connection[] = []
  for (const m of log.matchAll(/sa_family=AF_INET,\s*sin_port=htons\((\d+)\),\s*sin_addr=inet_addr\("([^"]+)"\)/g)) {
    out.push({ family: 'AF_INET', address: m[2], port: Number(m[1]) })
  }
  for (const m of log.matchAll(/sa_family=AF_INET6,\s*sin6_port=htons\((\d+)\),[^}]*?inet_pton\(AF_INET6,\s*"([^"]+)"/g)) {
    out.push({ family: 'AF_INET6', address: m[2], port: Number(m[1]) })
  }
  return out
}

export const isLoopback = (c: Connection) => c.address === '127.0.0.1' || c.address === '::1' || c.address === '::ffff:127.0.0.1'

export interface CodexRun extends Finished {
  /** `codex exec --json` events, one object a line. */
  events: Array<Record<string, unknown>>
  /** The file `-o` wrote: the agent's last message. */
  lastMessage: string
  /** Every internet-family address connected to, when traced; undefined when strace was not used. */
  connections?: Connection[]
  /** The environment Codex ran with. */
  env: Record<string, string>
}

export interface RunCodexOptions {
  bin: string
  home: string
  /** The workspace: Codex's working directory. */
  cwd: string
  prompt: string
  /** The scripted server's proxy URL: every proxy variable points at it. */
  proxy: string
  trace: boolean
}

/**
 * `codex exec --json --strict-config` (a key this Codex does not know fails the run instead of being ignored) with a
 * clean environment: PATH (this Node first), HOME and CODEX_HOME, and every proxy variable pointing at the trap.
 */
export async function runCodex(options: RunCodexOptions): Promise<CodexRun> {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: options.home,
    CODEX_HOME: options.home,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  }
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
    env[name] = options.proxy
    env[name.toLowerCase()] = options.proxy
  }
  env.NO_PROXY = env.no_proxy = '127.0.0.1,localhost'
  const last = join(options.home, 'last-message.txt')
  const trace = join(options.home, 'connect.strace')
  const codexArgs = ['exec', '--json', '--strict-config', '--skip-git-repo-check', '--ephemeral', '-o', last, options.prompt]
  const [command, args] = options.trace ? ['strace', ['-f', '-qq', '-e', 'trace=connect,sendto,sendmsg', '-o', trace, options.bin, ...codexArgs]] : [options.bin, codexArgs]
  const run = await spawnCollect(command as string, args as string[], { cwd: options.cwd, env })
  const events = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  return {
    ...run,
    events,
    env,
    lastMessage: existsSync(last) ? readFileSync(last, 'utf8') : '',
    connections: options.trace && existsSync(trace) ? tracedConnections(readFileSync(trace, 'utf8')) : undefined,
  }
}

export const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '../..')
export const KNOWLEDGE_BIN = join(PROJECT, 'lib/cli/bin.js')

export interface KnowledgeRound {
  run: CodexRun
  server: ResponsesServer
  /** What only the seeded document says: the scripted model repeats it only if a tool output carried it. */
  marker: string
  finding: string
  workspace: string
  root: string
  config: string
}

/**
 * One Codex round through the knowledge base: a root seeded with a note (by the built CLI, in `workspace`), and a
 * scripted model that calls knowledge_search in whatever namespace Codex lists it under, then knowledge_read on the
 * first hit's id (taken from the search output), then answers with the salt it finds in the read's output ("not in
 * the tool output" when there is none).
 */
export async function knowledgeRound(options: { bin: string; base: string; trace: boolean }): Promise<KnowledgeRound> {
  const root = join(options.base, 'kb')
  const workspace = join(options.base, 'ws')
  const home = join(options.base, 'codex-home')
  mkdirSync(workspace, { recursive: true })
  const marker = `ZEBRA-${randomBytes(4).toString('hex')}`
  const finding = `The CI cache key is the lockfile hash, hashFiles(pnpm-lock.yaml), with the salt ${marker}.`
  const seeded = await spawnCollect(process.execPath, [KNOWLEDGE_BIN, 'note', '--root', root, '--cwd', workspace, '--title', 'CI cache key', '--finding', finding])
  if (seeded.code !== 0) throw new Error(`seeding the root failed: ${seeded.stderr}`)
  const server = await startResponsesServer((request) => {
    const outputs = functionOutputs(request)
    if (outputs.length === 0) {
      const namespace = namespaceOf(request, 'knowledge_search')
      if (namespace === undefined) return { text: 'knowledge_search is not among my tools.' }
      return { call: { namespace: namespace || undefined, name: 'knowledge_search', arguments: { query: 'lockfile cache key' } } }
    }
    const last = itemText(outputs.at(-1)?.output)
    if (outputs.length === 1) {
      const id = /^1\. (\S+) \(v:/m.exec(last)?.[1]
      if (!id) return { text: 'The search found nothing.' }
      return { call: { namespace: namespaceOf(request, 'knowledge_read') || undefined, name: 'knowledge_read', arguments: { id } } }
    }
    const salt = /\bsalt (ZEBRA-[0-9a-f]+)/.exec(last)?.[1]
    return { text: salt ? `The CI cache key is the lockfile hash; the knowledge base says its salt is ${salt}.` : 'The salt is not in the tool output.' }
  })
  try {
    const config = writeCodexHome(home, { modelUrl: server.url, mcp: { command: process.execPath, args: [KNOWLEDGE_BIN, 'mcp', '--root', root] } })
    const run = await runCodex({ bin: options.bin, home, cwd: workspace, prompt: 'What is our CI cache key, and its salt?', proxy: server.proxy, trace: options.trace })
    return { run, server, marker, finding, workspace, root, config }
  } finally {
    await server.close()
  }
}

/**
 * A `codex exec` round whose model asks to retire the seeded note: nobody can answer Codex's question to the person
 * in a non-interactive run, so the call must come back refused and the note stay active.
 */
export async function retireRound(options: { bin: string; base: string }): Promise<{ run: CodexRun; server: ResponsesServer; id: string; root: string }> {
  const root = join(options.base, 'kb')
  const workspace = join(options.base, 'ws')
  const home = join(options.base, 'codex-home')
  mkdirSync(workspace, { recursive: true })
  const seeded = await spawnCollect(process.execPath, [KNOWLEDGE_BIN, 'note', '--root', root, '--cwd', workspace, '--title', 'Deploys', '--finding', 'Deploys go through make release.', '--json'])
  if (seeded.code !== 0) throw new Error(`seeding the root failed: ${seeded.stderr}`)
  const id = (JSON.parse(seeded.stdout) as { id: string }).id
  const server = await startResponsesServer((request) => {
    const outputs = functionOutputs(request)
    if (outputs.length) return { text: `The knowledge base answered: ${itemText(outputs.at(-1)?.output)}` }
    const namespace = namespaceOf(request, 'knowledge_retire')
    if (namespace === undefined) return { text: 'knowledge_retire is not among my tools.' }
    return { call: { namespace: namespace || undefined, name: 'knowledge_retire', arguments: { id, reason: 'make release is gone' } } }
  })
  try {
    writeCodexHome(home, { modelUrl: server.url, mcp: { command: process.execPath, args: [KNOWLEDGE_BIN, 'mcp', '--root', root] } })
    const run = await runCodex({ bin: options.bin, home, cwd: workspace, prompt: 'Retire the note about deploys.', proxy: server.proxy, trace: false })
    return { run, server, id, root }
  } finally {
    await server.close()
  }
}
