/**
 * The one scoping rule, shared by the tools, the pointer, the CLI and the page: with `sameWorkspaceOnly` a caller in
 * `cwd` sees the documents of its workspace (see `KnowledgeStore.scopeFor`), otherwise everything under the root.
 * @module dsh-knowledge-sync/recall/visibility
 */
import type { KnowledgeStore } from '../knowledge/store.js'

/** The visible workspace for a caller in `cwd`; undefined = everything under the root. */
export function visibleScope(store: KnowledgeStore, cwd: string | undefined, sameWorkspaceOnly: boolean): string | undefined {
  if (!sameWorkspaceOnly || !cwd) return undefined
  return store.scopeFor(cwd)
}

/** True when a document recorded in `docCwd` is visible from `scope` (the index applies the same rule in SQL). */
export function isVisible(docCwd: string, scope: string | undefined): boolean {
  if (scope === undefined || docCwd === '') return true
  return docCwd === scope || docCwd.startsWith(scope.endsWith('/') ? scope : `${scope}/`)
}
