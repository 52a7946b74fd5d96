/**
 * One sync run: the declared sources and the `in-use` decisions, each obtained (in parallel, one host spaced by the
 * fetcher), then written into its target section through the store, one target file at a time. Every source gets
 * exactly one result; one bad source never stops the others. A dry run writes no document (it may fill the cache).
 * @module dsh-knowledge-sync/sync/run
 */
import { lstat, readFile, realpath } from 'node:fs/promises'
import { sep } from 'node:path'
import { join } from 'node:path'
import { createTwoFilesPatch } from 'diff'
import { splitFrontMatter } from '../knowledge/documents/document.js'
import { insideRoot } from '../knowledge/documents/paths.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import { readRootStateFile, writeRootStateFile } from '../knowledge/disk/root-files.js'
import type { SyncReport, SyncResult, SyncStatus } from '../wire.js'
import { readDecisions, type Decision } from './decisions.js'
import { SafeFetcher, type FetcherLogger } from './fetcher.js'
import { planSection } from './markers.js'
import { allowedLocalRoots } from './local-file.js'
import { DEFAULT_MASK } from '../redact/redactor.js'
import { urlLabel } from '../redact/url-credentials.js'
import { obtain, type Obtained } from './obtain.js'
import { checkTarget, DEFAULT_CACHE_TTL, loadSources, SOURCES_FILE, type Source, type SourcesFile } from './sources.js'

export const STATE_FILE = join('.knowledge', 'sync-state.json')
/** Sources obtained at once (one host is still spaced by the fetcher). */
const CONCURRENCY = 4
const MAX_DIFF = 20_000

export interface RunOptions {
  dryRun?: boolean
  /** Only the source with this name. */
  only?: string
  fetcher?: SafeFetcher
  logger?: FetcherLogger
  /** Folders (absolute) a local source may read besides the root's enclosing work tree: the person's configuration. */
  localRoots?: readonly string[]
}

/** What the last real run said per source, and when each URL last synced (for `audit`). */
export interface SyncState {
  lastRun?: string
  results: Record<string, { status: SyncStatus; reason: string; at: string; from_cache?: boolean; source: string }>
  syncedAt: Record<string, string>
}

export async function readState(root: string): Promise<SyncState> {
  try {
    const data = JSON.parse(readRootStateFile(root, join(root, STATE_FILE)) ?? '{}') as SyncState
    return { lastRun: data.lastRun, results: data.results ?? {}, syncedAt: data.syncedAt ?? {} }
  } catch {
    return { results: {}, syncedAt: {} }
  }
}

