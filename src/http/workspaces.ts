/**
 * The workspace filter's entries: recorded folders grouped by the one scoping rule (search/scope.ts: a git root
 * wins, so `alpha/packages/core` counts under `alpha`), each named by its repository or folder and where it is, and
 * counted as selecting it lists (its documents and those of every folder below it). Rows get their workspace too.
 * @module dsh-knowledge-sync/http/workspaces
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { folderName, isWindowsPath, MAX_FOLDED_SHOWN, segments, tildePath, type WorkspaceGroup } from '../wire-workspaces.js'

/** How the groups learn the rule's answer and what a git root is (the store's, in the routes). */
export interface WorkspaceRule {
  /** The workspace a session in `cwd` sees (KnowledgeStore.scopeFor). */
  scopeFor(cwd: string): string
  /** True when `dir` is a git root. */
  isGitRoot?(dir: string): boolean
  /** The home folder written `~` (default: this user's). */
  home?: string
}

/** A memo of the rule for one request: each recorded folder is resolved once. */
export function memoScope(rule: WorkspaceRule): (cwd: string) => string | undefined {
  const memo = new Map<string, string>()
  return (cwd) => {
    if (!cwd) return undefined
    let scope = memo.get(cwd)
    if (scope === undefined) {
      scope = rule.scopeFor(cwd)
      memo.set(cwd, scope)
    }
    return scope
  }
}

/**
 * The groups of `counts` (documents per recorded `cwd`; `''` = hand-written, visible everywhere, not a group), most
 * documents first, then by name and path.
 */
export function workspaceGroups(counts: Record<string, number>, rule: WorkspaceRule, scopeOf: (cwd: string) => string | undefined = memoScope(rule)): WorkspaceGroup[] {
  const isGit = rule.isGitRoot ?? ((dir: string) => existsSync(join(dir, '.git')))
  const home = rule.home ?? homedir()
  const cwds = Object.keys(counts).filter(Boolean)
  // Each workspace by the key of its segments; a folder adds its count to every workspace among its ancestors-or-self
  // (a walk up its few segments, not a pass over every folder per workspace: thousands of folders stay cheap).
  const byKey = new Map<string, { path: string; count: number; folded: string[] }>()
  for (const cwd of cwds) {
    const path = scopeOf(cwd)!
    const key = keyOf(segments(path), path)
    if (!byKey.has(key)) byKey.set(key, { path, count: 0, folded: [] })
  }
  for (const cwd of cwds) {
    const parts = segments(cwd)
    for (let n = parts.length; n >= 0; n--) {
      const group = byKey.get(keyOf(parts.slice(0, n), cwd))
      if (!group) continue
      group.count += counts[cwd]
      if (n < parts.length) group.folded.push(parts.slice(n).join('/'))
    }
  }
  const groups: WorkspaceGroup[] = []
  for (const { path, count, folded } of byKey.values()) {
    folded.sort()
    groups.push({ path, name: folderName(path), where: tildePath(path, home), git: isGit(path), count, folded: folded.slice(0, MAX_FOLDED_SHOWN), foldedCount: folded.length })
  }
  return groups.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name) || a.path.localeCompare(b.path))
}

/** A path's identity for grouping: its segments (case-folded on Windows spellings), rooted or not. */
function keyOf(parts: string[], path: string): string {
  const windows = isWindowsPath(path)
  const rooted = path.startsWith('/') ? '/' : ''
  return rooted + parts.map((part) => (windows ? part.toLowerCase() : part)).join('\0')
}
