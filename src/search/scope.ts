/**
 * The one scoping rule, shared by the tools, the pointer, the CLI and the page. A session in `cwd` sees the
 * documents of its workspace: the nearest ancestor-or-self that is a git root; else the nearest ancestor-or-self
 * where documents were recorded; else `cwd` itself. Visible documents are those recorded there or below, plus
 * documents with no `cwd` (hand-written, global). A git root wins so a subdirectory that later gets documents of its
 * own still sees the project's.
 * @module dsh-knowledge-sync/search/scope
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The workspace a caller in `cwd` sees; `hasDocumentsAt` tells whether documents were recorded in a directory. */
export function workspaceOf(cwd: string, hasDocumentsAt: (dir: string) => boolean): string {
  const start = resolve(cwd)
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) break
  }
  for (let dir = start; ; dir = dirname(dir)) {
    if (hasDocumentsAt(dir)) return dir
    if (dirname(dir) === dir) break
  }
  return start
}

/** True when a document recorded in `docCwd` is visible from `scope` (the index applies the same rule in SQL). */
export function isVisible(docCwd: string, scope: string | undefined): boolean {
  if (scope === undefined || docCwd === '') return true
  return docCwd === scope || docCwd.startsWith(scope.endsWith('/') ? scope : `${scope}/`)
}

/** The SQL form of {@link isVisible}: `cwd = exact OR lo <= cwd < hi` (a range over the cwd index). */
export function scopeRange(scope: string): { exact: string; lo: string; hi: string } {
  const sep = scope.includes('/') || !scope.includes('\\') ? '/' : '\\'
  let s = scope
  while (s.length > 1 && s.endsWith(sep)) s = s.slice(0, -1)
  const prefix = s === sep ? sep : s + sep
  const hi = prefix.slice(0, -1) + String.fromCharCode(sep.charCodeAt(0) + 1)
  return { exact: s, lo: prefix, hi }
}
