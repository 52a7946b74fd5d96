/**
 * `dsh-knowledge health`: is this base any good, or just growing? Probes every active document with its own words
 * (no model), and prints recall@5 and MRR, the documents that cannot be found, near-duplicates and growth per day.
 * Each run is recorded, so the page's Health panel can draw recall over time.
 * @module dsh-knowledge-sync/cli/health
 */
import { probeHealth } from '../knowledge/reports/health.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

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
        report.unfindable.length ? `not found by their own words (${report.unfindable.length}):` : 'every probed document is found by its own words',
        ...report.unfindable.slice(0, 10).map((u) => `  ${u.id} — ${u.title}`),
        report.nearDuplicates.length ? `near-duplicates (${report.nearDuplicates.length}; supersede one with the other):` : 'no near-duplicates',
        ...report.nearDuplicates.slice(0, 10).map((d) => `  ${d.a} ≈ ${d.b} (${Math.round(d.similarity * 100)}% of words shared)`),
        `last ${last.length} day(s): ${last.map((g) => `${g.day} +${g.kept}/-${g.dropped}`).join(', ') || 'no rounds yet'}`,
      ].join('\n'),
    )
    return 0
  } finally {
    await store.close()
  }
}
