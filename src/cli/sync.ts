/**
 * The knowledge-sync commands: `sync [--dry-run] [--source NAME]`, `status` (the dry run), `discover`, `audit`,
 * `promote --url U --file F --section S` (a person's locked `in-use` verdict), `regenerate-md`.
 * Exit code 0 when every source synced or was unchanged, 1 when any source reported a problem.
 * @module dsh-knowledge-sync/cli/sync
 */
import { resolve } from 'node:path'
import type { KnowledgeStore } from '../knowledge/store.js'
import { KnowledgeSync } from '../sync/service.js'
import type { SyncReport } from '../wire.js'
import { type Command, type Invocation, openStore, print, printJson, UsageError } from './common.js'

const OK = new Set(['unchanged', 'changed', 'would-change'])
const logger = { warn: (format: string, ...args: unknown[]) => process.stderr.write(`${format.replace(/%[sd]/g, () => String(args.shift()))}\n`), debug() {} }

async function withSync<T>(invocation: Invocation, fn: (sync: KnowledgeSync, store: KnowledgeStore) => Promise<T>): Promise<T> {
  const store = await openStore(invocation)
  try {
    const localRoots = (invocation.values['allow-local'] ?? []).map((dir) => resolve(dir))
    return await fn(new KnowledgeSync(store, { logger, localRoots }), store)
  } finally {
    await store.close()
  }
}

function printReport(report: SyncReport, invocation: Invocation): number {
  if (invocation.values.json) printJson(report)
  else {
    const width = Math.max(4, ...report.results.map((r) => r.name.length))
    const lines = report.results.map((r) => `${r.name.padEnd(width)}  ${r.status.padEnd(19)} ${r.reason}${r.from_cache ? ' (from cache)' : ''}`)
    if (report.dryRun) for (const r of report.results) if (r.diff) lines.push('', r.diff.trimEnd())
    print(lines.length ? lines.join('\n') : 'no sources (add <root>/sources.yml)')
  }
  return report.results.every((r) => OK.has(r.status)) ? 0 : 1
}

export const sync: Command = (invocation) => withSync(invocation, async (s) => printReport(await s.run({ dryRun: invocation.values['dry-run'], only: invocation.values.source }), invocation))

export const status: Command = (invocation) => withSync(invocation, async (s) => printReport(await s.run({ dryRun: true, only: invocation.values.source }), invocation))

export const discoverCommand: Command = (invocation) =>
  withSync(invocation, async (s) => {
    const results = await s.discover()
    if (invocation.values.json) printJson(results)
    else
      print(
        results
          .map(
            (r) =>
              `${r.root}: ${r.method}, ${r.found} found, ${r.added} new pending${r.skippedByRobots ? `, ${r.skippedByRobots} disallowed by robots.txt` : ''}${r.errors.length ? `; ${r.errors.length} error(s), first: ${r.errors[0]}` : ''}`,
          )
          .join('\n') || 'no roots in sources.yml',
      )
    return results.some((r) => r.errors.length && !r.found) ? 1 : 0
  })

export const audit: Command = (invocation) =>
  withSync(invocation, async (s) => {
    const report = await s.audit()
    if (invocation.values.json) {
      printJson(report)
      return 0
    }
    print(
      [
        `pending: ${report.pending}`,
        `verdicts older than 90 days: ${report.stale.length}${report.stale.map((d) => `\n  ${d.url} (${d.status}, ${d.decided_at})`).join('')}`,
        `in-use never synced: ${report.neverSynced.length}${report.neverSynced.map((d) => `\n  ${d.url}`).join('')}`,
        `in-use missing its target: ${report.missingTarget.length}${report.missingTarget.map((d) => `\n  ${d.url}: ${d.problem}`).join('')}`,
      ].join('\n'),
    )
    return 0
  })

export const promote: Command = (invocation) =>
  withSync(invocation, async (s) => {
    const { url, file, section, reason } = invocation.values
    if (!url || !file || !section) throw new UsageError('promote needs --url U --file F --section S')
    const decided = await s.decisions.decide({ url, status: 'in-use', by: 'human', reason, target: { file, section }, replaceLocked: invocation.values.force === true })
    if (invocation.values.json) printJson(decided)
    else print(`${decided.url} is in-use → ${decided.target_file}#${decided.target_section} (decided by a person, locked)`)
    return 0
  })

export const regenerateMd: Command = (invocation) =>
  withSync(invocation, async (s) => {
    const text = await s.decisions.regenerate()
    print(invocation.values.json ? JSON.stringify({ lines: text.split('\n').length }) : `decisions.md regenerated (${text.split('\n').length} lines)`)
    return 0
  })