/** Everything to sync: declared sources, in-use decisions, and results for entries that cannot run. */
export async function gatherSources(root: string): Promise<{ file: SourcesFile; sources: Source[]; early: SyncResult[]; decisions: Decision[] }> {
  const file = await loadSources(root)
  const early: SyncResult[] = []
  if (file.error) early.push({ name: SOURCES_FILE, type: SOURCES_FILE, source: SOURCES_FILE, target: null, status: 'invalid-target', reason: file.error })
  for (const bad of file.invalid) {
    const target = bad.target && typeof bad.target.file === 'string' && typeof bad.target.section === 'string' ? { file: bad.target.file, section: bad.target.section } : null
    early.push({ name: bad.name, type: 'invalid', source: '', target, status: 'invalid-target', reason: bad.reason })
  }
  let decisions: Decision[] = []
  try {
    decisions = (await readDecisions(root)).decisions
  } catch (error) {
    early.push({ name: 'decisions.json', type: 'decisions', source: 'decisions.json', target: null, status: 'invalid-target', reason: `decisions.json cannot be read: ${(error as Error).message}` })
  }
  const rejected = new Set(decisions.filter((d) => d.status === 'rejected').map((d) => d.url))
  const sources: Source[] = []
  for (const source of file.sources) {
    if (source.type !== 'local' && rejected.has(source.url)) {
      early.push({
        name: source.name,
        type: source.type,
        source: source.url,
        target: source.target,
        status: 'conflict-suppressed',
        reason: 'declared in sources.yml but rejected in decisions.json; resolve one of them',
      })
    } else sources.push(source)
  }
  const declared = new Set(file.sources.map((s) => (s.type === 'local' ? '' : s.url)))
  for (const d of decisions) {
    if (d.status !== 'in-use' || declared.has(d.url) || !d.target_file || !d.target_section) continue
    // decisions.json may come from someone else's push: its targets pass the same rule as sources.yml's.
    const target = checkTarget(root, { file: d.target_file, section: d.target_section })
    if (typeof target === 'string') {
      early.push({ name: d.url, type: 'decisions', source: d.url, target: null, status: 'invalid-target', reason: `in-use decision: ${target}` })
      continue
    }
    let type: 'http' | 'https'
    try {
      type = new URL(d.url).protocol === 'https:' ? 'https' : 'http'
    } catch {
      continue
    }
    sources.push({ type, name: d.url, url: d.url, cacheTtl: DEFAULT_CACHE_TTL, origin: 'decision', target })
  }
  // Two sources writing one section would overwrite each other on every run: the first one keeps it.
  const owners = new Map<string, string>()
  const unique = sources.filter((source) => {
    const key = `${source.target.file}#${source.target.section}`
    const owner = owners.get(key)
    if (owner === undefined) {
      owners.set(key, source.name)
      return true
    }
    early.push({
      name: source.name,
      type: source.type,
      source: source.type === 'local' ? source.path : source.url,
      target: source.target,
      status: 'invalid-target',
      reason: `section "${source.target.section}" of ${source.target.file} is already the target of source ${JSON.stringify(owner)}`,
    })
    return false
  })
  return { file, sources: unique, early, decisions }
}

/** Where a source's text came from, as documents, reports and the ledger show it: a URL's credentials masked. */
const sourceOf = (s: Source) => (s.type === 'local' ? s.path : urlLabel(s.url, DEFAULT_MASK))
const result = (s: Source, status: SyncStatus, reason: string, extra: Partial<SyncResult> = {}): SyncResult => ({
  name: s.name,
  type: s.type,
  source: sourceOf(s),
  target: s.target,
  status,
  reason: reason.replace(/\s+/g, ' ').slice(0, 300),
  ...extra,
})

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const k = next++
        out[k] = await fn(items[k])
      }
    }),
  )
  return out
}

