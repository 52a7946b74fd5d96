/**
 * `dsh-knowledge history <id> [--diff A..B] [--json]`: a document's revisions, newest first (from git when the root
 * is in a repository, else from the bounded local history), or the redacted line diff between two of them, the same
 * answers as the page's History section (`GET <prefix>/history`).
 * @module dsh-knowledge-sync/cli/history
 */
import { documentHistory, formatHistoryDiff, historyDiff, parseRange } from '../knowledge/history/history.js'
import type { DocumentHistory } from '../wire.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const history: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('history needs a document id')
  const range = invocation.values.diff
  if (range !== undefined && !range.trim()) throw new UsageError('--diff needs a range, e.g. --diff v2..v3 or --diff v2 (v2..current)')
  const { from, to } = range !== undefined ? parseRange(range) : { from: '', to: '' }
  const store = await openStore(invocation, { write: false, trustWatcher: true })
  try {
    const scope = scopeOf(store, invocation)
    if (range !== undefined) {
      const diff = await historyDiff(store, id, from, to, scope)
      if (invocation.values.json) printJson(diff)
      else process.stdout.write(formatHistoryDiff(diff, store.get(diff.id)?.path ?? diff.id))
      return 0
    }
    const found = await documentHistory(store, id, scope)
    if (invocation.values.json) printJson(found)
    else print(renderHistory(found))
    return 0
  } finally {
    await store.close()
  }
}

/** The revisions as lines a person reads: ref, when, who and what (git), and how far the list goes. */
export function renderHistory(history: DocumentHistory): string {
  const out = [`${history.path} · ${history.revisions.length} revision(s) from ${history.source === 'git' ? 'git' : 'the local history'}${history.version ? ` · v:${history.version}` : ''}`]
  for (const r of history.revisions) {
    const what = r.ref === 'current' ? 'the file now (not committed)' : [r.author, r.subject].filter(Boolean).join(': ')
    const label = r.ref === 'current' && history.source === 'local' ? 'the file now' : what
    out.push(`  ${r.ref.padEnd(12)}  ${r.at.slice(0, 19).replace('T', ' ')}${r.version ? `  v:${r.version}` : ''}${label ? `  ${label}` : ''}${r.hasText ? '' : '  (text not kept: too large)'}`)
  }
  if (history.more)
    out.push(
      history.source === 'git'
        ? `  … older commits are not listed (at most ${history.limits.commits})`
        : `  … older revisions have no text here (kept: at most ${history.limits.perDocument} per document, ${Math.round((history.limits.bytes ?? 0) / 1048576)} MiB in all)`,
    )
  if (history.revisions.length > 1) out.push(`Diff two: dsh-knowledge history ${history.id} --diff ${history.revisions[1].ref}..${history.revisions[0].ref}`)
  return out.join('\n')
}
