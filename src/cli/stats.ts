/**
 * `dsh-knowledge stats`: documents by kind and workspace, kept and dropped rounds with the top drop reasons,
 * redactions, distillation tokens.
 * @module dsh-knowledge-sync/cli/stats
 */
import { collectStats } from '../knowledge/reports/stats.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import { type Command, openStore, print, printJson, scopeOf } from './common.js'

/** Workspaces shown by name; the rest are summed on one line. */
const SHOWN_WORKSPACES = 20

/**
 * Documents per workspace, most first. Recorded folders are grouped by the rule a session's search uses (the git root
 * above them, see scopeFor), so `project/packages/app` counts under `project`.
 */
export function workspaceLines(store: KnowledgeStore, byCwd: Record<string, number>): string[] {
  const grouped = new Map<string, number>()
  for (const [cwd, n] of Object.entries(byCwd)) {
    const workspace = cwd ? store.scopeFor(cwd) : ''
    grouped.set(workspace, (grouped.get(workspace) ?? 0) + n)
  }
  const rows = [...grouped].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  if (!rows.length) return []
  const shown = rows.slice(0, SHOWN_WORKSPACES).map(([ws, n]) => `  ${String(n).padStart(6)}  ${ws || '(no workspace: hand-written, visible everywhere)'}`)
  const rest = rows.slice(SHOWN_WORKSPACES)
  if (rest.length) shown.push(`  ${String(rest.reduce((a, [, n]) => a + n, 0)).padStart(6)}  (${rest.length} more workspace(s); --json lists them all)`)
  return [`by workspace (${rows.length}):`, ...shown]
}

export const stats: Command = async (invocation) => {
  const store = await openStore(invocation, { write: false })
  try {
    const s = await collectStats(store, scopeOf(store, invocation))
    if (invocation.values.json) {
      printJson(s)
      return 0
    }
    const lines = [
      `root: ${s.root}${s.scope ? ` (visible: ${s.scope})` : ''}`,
      `documents: ${s.documents} (${
        Object.entries(s.byKind)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || 'none'
      })`,
      `rounds: kept ${s.rounds.kept}, dropped ${s.rounds.dropped}, unanswered ${Object.values(s.rounds.unanswered).reduce((a, b) => a + b, 0)}, failed ${s.rounds.failed}`,
      `top drop reasons: ${s.rounds.dropReasons.map((r) => `${r.reason} ×${r.count}`).join(', ') || 'none'}`,
      `notes: ${s.rounds.notes}; values redacted: ${s.rounds.redacted}${s.redactionEnabled ? '' : ' (redaction is DISABLED)'}`,
      `distill: ${s.rounds.distill.calls} call(s), ${s.rounds.distill.tokensIn} tokens in, ${s.rounds.distill.tokensOut} out, ${s.rounds.distill.failed} failed`,
    ]
    lines.push(...workspaceLines(store, s.byWorkspace))
    if (s.invalidFiles.length) lines.push(`unreadable files: ${s.invalidFiles.length} (first: ${s.invalidFiles[0].error})`)
    print(lines.join('\n'))
    return 0
  } finally {
    await store.close()
  }
}
