/**
 * `dsh-knowledge stats`: documents by kind and workspace, kept and dropped rounds with the top drop reasons,
 * redactions, distillation tokens.
 * @module dsh-knowledge-sync/cli/stats
 */
import { collectStats } from '../knowledge/reports/stats.js'
import { type Command, openStore, print, printJson, scopeOf } from './common.js'

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
    if (s.invalidFiles.length) lines.push(`unreadable files: ${s.invalidFiles.length} (first: ${s.invalidFiles[0].error})`)
    print(lines.join('\n'))
    return 0
  } finally {
    await store.close()
  }
}
