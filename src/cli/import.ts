/**
 * `dsh-knowledge import`: day one is not empty. Every past round in dsh's own session logs goes through the live
 * capture path (see capture/backfill), so an imported document is the document capture would have written.
 * Unreadable or truncated logs are reported per session and skipped; re-running writes nothing new.
 * @module dsh-knowledge-sync/cli/import
 */
import { resolve, sep } from 'node:path'
import { backfillSession, emptySummary, type BackfillSummary } from '../capture/backfill.js'
import { DEFAULT_MIN_SCORE } from '../capture/salience.js'
import { type Command, openStore, print, printJson, UsageError } from './common.js'
import { dshHome, openSessionLogs, type SessionHeaderLike, type SessionLogReader, type Unreadable } from './dsh-sessions.js'
import { AGENTS, type Agent } from './transcripts/index.js'

/** dsh's own session logs, or (`--from`) another agent's transcripts. */
async function sessionLogs(values: { from?: string; transcripts?: string; 'dsh-home'?: string }): Promise<SessionLogReader> {
  if (values.from === undefined || values.from === 'dsh') return openSessionLogs(dshHome(values['dsh-home']))
  if (!(AGENTS as readonly string[]).includes(values.from)) throw new UsageError(`--from must be one of dsh, ${AGENTS.join(', ')}`)
  const { openTranscripts, transcriptFolder } = await import('./transcripts/index.js')
  return openTranscripts(values.from as Agent, transcriptFolder(values.from as Agent, values.transcripts))
}

/** Which sessions the flags select (subagent children are skipped, as live capture does by default). */
function selected(header: SessionHeaderLike, since: number | undefined, only: string | undefined, cwd: string | undefined): boolean {
  if (header.origin === 'subagent') return false
  if (only && header.id !== only && header.id !== `session-${only}`) return false
  if (since !== undefined && header.createdAt < since) return false
  if (cwd && header.cwd !== cwd && !(header.cwd ?? '').startsWith(cwd.endsWith(sep) ? cwd : cwd + sep)) return false
  return true
}

export const importSessions: Command = async (invocation) => {
  const { values } = invocation
  const minScore = values['min-score'] === undefined ? DEFAULT_MIN_SCORE : Number(values['min-score'])
  if (!Number.isFinite(minScore) || minScore < 0) throw new UsageError('--min-score must be a number >= 0')
  const since = values.since === undefined ? undefined : Date.parse(values.since)
  if (since !== undefined && Number.isNaN(since)) throw new UsageError(`--since ${JSON.stringify(values.since)} is not a date (use YYYY-MM-DD)`)
  const cwd = values.cwd ? resolve(values.cwd) : undefined
  const logs = await sessionLogs(values)
  const store = await openStore(invocation)
  const summary: BackfillSummary = emptySummary()
  const unreadable: Unreadable[] = []
  const bar = !values.json && process.stderr.isTTY ? await progressBar() : undefined
  try {
    const listed = await logs.list()
    unreadable.push(...listed.unreadable)
    const headers = listed.sessions.filter((h) => selected(h, since, values.session, cwd)).sort((a, b) => a.createdAt - b.createdAt)
    const seen = await store.ledger.roundsSeen()
    bar?.start(headers.length, 0)
    for (const header of headers) {
      let events
      try {
        events = await logs.events(header.id)
      } catch (error) {
        unreadable.push({ session: header.id, error: (error as Error).message.split('\n')[0] })
        bar?.increment()
        continue
      }
      await backfillSession(store, { id: header.id, cwd: header.cwd ?? '', subagent: false, events }, { minScore, dryRun: values['dry-run'], seen }, summary)
      bar?.increment()
    }
    bar?.stop()
    await store.flush()
  } finally {
    bar?.stop()
    await store.close()
    await logs.close()
  }
  const result = { ...summary, unreadable, dryRun: Boolean(values['dry-run']) }
  if (values.json) {
    printJson(result)
    return summary.failed ? 1 : 0
  }
  const reasons = Object.entries(summary.droppedByReason)
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ×${n}`)
    .join(', ')
  print(
    [
      `${values['dry-run'] ? 'would import' : 'imported'}: ${summary.sessions} session(s), ${summary.rounds} round(s)`,
      `kept ${summary.kept}, dropped ${summary.dropped}${reasons ? ` (${reasons})` : ''}, unanswered ${summary.unanswered}, already known ${summary.skipped}`,
      `values redacted: ${summary.redacted}; failed: ${summary.failed}${summary.failures[0] ? ` (first: ${summary.failures[0]})` : ''}`,
      ...(unreadable.length ? [`unreadable session log(s): ${unreadable.length}`, ...unreadable.slice(0, 10).map((u) => `  ${u.session}: ${u.error}`)] : []),
    ].join('\n'),
  )
  return summary.failed ? 1 : 0
}

/** A progress bar on standard error (cli-progress), loaded only for a terminal. */
async function progressBar() {
  const { default: progress } = await import('cli-progress')
  return new progress.SingleBar({ stream: process.stderr, format: 'importing {bar} {value}/{total} sessions', hideCursor: true, clearOnComplete: true }, progress.Presets.shades_classic)
}
