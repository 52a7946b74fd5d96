/**
 * `dsh-knowledge health`: is this base any good, or just growing? Probes every active document with its own words
 * (no model; superseded and retired ones are left out), and prints recall@5 and MRR, the documents that cannot be found, near-duplicates and growth per day.
 * Each run is recorded, so the page's Health panel can draw recall over time.
 * @module dsh-knowledge-sync/cli/health
 */
import { probeHealth } from '../knowledge/reports/health.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

/** How many of each list the terminal prints. */
const SHOWN = 10
const shown = (total: number) => (total > SHOWN ? `, the first ${SHOWN}:` : ':')

export const health: Command = async (invocation) => {
  const { values } = invocation
  const sample = values.sample === undefined ? undefined : Number(values.sample)
  if (sample !== undefined && (!Number.isInteger(sample) || sample < 1)) throw new UsageError('--sample must be a whole number >= 1')
  const store = await openStore(invocation)
  try {
    const report = await probeHealth(store, { scope: scopeOf(store, invocation), sample })
    if (values.json) {
      printJson(report)
      return 0
    }
    const last = report.growth.slice(-7)
    print(
      [
        `${report.probed} of ${report.documents} document(s) probed in ${report.ms} ms${report.scope ? ` (visible: ${report.scope})` : ''}`,
        `found by their own words: recall@5 ${report.recallAt5.toFixed(3)}, MRR ${report.mrr.toFixed(3)}`,
        // The totals the page shows; the lists are the first ones (the report keeps 50, the terminal prints 10).
        report.unfindableTotal ? `not found by their own words: ${report.unfindableTotal}${shown(report.unfindableTotal)}` : 'every probed document is found by its own words',
        ...report.unfindable.slice(0, SHOWN).map((u) => `  ${u.id} — ${u.title}`),
        report.nearDuplicatesTotal
          ? `near-duplicates: ${report.nearDuplicatesTotal}${shown(report.nearDuplicatesTotal)} (supersede one with the other: dsh-knowledge supersede <id> --by <id>)`
          : 'no near-duplicates',
        ...report.nearDuplicates.slice(0, SHOWN).map((d) => `  ${d.a} "${d.aTitle}" ≈ ${d.b} "${d.bTitle}" (${Math.round(d.similarity * 100)}% of words shared)`),
        `last ${last.length} day(s): ${last.map((g) => `${g.day} +${g.kept}/-${g.dropped}`).join(', ') || 'no rounds yet'}`,
      ].join('\n'),
    )
    return 0
  } finally {
    await store.close()
  }
}
