/**
 * How the page names a workspace: by its repository (the git root's folder name) or folder name, and where it is
 * (the path with the home folder as `~`), never by the last two segments of a path, which two repositories can share
 * ("…/packages/core"). Pure string work on POSIX and Windows spellings, shared by the routes and the page.
 * @module dsh-knowledge-sync/wire-workspaces
 */

/** One entry of the workspace filter: a folder the scoping rule answers, with what selecting it lists. */
export interface WorkspaceGroup {
  /** What selecting it scopes to: a git root, or a folder where documents were recorded (not in a repository). */
  path: string
  /** The repository's name (the git root's folder), or the folder's. */
  name: string
  /** Where it is: its path with the home folder written `~`. */
  where: string
  /** True when `path` is a git root (recorded subfolders are folded into it). */
  git: boolean
  /** Documents recorded in it or below: what selecting it lists (besides hand-written ones, visible everywhere). */
  count: number
  /** Recorded folders folded into it, relative to it (at most {@link MAX_FOLDED_SHOWN}). */
  folded: string[]
  /** How many recorded folders are folded into it in all. */
  foldedCount: number
}

/** Folded folders listed per group (the count says how many in all). */
export const MAX_FOLDED_SHOWN = 8

/** The longest `where` shown in a filter option before its middle is elided. */
export const MAX_WHERE_CHARS = 48

/** True for a Windows spelling: a drive (`C:\`, `c:/`), a UNC share (`\\host\share`), or backslashes only. */
export function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:([\\/]|$)/.test(path) || path.startsWith('\\\\') || (path.includes('\\') && !path.includes('/'))
}

/** The path's separator as written (`\` for a Windows spelling, else `/`). */
function separatorOf(path: string): string {
  return isWindowsPath(path) && (path.includes('\\') || !path.includes('/')) ? '\\' : '/'
}

/** The path's segments (either separator on Windows spellings), without empty ones. */
export function segments(path: string): string[] {
  return path.split(isWindowsPath(path) ? /[\\/]+/ : /\/+/).filter(Boolean)
}

/** The path without trailing separators (a root stays a root: `/`, `C:\`). */
function trimmed(path: string): string {
  let out = path
  while (out.length > 1 && /[\\/]$/.test(out) && !/^[A-Za-z]:[\\/]$/.test(out)) out = out.slice(0, -1)
  return out
}

/** `inner` relative to `outer` (`''` when equal), or undefined when `inner` is not `outer` or below it. */
export function relativeWithin(inner: string, outer: string): string[] | undefined {
  const a = segments(inner)
  const b = segments(outer)
  const windows = isWindowsPath(inner) || isWindowsPath(outer)
  const same = (x: string, y: string) => (windows ? x.toLowerCase() === y.toLowerCase() : x === y)
  if (a.length < b.length || !b.every((part, k) => same(part, a[k]))) return undefined
  // A POSIX root has no segments: only absolute paths are below it.
  if (!b.length && !(inner.startsWith('/') && outer.startsWith('/'))) return undefined
  return a.slice(b.length)
}

/** The folder's own name: its last segment, or the path itself for a root (`/`, `C:\`). */
export function folderName(path: string): string {
  const parts = segments(path)
  const last = parts.at(-1)
  return !last || /^[A-Za-z]:$/.test(last) ? trimmed(path) || path : last
}

/** The path with `home` written `~` (`~/src/alpha`, `~\src\alpha`); other paths as they are. */
export function tildePath(path: string, home: string | undefined): string {
  const clean = trimmed(path)
  if (!home) return clean
  const rest = relativeWithin(clean, trimmed(home))
  if (!rest || !segments(home).length) return clean
  const sep = separatorOf(clean)
  return rest.length ? `~${sep}${rest.join(sep)}` : '~'
}

/** `where` shortened in the middle to at most `max` characters, keeping its head and as much of its tail as fits. */
export function elideMiddle(where: string, max = MAX_WHERE_CHARS): string {
  if (where.length <= max) return where
  const sep = separatorOf(where)
  const parts = where.split(sep)
  const head = parts[0] === '' ? `${sep}${parts[1] ?? ''}` : parts[0]
  const tail: string[] = []
  for (let k = parts.length - 1; k > (parts[0] === '' ? 1 : 0); k--) {
    const next = [parts[k], ...tail].join(sep)
    if (head.length + 3 + next.length > max && tail.length) break
    tail.unshift(parts[k])
  }
  return `${head}${sep}…${sep}${tail.join(sep)}`
}

/** The filter option of a group: its name, then where it is (`alpha — ~/src/alpha`). */
export function groupLabel(group: Pick<WorkspaceGroup, 'name' | 'where'>): string {
  return group.where === group.name ? group.name : `${group.name} — ${elideMiddle(group.where)}`
}

/**
 * A document's folder as its row shows it: the workspace's name and the path inside it (`alpha/packages/core`), so
 * two repositories' `packages/core` read apart; the folder's name alone when no workspace contains it.
 */
export function folderLabel(cwd: string, workspace: string | undefined): string {
  const rest = workspace ? relativeWithin(cwd, workspace) : undefined
  if (!workspace || !rest) return folderName(cwd)
  return [folderName(workspace), ...rest].join('/')
}
