/**
 * Keeping the agent's own file tools out of the originals folder: a `tools/pre-execute` listener denies `write`,
 * `edit`, `str_replace_editor` (create/str_replace/insert/undo_edit) and shell commands whose redirections or
 * writing commands target the folder; reading and searching stay allowed. The shell check reads the command the
 * way a person would (redirection targets, `tee`, the file arguments of commands that change files) and refuses a
 * target it cannot resolve (a variable) when it names the folder. It is a guard against mistakes and steering, not
 * a sandbox: the watcher still records any change made another way (the file's `changedAt` moves).
 * @module dsh-knowledge-sync/originals/guard
 */
import { homedir } from 'node:os'
import { isAbsolute, resolve, sep } from 'node:path'

export const FILE_WRITE_TOOLS: Record<string, string> = { write: 'file_path', edit: 'file_path', str_replace_editor: 'path' }
export const SHELL_TOOLS = new Set(['bash', 'pwsh'])
const EDITOR_WRITES = new Set(['create', 'str_replace', 'insert', 'undo_edit'])

/** Commands that change every file named in their arguments (`mv` empties its sources too). */
const CHANGING = new Set([
  'mv',
  'rm',
  'rmdir',
  'touch',
  'mkdir',
  'truncate',
  'chmod',
  'chown',
  'unlink',
  'shred',
  'tee',
  'patch',
  'Set-Content',
  'Add-Content',
  'Out-File',
  'Remove-Item',
  'Move-Item',
  'New-Item',
])
/** Commands that write only their last argument (copying out of the folder is reading it). */
const LAST_WRITES = new Set(['cp', 'ln', 'install', 'rsync', 'Copy-Item'])
/** Commands that write where a flag says. */
const FLAG_WRITES: Record<string, RegExp> = { unzip: /^-d$/, tar: /^(-C|--directory)$/, curl: /^(-o|--output)$/, wget: /^(-O|-P|--output-document|--directory-prefix)$/ }
/** Commands that change files only with an in-place flag. */
const IN_PLACE = new Set(['sed', 'perl'])

/** Shell words of a command line: quotes removed, operators (`;`, `&&`, `|`, redirections) as their own words. */
export function shellWords(command: string): string[] {
  const words: string[] = []
  const pattern = /\s*(?:(\d*>>?\|?|&>>?|<<?|\|\||&&|[;|&()\n])|((?:[^\s;|&()<>"']|"(?:[^"\\]|\\.)*"|'[^']*')+))/gy
  for (let m = pattern.exec(command); m?.[0].length; m = pattern.exec(command)) {
    if (m[1]) words.push(m[1])
    else if (m[2]) words.push(m[2].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g, (_all, d: string | undefined, s: string | undefined) => (d !== undefined ? d.replace(/\\(.)/g, '$1') : (s ?? ''))))
  }
  return words
}

/**
 * The paths a shell command would write (redirection targets, the file arguments of commands that change files),
 * each resolved against the folder the command is in at that point (`cd`/`pushd` move it).
 */
export function shellWriteTargets(command: string, cwd: string): string[] {
  const words = shellWords(command)
  const targets: string[] = []
  let here = cwd
  const at = (p: string) => (/[$`]/.test(p) || p.startsWith('~') || isAbsolute(p) ? p : resolve(here, p))
  let start = true
  let name = ''
  let inPlace = false
  let last = ''
  const flush = () => {
    if (last && LAST_WRITES.has(name)) targets.push(at(last))
    last = ''
  }
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (/^(\d*>>?\|?|&>>?)$/.test(word)) {
      const target = words[i + 1]
      if (target && !/^&\d*$/.test(target)) targets.push(at(target))
      i++
      continue
    }
    if (/^(\|\||&&|[;|&()\n])$/.test(word)) {
      flush()
      start = true
      continue
    }
    if (/^<<?$/.test(word)) {
      i++ // an input redirection (or a here-document's delimiter) is read, not written
      continue
    }
    if (start) {
      start = false
      if (/^\w+=/.test(word)) {
        start = true // an assignment before the command
        continue
      }
      name = word.replace(/^.*\//, '')
      inPlace = false
      if (name === 'sudo' || name === 'env' || name === 'command' || name === 'xargs' || name === 'nohup' || name === 'time') start = true
      continue
    }
    if ((name === 'cd' || name === 'pushd') && !word.startsWith('-')) {
      here = /[$`~]/.test(word) ? here : resolve(here, word)
      continue
    }
    if (IN_PLACE.has(name) && /^(-i|--in-place|-i\S*|-pi\S*)$/.test(word)) inPlace = true
    if (name === 'dd' && word.startsWith('of=')) targets.push(at(word.slice(3)))
    if (FLAG_WRITES[name]?.test(word) && words[i + 1]) targets.push(at(words[++i]))
    if (!word.startsWith('-')) last = word
    if (CHANGING.has(name) || (IN_PLACE.has(name) && inPlace)) {
      const target = word.replace(/^-[A-Za-z]+=?/, '').replace(/^--[\w-]+=/, '')
      if (target) targets.push(at(target))
    }
  }
  flush()
  return targets.filter(Boolean)
}

/** True when `path` (as a tool would resolve it against `cwd`) lies in `dir` (given as one or more spellings). */
export function lands(path: string, cwd: string, dirs: string[], folderName: string): boolean {
  let p = path.trim()
  if (!p) return false
  if (p === '~' || p.startsWith('~/')) p = homedir() + p.slice(1)
  if (/[$`]/.test(p)) return p.split(/[/\\]/).includes(folderName) // cannot be resolved here: refuse when it names the folder
  const full = isAbsolute(p) ? resolve(p) : resolve(cwd, p)
  return dirs.some((dir) => full === dir || full.startsWith(dir + sep))
}

/**
 * What a tool call would write into the folder, or undefined when it writes nothing there. `dirs` are the folder's
 * spellings (configured and real path), `cwd` the session's workspace.
 */
export function writeIntoFolder(tool: string, args: unknown, cwd: string, dirs: string[], folderName: string): string | undefined {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>
  const key = FILE_WRITE_TOOLS[tool]
  if (key) {
    if (tool === 'str_replace_editor' && !EDITOR_WRITES.has(String(a.command ?? ''))) return undefined
    const path = typeof a[key] === 'string' ? (a[key] as string) : ''
    return lands(path, cwd, dirs, folderName) ? path : undefined
  }
  if (SHELL_TOOLS.has(tool) && typeof a.command === 'string') {
    const workdir = typeof a.workdir === 'string' && a.workdir ? resolve(cwd, a.workdir) : cwd
    return shellWriteTargets(a.command, workdir).find((t) => lands(t, workdir, dirs, folderName))
  }
  return undefined
}

export const DENY_REASON = (target: string) =>
  `refused: ${target.slice(0, 200)} is inside the originals folder, which only its own tools change. Use save_to_sources, ` +
  'download_to_sources or request_file to add a file (a new version goes under a new name with "replaces"), and ' +
  'retire_source to withdraw one. Reading and searching originals with your file tools is fine; extract_text reads DOCX, PPTX and XLSX.'
