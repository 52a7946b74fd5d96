/**
 * What every command shares: the parsed flags, the store opened the way the plugin opens it, stdin, output.
 * @module dsh-knowledge-sync/cli/common
 */
import { format } from 'node:util'
import type { KnowledgeStore } from '../knowledge/store.js'
import type { Redactor, RedactOptions } from '../redact/redactor.js'
import { DEFAULT_MASK } from '../redact/spans.js'
import { statSync } from 'node:fs'
import { ROOT_ENV, resolveRoot } from '../knowledge/documents/paths.js'

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
    /** A dsh profile whose declared wiki page types `mcp` offers. */
    profile?: string
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
    'allow-local'?: string[]
    force?: boolean
    from?: string
    to?: string
    as?: string
    why?: string
    'replaced-by'?: string
    replaces?: string
    folder?: string
    transcripts?: string
    'content-file'?: string
    field?: string[]
    old?: string
    new?: string
    operation?: string
    what?: string
    page?: string[]
    diff?: string
    /** `watch`: how long it runs once ready. */
    for?: string
  }
  positionals: string[]
}

export type Command = (invocation: Invocation) => Promise<number>

/**
 * The store's logger in a command: warnings (a state file the store had to ignore, a cache it could not use) go to
 * standard error as one line each, so the command still runs and says what it set aside; the rest is quiet.
 */
export const CLI_LOGGER = {
  info() {},
  debug(message: string, ...args: unknown[]) {
    if (process.env[DEBUG_ENV] === '1') process.stderr.write(`dsh-knowledge: debug: ${format(message, ...args)}\n`)
  },
  warn(message: string, ...args: unknown[]) {
    process.stderr.write(`dsh-knowledge: warning: ${format(message, ...args)}\n`)
  },
}

/** One debug line on standard error (only with {@link DEBUG_ENV}). */
export const debug = (message: string, ...args: unknown[]): void => CLI_LOGGER.debug(message, ...args)

/**
 * `DSH_KNOWLEDGE_DEBUG=1`: the store's debug lines go to standard error too (how the index was opened, what the
 * start-up check read, whether a watching owner's freshness stamp spared the walk).
 */
export const DEBUG_ENV = 'DSH_KNOWLEDGE_DEBUG'

/**
 * The root the flags and the environment name, checked: a file there, or (unless `create`) nothing there, is a usage
 * error that names the folder and where its name came from, instead of an empty answer that looks like "no match".
 * A root that is a link to a folder is followed, as the plugin follows it.
 */
export function checkedRoot(invocation: Invocation, create: boolean, env: NodeJS.ProcessEnv = process.env): string {
  const root = resolveRoot(invocation.values.root, env)
  const named = invocation.values.root?.trim() ? '--root' : env[ROOT_ENV]?.trim() ? `$${ROOT_ENV}` : 'the default root (./knowledge; set --root or $DSH_KNOWLEDGE_ROOT)'
  const found = statSync(root, { throwIfNoEntry: false })
  if (found && !found.isDirectory()) throw new UsageError(`${root} is not a folder: ${named} must name the folder that holds the knowledge documents`)
  if (!found && !create) throw new UsageError(`no knowledge base at ${root}: the folder does not exist (named by ${named})`)
  return root
}

/**
 * Opens the store at the checked root, without watching; indexed unless `index` is false (a dry run needs no index).
 * `write: false` (search, list, read, stats): the command may then read the index cache of a running dsh as it is.
 * `create`: the command writes the first document of a new base (capture, note, import), so a missing root is made.
 * `trustWatcher` (a command that reports nothing about unreadable files: the reading ones, and the writers of one
 * document, capture, note, supersede, retire and restore): while a live process that owns the index watches the
 * root, its freshness stamp stands for the check of every file (index-cache/watch-stamp.ts). Why writers too: a round
 * captured beside a running dsh stat'ed every file first (100k documents: ~1 s of both cores, which the running dsh
 * felt as event-loop lag), though the owner's index was already current.
 */
export async function openStore(invocation: Invocation, { index = true, write = true, create = false, trustWatcher = false } = {}): Promise<KnowledgeStore> {
  const root = checkedRoot(invocation, create)
  const config = { enabled: true, mask: invocation.values.mask ?? DEFAULT_MASK, patterns: invocation.values.pattern ?? [] }
  const redactor = write || config.patterns.length ? (await import('../redact/redactor.js')).createRedactor(config) : deferredRedactor(config)
  // Loaded here, not at import: commands that never open the store start without it (and without SQLite).
  const { KnowledgeStore } = await import('../knowledge/store.js')
  const store = new KnowledgeStore({ root, redactor, watch: false, readOnly: !write, trustWatcher, logger: CLI_LOGGER })
  // A command that writes keeps the local history of what it wrote (nothing when the root is in git).
  if (write) (await import('../knowledge/history/local.js')).keepLocalHistory(store, { warn: (message) => CLI_LOGGER.warn('%s', message) })
  if (index) await store.start()
  const hint = trustWatcher ? watchHint(store, process.stderr.isTTY === true) : undefined
  if (hint) process.stderr.write(hint)
  return store
}

/** From this long a one-shot command's check of every file against the index, a person at a terminal hears of `watch`. */
export const HINT_WALK_MS = 1000

/**
 * What a person at a terminal (`tty`) is told after a command waited {@link HINT_WALK_MS} or more for the check of
 * every file, which `dsh-knowledge watch` spares it (./watch.ts). Nothing when piped: a script's stderr stays clean.
 */
export function watchHint(store: Pick<KnowledgeStore, 'root' | 'size' | 'freshness'>, tty: boolean): string | undefined {
  const ms = store.freshness.walkedMs
  if (!tty || ms === undefined || ms < HINT_WALK_MS) return undefined
  const took = `${(ms / 1000).toFixed(1)} s`
  return `dsh-knowledge: checking the ${store.size.toLocaleString('en')} documents of ${store.root} against the index took ${took}; while \`dsh-knowledge watch\` (or a dsh session) runs on that root, commands skip this check\n`
}

/**
 * A reading command's redactor: its store writes nothing, so the rules (./redact/redactor.ts, ~20 modules) are
 * loaded only if something asks it to redact, not at every `search`. Its settings are the defaults (a command with
 * `--pattern` gets the real one, so a bad pattern is still refused at once).
 */
function deferredRedactor(config: RedactOptions): Redactor {
  let loaded: Promise<Redactor> | undefined
  const load = () => (loaded ??= import('../redact/redactor.js').then((m) => m.createRedactor(config)))
  return {
    enabled: true,
    mask: config.mask,
    redact: async (text, options) => (await load()).redact(text, options),
    redactSync() {
      throw new Error('a reading command redacts nothing synchronously')
    },
  }
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
