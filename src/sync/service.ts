/**
 * The knowledge-sync service over one store: sync runs (one at a time), the Sources view, discover, curation and
 * audit. The row provides it as `ctx.knowledgeSync`; the CLI builds one over its own store.
 * @module dsh-knowledge-sync/sync/service
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { KnowledgeStore } from '../knowledge/store.js'
import { findSections } from '../knowledge/documents/upstream.js'
import type { SourceRow, SourcesView, SyncReport } from '../wire.js'
import { isFresh, readCache } from './cache.js'
import { Decisions, STALE_DAYS, type Decision } from './decisions.js'
import { discover, type DiscoverResult } from './discover.js'
import { SafeFetcher, type FetcherLogger, type FetcherOptions } from './fetcher.js'
import { gatherSources, readState, runSync } from './run.js'
import { SOURCES_FILE } from './sources.js'

export interface AuditReport {
  pending: number
  /** Verdicts decided more than {@link STALE_DAYS} days ago. */
  stale: Decision[]
  /** `in-use` URLs no sync has ever written or confirmed. */
  neverSynced: Decision[]
  /** `in-use` URLs whose target document or section does not exist. */
  missingTarget: Array<Decision & { problem: string }>
}

export class KnowledgeSync {
  readonly decisions: Decisions
  private running?: Promise<SyncReport>

  constructor(
    readonly store: KnowledgeStore,
    private readonly options: { logger?: FetcherLogger; fetcher?: Omit<FetcherOptions, 'logger'> } = {},
  ) {
    this.decisions = new Decisions(store.root)
  }

  /** A fetcher for one run (its per-host spacing lasts for the run). */
  fetcher(): SafeFetcher {
    return new SafeFetcher({ ...this.options.fetcher, logger: this.options.logger })
  }

  /** Syncs (or dry-runs) every source. Real runs never overlap: a second call waits for the first. */
  async run(options: { dryRun?: boolean; only?: string } = {}): Promise<SyncReport> {
    if (options.dryRun) return runSync(this.store, { ...options, fetcher: this.fetcher(), logger: this.options.logger })
    while (this.running) await this.running.catch(() => {})
    const run = runSync(this.store, { ...options, fetcher: this.fetcher(), logger: this.options.logger })
    this.running = run
    try {
      return await run
    } finally {
      this.running = undefined
    }
  }

  /** True while a real run is in progress. */
  get busy(): boolean {
    return this.running !== undefined
  }

  /** Every source with its last result and cache state (no network). */
  async sources(): Promise<SourcesView> {
    const { file, sources, early } = await gatherSources(this.store.root)
    const state = await readState(this.store.root)
    const rows: SourceRow[] = []
    for (const source of sources) {
      const last = state.results[source.name]
      let cache: SourceRow['cache'] = null
      if (source.type !== 'local') {
        const entry = await readCache(this.store.root, source.url)
        if (entry)
          cache = { fetchedAt: entry.fetchedAt, fresh: isFresh(entry, source.cacheTtl), etag: Boolean(entry.etag), lastModified: Boolean(entry.lastModified), bytes: Buffer.byteLength(entry.body) }
      }
      rows.push({
        name: source.name,
        type: source.type,
        source: source.type === 'local' ? source.path : source.url,
        target: source.target,
        origin: source.origin,
        cache,
        last: last ? { status: last.status, reason: last.reason, at: last.at, from_cache: last.from_cache } : undefined,
      })
    }
    for (const bad of early) rows.push({ name: bad.name, type: bad.type, source: bad.source, target: bad.target, origin: 'invalid', last: { status: bad.status, reason: bad.reason, at: '' } })
    return { available: true, file: join(this.store.root, SOURCES_FILE), exists: file.exists, error: file.error, lastRun: state.lastRun, sources: rows }
  }

  /** Walks the discovery roots; new URLs become pending decisions. */
  async discover(): Promise<DiscoverResult[]> {
    const { file } = await gatherSources(this.store.root)
    return discover(file.roots, this.fetcher(), this.decisions)
  }

  /** Pending count, stale verdicts, in-use never synced, in-use with a missing target. */
  async audit(now = Date.now()): Promise<AuditReport> {
    const { decisions } = await this.decisions.read()
    const state = await readState(this.store.root)
    const cutoff = now - STALE_DAYS * 24 * 60 * 60 * 1000
    const report: AuditReport = { pending: 0, stale: [], neverSynced: [], missingTarget: [] }
    const texts = new Map<string, string | undefined>()
    for (const d of decisions) {
      if (d.status === 'pending') {
        report.pending++
        continue
      }
      if (d.decided_at && Date.parse(d.decided_at) < cutoff) report.stale.push(d)
      if (d.status !== 'in-use') continue
      if (!state.syncedAt[d.url]) report.neverSynced.push(d)
      const file = d.target_file ?? ''
      if (!texts.has(file)) texts.set(file, await readFile(join(this.store.root, file), 'utf8').catch(() => undefined))
      const text = texts.get(file)
      if (text === undefined) {
        report.missingTarget.push({ ...d, problem: `no document ${file}` })
        continue
      }
      try {
        if (!findSections(text).some((s) => s.name === d.target_section)) report.missingTarget.push({ ...d, problem: `${file} has no section "${d.target_section}"` })
      } catch (error) {
        report.missingTarget.push({ ...d, problem: `${file}: ${(error as Error).message}` })
      }
    }
    return report
  }
}
