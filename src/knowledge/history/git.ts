/**
 * A document's revisions from git, when the root is in a repository. The repository is part of the knowledge root and
 * may be hostile (a team's clone, a downloaded archive), so git runs with a fixed argv, no shell, the root as its
 * working directory, bounded output and a time limit, and with every configuration key that makes `log`/`show`
 * start another program overridden on the command line (a `-c` outranks every file the repository can bring):
 * the pager, external diff drivers and textconv filters, signature checks (`gpg.program`), the fsmonitor hook. The
 * inherited `GIT_*` environment is dropped, so a `GIT_DIR` or `GIT_EXTERNAL_DIFF` of the parent does not apply.
 * @module dsh-knowledge-sync/knowledge/history/git
 */
import { spawn } from 'node:child_process'

/** The most commits listed for one document (newest first). */
export const GIT_MAX_COMMITS = 100
/** The most bytes read from one git command (a document is at most 4 MiB; a log of 100 commits is far less). */
export const GIT_MAX_OUTPUT = 4 * 1024 * 1024 + 4096
/** A git that answers nothing for this long (a FIFO for a `.git` file, a stuck filesystem) is stopped. */
const GIT_TIME_LIMIT_MS = 15_000

/**
 * Configuration that must never come from the repository: each of these could make a read-only command start a
 * program the repository names. Given as `-c` pairs, which git reads after every configuration file.
 */
export const SAFE_CONFIG: ReadonlyArray<string> = [
  'core.pager=cat',
  'diff.external=',
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'log.showSignature=false',
  'gpg.program=false',
  'gpg.ssh.program=false',
  'gpg.x509.program=false',
  'core.sshCommand=false',
  'credential.helper=',
  'protocol.allow=never',
]

/** The argv of one git command: the overrides, then `--no-pager`, then the command. */
export function gitArgv(command: readonly string[]): string[] {
  return [...SAFE_CONFIG.flatMap((pair) => ['-c', pair]), '--no-pager', ...command]
}

/** The environment git runs with: the parent's without any `GIT_*` variable, and no prompt, pager or optional lock. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_') && key !== 'PAGER') env[key] = value
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat', GIT_NO_REPLACE_OBJECTS: '1' }
}

export interface GitResult {
  ok: boolean
  stdout: Buffer
  /** The output was longer than the bound and was cut (the process was stopped). */
  truncated: boolean
  stderr: string
}

/** Runs `git <safe config> --no-pager <command>` in `cwd`; never throws (a missing git is `ok: false`). */
export function runGit(cwd: string, command: readonly string[], maxBytes = GIT_MAX_OUTPUT): Promise<GitResult> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let size = 0
    let truncated = false
    let stderr = ''
    let child: ReturnType<typeof spawn>
    try {
      child = spawn('git', gitArgv(command), { cwd, env: gitEnv(), shell: false, stdio: ['ignore', 'pipe', 'pipe'], timeout: GIT_TIME_LIMIT_MS, windowsHide: true })
    } catch (error) {
      resolve({ ok: false, stdout: Buffer.alloc(0), truncated: false, stderr: (error as Error).message })
      return
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      if (truncated) return
      if (size + chunk.length > maxBytes) {
        parts.push(chunk.subarray(0, maxBytes - size))
        size = maxBytes
        truncated = true
        child.kill('SIGKILL')
        return
      }
      parts.push(chunk)
      size += chunk.length
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8')
    })
    child.on('error', (error) => resolve({ ok: false, stdout: Buffer.alloc(0), truncated: false, stderr: error.message }))
    child.on('close', (code) => resolve({ ok: code === 0 || truncated, stdout: Buffer.concat(parts, size), truncated, stderr: stderr.slice(0, 4096) }))
  })
}

/** One commit that changed a document. */
export interface GitCommit {
  sha: string
  at: string
  author: string
  subject: string
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/**
 * The commits that changed `relPath` (relative to `cwd`), newest first, at most {@link GIT_MAX_COMMITS}; undefined
 * when `cwd` is not in a git work tree (or git is missing or refuses the repository, e.g. another owner's).
 */
export async function gitCommits(cwd: string, relPath: string): Promise<{ commits: GitCommit[]; more: boolean } | undefined> {
  const inside = await runGit(cwd, ['rev-parse', '--is-inside-work-tree'], 64)
  if (!inside.ok || inside.stdout.toString('utf8').trim() !== 'true') return undefined
  // One more than shown, to say "more" honestly. No %G? (a signature check runs gpg), no patch output (no diff driver).
  const log = await runGit(cwd, [
    'log',
    '--no-ext-diff',
    '--no-textconv',
    '--no-show-signature',
    '--no-color',
    `--max-count=${GIT_MAX_COMMITS + 1}`,
    `--format=%H${FIELD}%aI${FIELD}%an${FIELD}%s${RECORD}`,
    '--',
    `./${relPath}`,
  ])
  if (!log.ok) return { commits: [], more: false }
  const commits: GitCommit[] = []
  for (const record of log.stdout.toString('utf8').split(RECORD)) {
    const [sha, at, author, subject] = record.trim().split(FIELD)
    if (!sha || !/^[0-9a-f]{40,64}$/.test(sha)) continue
    commits.push({ sha, at: at ?? '', author: author ?? '', subject: subject ?? '' })
  }
  return { commits: commits.slice(0, GIT_MAX_COMMITS), more: commits.length > GIT_MAX_COMMITS }
}

/** The text of `relPath` at commit `sha` (undefined when the commit does not hold it or it is over the bound). */
export async function gitText(cwd: string, sha: string, relPath: string): Promise<string | undefined> {
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return undefined
  const shown = await runGit(cwd, ['show', '--no-ext-diff', '--no-textconv', '--no-color', `${sha}:./${relPath}`])
  if (!shown.ok || shown.truncated) return undefined
  return shown.stdout.toString('utf8')
}
