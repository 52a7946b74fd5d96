/**
 * `dsh-knowledge`: the command line over the same code the plugin runs (started by ./bin.ts). Composition root: flags and environment →
 * store → command. Root resolution everywhere: `--root`, else `DSH_KNOWLEDGE_ROOT`, else `./knowledge`.
 * @module dsh-knowledge-sync/cli/main
 */
import { parseArgs } from 'node:util'
import { UsageError, type Command } from './common.js'

// node:sqlite still announces itself as experimental on Node 22; that one warning is noise to a CLI user. Every other
// warning (and every other ExperimentalWarning) is printed as before.
const emitWarning = process.emitWarning
process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type
  const text = typeof warning === 'string' ? warning : warning?.message
  if (type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(String(text))) return
  return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest)
} as typeof process.emitWarning

// `dsh-knowledge list | head`: the reader closing the pipe ends the command quietly, as it ends `ls | head`, instead
// of an EPIPE stack trace. Every output is printed after the command's writes are done, so nothing is cut short.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

/** Each command is imported when it runs: `--help` and `redact` never load the store or SQLite. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  capture: async () => (await import('./capture.js')).capture,
  redact: async () => (await import('./redact.js')).redact,
  search: async () => (await import('./search.js')).search,
  read: async () => (await import('./read.js')).read,
  history: async () => (await import('./history.js')).history,
  list: async () => (await import('./list.js')).list,
  stats: async () => (await import('./stats.js')).stats,
  import: async () => (await import('./import.js')).importSessions,
  init: async () => (await import('./init.js')).init,
  health: async () => (await import('./health.js')).health,
  note: async () => (await import('./note.js')).note,
  supersede: async () => (await import('./supersede.js')).supersede,
  retire: async () => (await import('./retire.js')).retire,
  restore: async () => (await import('./restore.js')).restore,
  check: async () => (await import('./check.js')).check,
  sync: async () => (await import('./sync.js')).sync,
  status: async () => (await import('./sync.js')).status,
  discover: async () => (await import('./sync.js')).discoverCommand,
  audit: async () => (await import('./sync.js')).audit,
  promote: async () => (await import('./sync.js')).promote,
  'regenerate-md': async () => (await import('./sync.js')).regenerateMd,
  originals: async () => (await import('./originals.js')).originals,
  mcp: async () => (await import('./mcp.js')).mcp,
  watch: async () => (await import('./watch.js')).watch,
  index: async () => (await import('./wiki.js')).index,
  create: async () => (await import('./wiki.js')).create,
  edit: async () => (await import('./wiki.js')).edit,
  rewrite: async () => (await import('./wiki.js')).rewrite,
  log: async () => (await import('./wiki.js')).log,
}

const USAGE = `dsh-knowledge — the dsh-knowledge-sync knowledge base from the command line

Usage:
  dsh-knowledge capture [--root DIR] [--min-score N] [--dry-run] [--json] < round.json
  dsh-knowledge redact [--json] [--mask TEXT] [--pattern REGEX]... < text
  dsh-knowledge search <query> [--root DIR] [--cwd DIR] [--kind K] [--tag T] [--tool GLOB] [--limit N] [--status S] [--json]
  dsh-knowledge read <id> [--section NAME] [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge history <id> [--diff A..B] [--root DIR] [--cwd DIR] [--json]   (revisions, newest first; A..B: their diff)
  dsh-knowledge list [--root DIR] [--cwd DIR] [--kind K] [--tag T] [--tool GLOB] [--status S] [--json]
  dsh-knowledge stats [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge note --title T --finding F [--evidence E] [--scope S] [--tags a,b] [--link ID]... [--supersedes ID]...
                     [--kind note|preference] [--quote TEXT] [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge supersede <id> --by <id> [--reason TEXT] [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge retire <id> --reason TEXT [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge restore <id> [--root DIR] [--cwd DIR] [--json]
  dsh-knowledge check [--root DIR] [--cwd DIR] [--json]          (exit code 1 when a problem is found)
  dsh-knowledge health [--root DIR] [--cwd DIR] [--sample N] [--json]
  dsh-knowledge init --git [--root DIR] [--json]
  dsh-knowledge import [--dsh-home DIR] [--since DATE] [--session ID] [--cwd DIR] [--min-score N] [--dry-run] [--json]
  dsh-knowledge import --from claude-code|codex [--transcripts DIR] [--since DATE] [--cwd DIR] [--dry-run] [--json]
  dsh-knowledge sync [--root DIR] [--dry-run] [--source NAME] [--allow-local DIR]... [--json]   upstream: refresh curated sections (status = sync --dry-run)
  dsh-knowledge status|discover|audit|regenerate-md [--root DIR] [--json]
  dsh-knowledge promote --url U --file F --section S [--reason TEXT] [--force] [--root DIR] [--json]   (--force: replace a locked decision)
  dsh-knowledge mcp [--root DIR] [--cwd DIR] [--folder DIR] [--profile NAME [--dsh-home DIR]]  (a stdio MCP server: the same tools for any MCP client; --profile: its wiki page types)
  dsh-knowledge watch [--root DIR] [--for 8h] [--json]   (keeps the index current while it runs: other commands on the
                                                   root skip checking every file, as beside a dsh session; Linux)
  dsh-knowledge index [--root DIR] [--cwd DIR] [--folder DIR] [--json]   (the wiki's catalogue)
  dsh-knowledge create <type> <slug> --title T [--content-file F|-] [--field name=value]... [--json]
                                                   (no --content-file: print the type's template)
  dsh-knowledge edit <id> --old TEXT --new TEXT [--field name=value]... [--json]
  dsh-knowledge rewrite <id> --content-file F|- [--field name=value]... [--json]   (<id> overview: the overview)
  dsh-knowledge log [--operation OP --what TEXT [--page ID]...] [--json]  (no flags: the last ten, newest first)
  dsh-knowledge read overview|log [--root DIR] [--json]
    (index, create, edit, rewrite: --profile NAME [--dsh-home DIR] adds the page types that dsh profile declares;
     index and mcp mark summaries stale from the originals of --folder, else of the folder that profile sets)
  dsh-knowledge originals list [--json]                  the files the knowledge base is built from (originals/)
  dsh-knowledge originals extract <path> [--from N] [--to N] [--json]
  dsh-knowledge originals add <file> --as <destination> [--replaces PATH]
  dsh-knowledge originals download <url> --as <destination> [--replaces PATH]
  dsh-knowledge originals retire <path> --why wrong|replaced --reason TEXT [--replaced-by PATH]
                     (all: [--root DIR] [--folder DIR] [--json])

The root is --root, else $DSH_KNOWLEDGE_ROOT, else ./knowledge; it must be an existing folder (capture, note and
import create it). --cwd applies the workspace rule as if a session ran there; without it everything under the root
is visible. --status is active|superseded|retired|all (default: active and superseded). --section is a "## " heading
of the document (exact, or a unique prefix: --section find). --tags keeps any script: --tags redis,性能.
history lists a document's revisions from git when the root is in a repository (git runs with the repository's
pager, diff drivers, textconv and signature programs switched off), else from the local history the store keeps in
.knowledge/history.jsonl (redacted; at most 20 revisions per document, 8 MiB in all). --diff A..B compares two refs
it lists (A alone: A..current), both redacted.
Search highlights matches in bold on a terminal (plain when piped, or with NO_COLOR set); --json keeps the **marks**.
round.json: {"session","turn","cwd","created"?,"question","answer","outcome","tools":[{"name","arguments","result"?,"isError"?}]}
`

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE)
    return name ? 0 : 2
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!load) throw new UsageError(`unknown command ${JSON.stringify(name)}`)
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      cwd: { type: 'string' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      'min-score': { type: 'string' },
      kind: { type: 'string' },
      tag: { type: 'string' },
      tool: { type: 'string' },
      limit: { type: 'string' },
      'dsh-home': { type: 'string' },
      profile: { type: 'string' },
      git: { type: 'boolean' },
      sample: { type: 'string' },
      since: { type: 'string' },
      session: { type: 'string' },
      mask: { type: 'string' },
      pattern: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      title: { type: 'string' },
      finding: { type: 'string' },
      evidence: { type: 'string' },
      scope: { type: 'string' },
      tags: { type: 'string' },
      quote: { type: 'string' },
      link: { type: 'string', multiple: true },
      supersedes: { type: 'string', multiple: true },
      by: { type: 'string' },
      reason: { type: 'string' },
      status: { type: 'string' },
      source: { type: 'string' },
      url: { type: 'string' },
      file: { type: 'string' },
      section: { type: 'string' },
      'allow-local': { type: 'string', multiple: true },
      force: { type: 'boolean' },
      from: { type: 'string' },
      to: { type: 'string' },
      as: { type: 'string' },
      why: { type: 'string' },
      'replaced-by': { type: 'string' },
      replaces: { type: 'string' },
      folder: { type: 'string' },
      transcripts: { type: 'string' },
      'content-file': { type: 'string' },
      field: { type: 'string', multiple: true },
      old: { type: 'string' },
      new: { type: 'string' },
      operation: { type: 'string' },
      what: { type: 'string' },
      page: { type: 'string', multiple: true },
      diff: { type: 'string' },
      for: { type: 'string' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  return (await load())({ values, positionals })
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    process.stderr.write(`dsh-knowledge: ${(error as Error).message}\n${usage ? 'Run `dsh-knowledge --help` for usage.\n' : ''}`)
    process.exitCode = usage ? 2 : 1
  },
)
