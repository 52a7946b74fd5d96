/**
 * `dsh-knowledge init --git`: makes the root a git repository a team can share. Documents are one file per round, so
 * teammates' captures never touch the same file; the append-only ledger merges as a union of lines; what is
 * per-machine (id-prefix claims, caches, temporary files) stays out of git. Idempotent: existing lines are kept. A
 * root inside an existing work tree (the default `./knowledge` of a project) gets the rules, not a nested repository.
 * @module dsh-knowledge-sync/cli/init
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { resolveRoot } from '../knowledge/documents/paths.js'
import { type Command, print, printJson, UsageError } from './common.js'

/** What `.gitattributes` must say: the ledger (and any other append-only JSON-lines file) merges by union. */
export const GIT_ATTRIBUTES = ['.knowledge/*.jsonl merge=union']
/** What `.gitignore` must say: per-machine state (id claims are local; a teammate's clash is resolved at index time). */
export const GIT_IGNORE = ['.knowledge/ids/', '.knowledge/cache/', '.knowledge/revisions.lock', '.knowledge/decisions.lock/', '**/.manifest/manifest.lock', '*.tmp', '.*.tmp']

/** Adds the missing `lines` to a file (created when absent); returns the lines it added. */
function ensureLines(file: string, lines: string[]): string[] {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()))
  const missing = lines.filter((l) => !have.has(l))
  if (missing.length) writeFileSync(file, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`)
  return missing
}

/** The top of the git work tree holding `dir`, or undefined when `dir` is in none. */
function workTreeOf(dir: string): string | undefined {
  try {
    return realpathSync.native(execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
  } catch {
    return undefined
  }
}

export const init: Command = async ({ values }) => {
  if (!values.git) throw new UsageError('init needs --git (the only kind of set-up it does)')
  const root = resolveRoot(values.root)
  mkdirSync(join(root, '.knowledge'), { recursive: true })
  let created = false
  // The default root is ./knowledge inside a project: a repository made there would be nested in the project's,
  // and the project's `git add -A` would then fail. Inside a work tree the root's own .gitattributes/.gitignore
  // (git reads them per folder) set the same rules in the project's repository.
  const realRoot = realpathSync.native(root)
  const top = existsSync(join(root, '.git')) ? realRoot : workTreeOf(root)
  if (top === undefined) {
    try {
      execFileSync('git', ['init', '--quiet', root], { stdio: ['ignore', 'ignore', 'pipe'] })
    } catch (error) {
      throw new Error(`git init failed: ${(error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message}`)
    }
    created = true
  }
  const attributes = ensureLines(join(root, '.gitattributes'), GIT_ATTRIBUTES)
  const ignored = ensureLines(join(root, '.gitignore'), GIT_IGNORE)
  const enclosing = top !== undefined && top !== realRoot ? top : undefined
  const result = { root, gitInitialized: created, workTree: created ? realRoot : top, insideProject: enclosing !== undefined, gitattributesAdded: attributes, gitignoreAdded: ignored }
  if (values.json) printJson(result)
  else {
    const where = created
      ? `initialized a git repository in ${root}`
      : enclosing
        ? `${root} is inside the git work tree ${enclosing}: no new repository made; its .gitattributes and .gitignore apply to that repository`
        : `${root} is already a git repository`
    print(
      [
        where,
        attributes.length ? `.gitattributes: added ${attributes.join(', ')}` : '.gitattributes: already set',
        ignored.length ? `.gitignore: added ${ignored.join(', ')}` : '.gitignore: already set',
        enclosing
          ? 'Next: commit the knowledge folder with the project; teammates get it with the project.'
          : 'Next: commit, add a remote, push; teammates clone it and point DSH_KNOWLEDGE_ROOT at their clone.',
      ].join('\n'),
    )
  }
  return 0
}