/** Writes (or, dry, plans) every source of one target file, in declaration order. */
async function applyToFile(store: KnowledgeStore, file: string, items: Array<{ source: Source; got: Obtained }>, dryRun: boolean): Promise<SyncResult[]> {
  const out: SyncResult[] = []
  let full: string
  try {
    full = insideRoot(store.root, file)
  } catch (error) {
    return items.map(({ source }) => result(source, 'invalid-target', (error as Error).message))
  }
  // A target must be a regular file really inside the root: a symlink (or a symlinked folder) could pull another
  // file's text into the knowledge base.
  try {
    const [info, real, realRoot] = await Promise.all([lstat(full), realpath(full), realpath(store.root)])
    if (info.isSymbolicLink() || !info.isFile()) return items.map(({ source }) => result(source, 'invalid-target', `${file} is a symbolic link or not a regular file`))
    if (!real.startsWith(realRoot + sep)) return items.map(({ source }) => result(source, 'invalid-target', `${file} resolves outside the knowledge root`))
  } catch {
    /* missing: reported just below */
  }
  let text: string
  try {
    text = await readFile(full, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return items.map(({ source }) =>
      code === 'ENOENT' || code === 'ENOTDIR'
        ? result(source, 'target-missing', `no document ${file} under the knowledge root; create it with the section markers first`)
        : result(source, 'write-error', `cannot read ${file}: ${code ?? (error as Error).message}`),
    )
  }
  if (!splitFrontMatter(text)) return items.map(({ source }) => result(source, 'invalid-target', `${file} is not a knowledge document (it has no front matter)`))
  const original = text
  for (const { source, got } of items) {
    if (!got.ok) {
      out.push(result(source, got.status, got.reason))
      continue
    }
    const cacheNote = source.type === 'local' ? {} : { from_cache: got.fromCache }
    const plan = planSection(text, source.target.section, sourceOf(source), got.text)
    if (plan.status !== 'planned') {
      out.push(result(source, plan.status, plan.reason, cacheNote))
      continue
    }
    const masked = await store.redact(plan.body)
    if (masked.text === plan.before) {
      out.push(result(source, 'unchanged', `section "${source.target.section}" of ${file} already matches`, cacheNote))
      continue
    }
    const next = text.slice(0, plan.start) + masked.text + text.slice(plan.end)
    const size = `${plan.before.length} → ${masked.text.length} characters${masked.count ? `, ${masked.count} value(s) masked` : ''}`
    if (dryRun) {
      const diff = createTwoFilesPatch(file, file, text, next, '', '', { context: 2 })
      out.push(
        result(source, 'would-change', `section "${source.target.section}" of ${file} would change (${size})`, {
          ...cacheNote,
          diff: diff.length > MAX_DIFF ? `${diff.slice(0, MAX_DIFF)}\n… (diff cut)` : diff,
        }),
      )
      text = next
      continue
    }
    try {
      await store.splice(file, text, [{ start: plan.start, end: plan.end, text: masked.text }], sourceOf(source))
      text = await readFile(full, 'utf8')
      out.push(result(source, 'changed', `section "${source.target.section}" of ${file} updated (${size})`, cacheNote))
    } catch (error) {
      out.push(result(source, 'write-error', `cannot write ${file}: ${(error as Error).message}`, cacheNote))
      try {
        text = await readFile(full, 'utf8')
      } catch {
        text = original
      }
    }
  }
  return out
}

/** Runs sync (or a dry run) over every source; returns one result per source, in declaration order. */
export async function runSync(store: KnowledgeStore, options: RunOptions = {}): Promise<SyncReport> {
  await store.start()
  const at = new Date().toISOString()
  const dryRun = options.dryRun ?? false
  const { sources: all, early } = await gatherSources(store.root)
  const pick = <T extends { name: string }>(list: T[]) => (options.only ? list.filter((s) => s.name === options.only) : list)
  const sources = pick(all)
  const earlyResults = pick(early)
  if (options.only && !sources.length && !earlyResults.length) throw new Error(`no source named ${JSON.stringify(options.only)} in ${SOURCES_FILE} or the in-use decisions`)
  const fetcher = options.fetcher ?? new SafeFetcher({ logger: options.logger })
  const localRoots = allowedLocalRoots(store.root, options.localRoots)
  const obtained = await mapLimit(sources, CONCURRENCY, (source) => obtain(store.root, source, fetcher, localRoots))
  const byFile = new Map<string, Array<{ source: Source; got: Obtained; index: number }>>()
  sources.forEach((source, index) => {
    const list = byFile.get(source.target.file) ?? []
    list.push({ source, got: obtained[index], index })
    byFile.set(source.target.file, list)
  })
  const results: SyncResult[] = new Array(sources.length)
  for (const [file, items] of byFile) {
    const done = await applyToFile(store, file, items, dryRun)
    items.forEach((item, k) => {
      results[item.index] = done[k]
    })
  }
  const report = { at, dryRun, results: [...earlyResults, ...results] }
  if (!dryRun) await saveState(store.root, report).catch((error: Error) => options.logger?.warn('knowledge-sync: cannot save %s: %s', STATE_FILE, error.message))
  return report
}

async function saveState(root: string, report: SyncReport): Promise<void> {
  const state = await readState(root)
  state.lastRun = report.at
  for (const r of report.results) {
    state.results[r.name] = { status: r.status, reason: r.reason, at: report.at, from_cache: r.from_cache, source: r.source }
    if (r.status === 'changed' || r.status === 'unchanged') state.syncedAt[r.source] = report.at
  }
  await writeRootStateFile(root, join(root, STATE_FILE), JSON.stringify(state, null, 2) + '\n')
}
