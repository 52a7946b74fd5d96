/**
 * The wiki over one store: its page types, the page writes (./pages.ts), the operation log (./op-log.ts) and the
 * generated `index.md` (./catalogue.ts). The tools, the CLI and the page all call this, so a refusal reads the same
 * everywhere. Its catalogue reads each page's front matter once and keeps it until the store reports a change of
 * that page, so the index of 3,000 pages costs a file read only for what changed.
 * @module dsh-knowledge-sync/knowledge/wiki/wiki
 */
import { constants, fstatSync, openSync, readFileSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { isVisible } from '../../search/scope.js'
import { DOC_KINDS } from '../../wire.js'
import { writeFileAtomic } from '../disk/atomic.js'
import { visibleIds } from '../corrections/correct.js'
import { eachListed } from '../pager.js'
import type { KnowledgeStore } from '../store.js'
import { buildCatalogue, type Catalogue, type CatalogueEntry, indexFieldsOf, renderForModel, renderIndexFile, summaryOf } from './catalogue.js'
import { appendLog, type LogEntry, logLine, MAX_WHAT, OPERATION, readLogTail } from './op-log.js'
import type { FieldChange } from './page-fields.js'
import { type DeclaredType, OVERVIEW_ID, type PageType, resolveTypes, splitPageId } from './page-types.js'
import { contentOf, createPages, editPage, type NewPage, type PageContext, rewritePage, type WrittenPage } from './pages.js'

export const INDEX_FILE = 'index.md'

/** A summary written with a `file`: what the originals manifest listens for. */
export interface IngestedEvent {
  id: string
  file: string
}

const ingestListeners = new WeakMap<KnowledgeStore, Set<(event: IngestedEvent) => void>>()

/**
 * Subscribes to summaries ingested on `store` (created with a `file`, or given a new one), from any Wiki over it,
 * the tools and the CLI alike. Returns the unsubscribe. The listener runs after the page is on disk.
 */
export function onPageIngested(store: KnowledgeStore, listener: (event: IngestedEvent) => void): () => void {
  let set = ingestListeners.get(store)
  if (!set) ingestListeners.set(store, (set = new Set()))
  set.add(listener)
  return () => set.delete(listener)
}

const staleSources = new WeakMap<KnowledgeStore, () => Promise<ReadonlySet<string>>>()

/**
 * Names who tells the catalogue which summary pages are stale (their original changed after they were written): the
 * originals row, which keeps the manifest, registers it on the store the wiki reads, as {@link onPageIngested} runs
 * the other way. Returns the unregister. Without one (no originals row), no page is marked stale.
 */
export function provideStaleSummaries(store: KnowledgeStore, source: () => Promise<ReadonlySet<string>>): () => void {
  staleSources.set(store, source)
  return () => {
    if (staleSources.get(store) === source) staleSources.delete(store)
  }
}

/** The template of type `name` among `types`, with its fields named; throws for an unknown type. */
export function templateText(types: readonly PageType[], name: string): string {
  const type = types.find((t) => t.type === name)
  if (!type) throw new Error(`no page type "${name}"; the types: ${types.map((t) => t.type).join(', ')}`)
  const fields = type.fields.filter((f) => !f.byStore)
  return [
    `Template of a ${type.type} page (${type.description}) Call knowledge_create again with this as "content", filled in:`,
    '',
    type.template.trimEnd(),
    '',
    fields.length ? `Fields: ${fields.map((f) => `${f.name}${f.list ? ' (a list)' : ''}${f.description ? `: ${f.description}` : ''}`).join('; ')}.` : 'No fields.',
  ].join('\n')
}

/** Who writes and from which workspace (links and `pages` reach what that workspace sees). */
export interface WikiCaller {
  actor: string
  scope: string | undefined
  /** Refuse the change unless the page is still at this revision (the page's editor: a concurrent edit wins). */
  expectVersion?: number
}

export class Wiki {
  readonly types: PageType[]
  private readonly entries = new Map<string, CatalogueEntry | null>()
  private readonly unsubscribe: () => void

  constructor(
    readonly store: KnowledgeStore,
    declared: readonly DeclaredType[] = [],
  ) {
    this.types = resolveTypes(declared)
    // A page changed (here, by another process, by hand): its catalogue line is read again next time.
    this.unsubscribe = store.onChange((change) => this.entries.delete(change.id))
  }

  close(): void {
    this.unsubscribe()
  }

  typeOf(name: string): PageType | undefined {
    return this.types.find((t) => t.type === name)
  }

  /** The type's template, with its fields named (what knowledge_create returns without content). */
  template(name: string): string {
    return templateText(this.types, name)
  }

  private context(caller: WikiCaller): PageContext {
    return {
      store: this.store,
      typeOf: (name) => this.typeOf(name),
      actor: caller.actor,
      scope: caller.scope,
      expectVersion: caller.expectVersion,
      ingested: (event) => {
        for (const listener of ingestListeners.get(this.store) ?? []) listener(event)
      },
    }
  }

  async create(pages: NewPage[], caller: WikiCaller): Promise<WrittenPage[]> {
    await this.store.start()
    const written = await createPages(this.context(caller), pages)
    await this.regenerateIndex().catch(() => false) // the page is written; a blocked index.md is retried at the next change
    return written
  }

  async edit(id: unknown, oldText: unknown, newText: unknown, fields: FieldChange[], caller: WikiCaller): Promise<WrittenPage> {
    await this.store.start()
    const written = await editPage(this.context(caller), id, oldText, newText, fields)
    await this.regenerateIndex().catch(() => false) // the page is written; a blocked index.md is retried at the next change
    return written
  }

  async rewrite(id: unknown, content: unknown, fields: FieldChange[], caller: WikiCaller): Promise<WrittenPage> {
    await this.store.start()
    const written = await rewritePage(this.context(caller), id, content, fields)
    await this.regenerateIndex().catch(() => false) // the page is written; a blocked index.md is retried at the next change
    return written
  }

  /** Appends one dated line to `log.md`: `what` is redacted; `pages` must name visible documents. */
  async log(operation: unknown, what: unknown, pages: unknown, caller: WikiCaller): Promise<LogEntry> {
    if (typeof operation !== 'string' || !OPERATION.test(operation)) throw new Error('"operation" must be one lowercase word like "ingest", "query", "lint" or "update"')
    if (typeof what !== 'string' || !what.trim()) throw new Error('"what" must say in one line what was done')
    if (what.length > MAX_WHAT * 4) throw new Error(`"what" is ${what.length} characters long; say it in at most ${MAX_WHAT}`)
    await this.store.start()
    const ids = visibleIds(this.store, pages, caller.scope, 'pages')
    const entry: LogEntry = { at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), operation, what: await this.store.redactLine(what, MAX_WHAT), pages: ids }
    await this.store.edit(async () =>
      appendLog(
        this.store.root,
        logLine(entry, (id) => this.store.get(id)?.path),
      ),
    )
    return entry
  }

  /** The last entries of the log, newest first. */
  readLog(count?: number): LogEntry[] {
    return readLogTail(this.store.root, count)
  }

  /** The catalogue of the active pages visible from `scope`. */
  async catalogue(scope: string | undefined): Promise<Catalogue> {
    await this.store.start()
    const entries: CatalogueEntry[] = []
    for (const kind of ['page', 'preference'] as const) {
      for (const meta of eachListed(this.store, { kind, status: 'active', scope })) {
        if (meta.id === OVERVIEW_ID || !splitPageId(meta.id)) continue
        const entry = await this.entry(meta.id)
        if (entry) entries.push(entry)
      }
    }
    // One count per kind (facets would also count every tag, tool and workspace of the whole base).
    const others: Record<string, number> = {}
    for (const kind of DOC_KINDS) if (kind !== 'page') others[kind] = this.store.count({ kind, scope })
    const preferencePages = entries.filter((e) => e.type === 'preference').length
    if (others.preference !== undefined) others.preference -= preferencePages
    const overview = this.store.get(OVERVIEW_ID)
    // Stale is the manifest's word, asked at each call (an original can change without any page changing).
    const stale = await staleSources
      .get(this.store)?.()
      .catch(() => undefined)
    if (stale?.size) for (const [k, entry] of entries.entries()) if (stale.has(entry.id)) entries[k] = { ...entry, stale: true }
    return buildCatalogue(entries, this.types, others, !!overview && isVisible(overview.cwd, scope) && overview.status !== 'retired')
  }

  private async entry(id: string): Promise<CatalogueEntry | undefined> {
    const known = this.entries.get(id)
    if (known !== undefined) return known ?? undefined
    const doc = await this.store.read(id).catch(() => undefined)
    if (!doc) return undefined
    const type = typeof doc.meta.type === 'string' ? doc.meta.type : splitPageId(id)!.type
    const entry: CatalogueEntry = { id, path: doc.path, title: String(doc.meta.title), type, summary: summaryOf(contentOf(this.store, doc)), fields: indexFieldsOf(this.typeOf(type), doc.meta) }
    this.entries.set(id, entry)
    return entry
  }

  /** `knowledge_index`'s text within `budget` characters (see {@link renderForModel}). */
  async indexText(scope: string | undefined, budget: number, options: { section?: string; offset?: number } = {}): Promise<string> {
    return renderForModel(await this.catalogue(scope), budget, options)
  }

  /** Writes `<root>/index.md` when its text differs from the catalogue's (a hand edit is overwritten). True if written. */
  async regenerateIndex(): Promise<boolean> {
    const text = renderIndexFile(await this.catalogue(undefined))
    return this.store.edit(async () => {
      const path = join(this.store.root, INDEX_FILE)
      if (readIfFile(path) === text) return false
      await writeFileAtomic(path, text)
      return true
    })
  }
}

/** A regular file's text (never through a link, never blocking on a FIFO); undefined otherwise. */
function readIfFile(path: string): string | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd)
    return info.isFile() && info.size < 16 * 1024 * 1024 ? readFileSync(fd, 'utf8') : undefined
  } finally {
    closeSync(fd)
  }
}
