/**
 * What every command shares: the parsed flags, the store opened the way the plugin opens it, stdin, output.
 * @module dsh-knowledge-sync/cli/common
 */
import { format } from 'node:util'
import type { KnowledgeStore } from '../knowledge/store.js'
import { createRedactor, DEFAULT_MASK } from '../redact/redactor.js'
import { resolveRoot } from '../knowledge/documents/paths.js'

export class UsageError extends Error {}

export interface Invocation {
  values: {
    root?: string
    cwd?: string
    json?: boolean
    'dry-run'?: boolean
    'min-score'?: string
    kind?: string
    tag?: string
    tool?: string
    limit?: string
    mask?: string
    pattern?: string[]
    'dsh-home'?: string
    since?: string
    session?: string
    git?: boolean
    sample?: string
    title?: string
    finding?: string
    evidence?: string
    scope?: string
    tags?: string
    quote?: string
    link?: string[]
    supersedes?: string[]
    by?: string
    reason?: string
    status?: string
    source?: string
    url?: string
    file?: string
    section?: string
    from?: string
    transcripts?: string
  }
  positionals: string[]
}

export type Command = (invocation: Invocation) => Promise<number>

/**
 * Opens the store at the resolved root, without watching; indexed unless `index` is false (a dry run needs no index).
 * `write: false` (search, list, read, stats): the command may then read the index cache of a running dsh as it is.
 */
/**
 * The store's logger in a command: warnings (a state file the store had to ignore, a cache it could not use) go to
 * standard error as one line each, so the command still runs and says what it set aside; the rest is quiet.
 */
const CLI_LOGGER = {
  info() {},
  debug() {},
  warn(message: string, ...args: unknown[]) {
    process.stderr.write(`dsh-knowledge: warning: ${format(message, ...args)}\n`)
  },
}

export async function openStore(invocation: Invocation, { index = true, write = true } = {}): Promise<KnowledgeStore> {
  const redactor = createRedactor({ enabled: true, mask: invocation.values.mask ?? DEFAULT_MASK, patterns: invocation.values.pattern ?? [] })
  // Loaded here, not at import: commands that never open the store start without it (and without SQLite).
  const { KnowledgeStore } = await import('../knowledge/store.js')
  const store = new KnowledgeStore({ root: resolveRoot(invocation.values.root), redactor, watch: false, readOnly: !write, logger: CLI_LOGGER })
  if (index) await store.start()
  return store
}

/** `--cwd` applies the workspace rule; without it everything under the root is visible. */
export function scopeOf(store: KnowledgeStore, invocation: Invocation): string | undefined {
  return invocation.values.cwd ? store.visibleScope(invocation.values.cwd, true) : undefined
}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('this command reads its input from standard input')
  const parts: Buffer[] = []
  for await (const part of process.stdin) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2))
}
