/**
 * Relations between documents: links by id, the status of a document (active, superseded, retired) and the graph
 * that backlinks are computed from. Pure apart from the in-memory {@link RelationGraph}; the store feeds it.
 *
 * Why links are paths on disk and ids everywhere else: a note links `[text](<id>)`; the store writes the target's
 * path relative to the note (`../<session>/<file>.md`) so the file reads well in an editor and on a git forge, and
 * every tool turns paths back into ids (ids are what the model can pass to knowledge_read). Backlinks ("Linked
 * from", "Superseded by") are computed from this graph, never written by hand.
 * @module dsh-knowledge-sync/knowledge/relations/relations
 */
import { posix } from 'node:path'
import type { DocStatus, FrontMatter, KnowledgeDoc } from '../../types.js'
import { isValidId } from '../documents/document.js'
import { NOTICE_MARK } from '../../search/plain-text.js'

/** Marks the one-line status notice at the top of a body, so it can be replaced or removed without touching the rest. */
export { NOTICE_MARK }
/** At most this many links per note (`links` argument). */
export const MAX_LINKS = 20

// `[text](target)` but not an image `![..](..)`; the target has no spaces (Markdown's own rule for bare targets). The
// text may not hold `[`, so a scan from one `[` stops at the next: linear on any input (a 4 MB file of `[`).
const LINK = /(?<!!)\[([^[\]\n]{0,500})\]\(([^()\s]{1,600})\)/g
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

/** Where a Markdown link points: another document by id, a file by root-relative path, or something else. */
export type LinkTarget = { kind: 'id'; id: string } | { kind: 'path'; path: string; outside: boolean }

/** The document a link target names, from a link in a document at `fromPath` (root-relative); undefined = not ours. */
export function linkTarget(raw: string, fromPath: string): LinkTarget | undefined {
  const target = raw.split('#')[0]
  if (!target || SCHEME.test(target) || target.startsWith('/')) return undefined
  if (target.toLowerCase().endsWith('.md')) {
    let decoded = target
    try {
      decoded = decodeURIComponent(target)
    } catch {
      /* keep it as written */
    }
    const joined = posix.normalize(posix.join(posix.dirname(fromPath), decoded))
    return { kind: 'path', path: joined, outside: joined === '..' || joined.startsWith('../') }
  }
  // A bare id (no dot; a slash only after a page type, `concept/spring-tides`): the form the model writes.
  return !target.includes('.') && isValidId(target) ? { kind: 'id', id: target } : undefined
}

/** Every link of a body that names a document (by id or by `.md` path), in order. */
export function parseLinks(body: string, fromPath: string): Array<{ text: string; raw: string; target: LinkTarget }> {
  const out: Array<{ text: string; raw: string; target: LinkTarget }> = []
  if (!body.includes('](')) return out
  for (const m of body.matchAll(LINK)) {
    const target = linkTarget(m[2], fromPath)
    if (target) out.push({ text: m[1], raw: m[2], target })
  }
  return out
}

/** The path of `toPath` relative to the folder of `fromPath` (both root-relative), as written in a link. */
export function relativeLink(fromPath: string, toPath: string): string {
  const rel = posix.relative(posix.dirname(fromPath), toPath)
  return rel.startsWith('.') ? rel : `./${rel}`
}

/**
 * Rewrites `[text](<id>)` links to relative paths (for disk). `pathOf` resolves a visible id; an id it does not know
 * is left as it is (callers refuse those before writing, see {@link unresolvedIds}).
 */
export function idsToPaths(body: string, fromPath: string, pathOf: (id: string) => string | undefined): string {
  if (!body.includes('](')) return body
  return body.replace(LINK, (whole, text: string, raw: string) => {
    const target = linkTarget(raw, fromPath)
    if (target?.kind !== 'id') return whole
    const path = pathOf(target.id)
    return path ? `[${text}](${relativeLink(fromPath, path)})` : whole
  })
}

/** Rewrites links to document paths back to ids (what every tool returns). Paths that name no document stay. */
export function pathsToIds(body: string, fromPath: string, idOf: (path: string) => string | undefined): string {
  if (!body.includes('](')) return body
  return body.replace(LINK, (whole, text: string, raw: string) => {
    const target = linkTarget(raw, fromPath)
    if (target?.kind !== 'path') return whole
    const id = idOf(target.path)
    return id ? `[${text}](${id})` : whole
  })
}

/** The ids a body links to by id that `known` does not accept, for a refusal with the reason. */
export function unresolvedIds(body: string, known: (id: string) => boolean): string[] {
  return [
    ...new Set(
      parseLinks(body, 'x/x.md')
        .filter((l) => l.target.kind === 'id' && !known((l.target as { id: string }).id))
        .map((l) => (l.target as { id: string }).id),
    ),
  ]
}

/** A body without its status notice (the round's own text, exactly as it was written). */
export function stripNotice(body: string): string {
  if (!body.includes(NOTICE_MARK)) return body
  const lines = body.split('\n')
  const at = lines.findIndex((line) => line.endsWith(NOTICE_MARK))
  if (at < 0 || at > 3) return body
  lines.splice(at, lines[at + 1] === '' ? 2 : 1)
  return lines.join('\n')
}

/**
 * A body with `notice` as one line right under its `# title` heading (or first, when it has none), replacing an
 * earlier notice; no notice: the body as written. Nothing else of the body changes.
 */
export function withNotice(body: string, notice: string | undefined): string {
  const bare = stripNotice(body)
  if (!notice) return bare
  const line = `> ${notice.replace(/[\r\n]+/g, ' ').trim()} ${NOTICE_MARK}`
  const heading = /^#[ \t]+[^\n]*\n(?:\n)?/.exec(bare)
  if (!heading) return `${line}\n\n${bare}`
  return `${bare.slice(0, heading[0].length).replace(/\n*$/, '\n\n')}${line}\n\n${bare.slice(heading[0].length)}`
}

/** A status change, as the store applies it. */
export type StatusChange = { to: 'superseded'; by: string; byPath: string; byTitle: string; reason?: string } | { to: 'retired'; reason: string } | { to: 'restored' }

/** The standing a front matter declares (absent or unknown = active). */
export function statusOf(meta: Pick<FrontMatter, 'status'>): DocStatus {
  return meta.status === 'superseded' || meta.status === 'retired' ? meta.status : 'active'
}

/**
 * The front matter and body after a status change. The reason must already be redacted. Superseding keeps a retired
 * document retired (it only records the successor); restoring returns a document to `superseded` when it still has
 * a successor, else to `active`.
 */
export function applyStatus(doc: Pick<KnowledgeDoc, 'meta' | 'body' | 'path'>, change: StatusChange, at: string): { meta: FrontMatter; body: string; notice?: string } {
  const meta: FrontMatter = { ...doc.meta }
  const day = at.slice(0, 10)
  if (change.to === 'superseded') {
    meta.superseded_by = change.by
    if (statusOf(meta) !== 'retired') meta.status = 'superseded'
  } else if (change.to === 'retired') {
    meta.status = 'retired'
    meta.retired = { at, reason: change.reason }
  } else {
    delete meta.retired
    if (typeof meta.superseded_by === 'string' && meta.superseded_by) meta.status = 'superseded'
    else delete meta.status
  }
  const status = statusOf(meta)
  let notice: string | undefined
  if (status === 'retired') notice = `**Retired** on ${day}: ${(meta.retired as { reason?: string } | undefined)?.reason ?? ''}`.trim()
  else if (status === 'superseded') {
    const link = change.to === 'superseded' ? `[${change.byTitle.replace(/[[\]]/g, '')}](${relativeLink(doc.path, change.byPath)})` : `\`${String(meta.superseded_by)}\``
    const why = change.to === 'superseded' && change.reason ? `: ${change.reason}` : ''
    notice = `**Superseded** by ${link} on ${day}${why}`
  }
  return { meta, body: withNotice(doc.body, notice), notice }
}

interface Node {
  path: string
  status: DocStatus
  supersededBy?: string
  supersedes: string[]
  /** Link keys: `id:<id>` or `path:<root-relative path>`. */
  links: string[]
}

/** Where the graph looks up documents it holds no node for (most documents have no relations). */
export interface GraphLookup {
  /** The id of the document at a root-relative path. */
  idAt(path: string): string | undefined
  /** The path of an indexed id. */
  pathOf(id: string): string | undefined
}

/**
 * A copy of `s` that shares no memory with the text it was cut from: ids and link targets parsed out of a file are
 * V8 sliced strings that would keep the whole file text alive (see the search index's `ownString`).
 */
const own = (s: string): string => Buffer.from(s, 'utf8').toString('utf8')

/**
 * The link and supersede graph of the indexed documents, kept current by the store; backlinks come from here. Only
 * documents with relations (links, a status, supersedes) get a node, so the graph costs nothing for the many captured
 * rounds that have none.
 */
export class RelationGraph {
  private readonly nodes = new Map<string, Node>()
  /** Link key → ids of documents holding such a link. */
  private readonly incoming = new Map<string, Set<string>>()
  /** Successor id → ids that name it in `superseded_by`. */
  private readonly successors = new Map<string, Set<string>>()

  constructor(private readonly lookup: GraphLookup) {}

  /**
   * Records (or replaces) a document's relations. Returns them as a record the persisted index keeps, so a restart
   * that does not read the file again can {@link restore} them; undefined when the document has none.
   */
  set(doc: Pick<KnowledgeDoc, 'id' | 'path' | 'meta' | 'body'>): string | undefined {
    this.remove(doc.id)
    // The status notice's link to a successor is not a link of the document (it is `superseded_by`, shown apart).
    const links = !doc.body.includes('](')
      ? []
      : [...new Set(parseLinks(stripNotice(doc.body), doc.path).map((l) => (l.target.kind === 'id' ? `id:${l.target.id}` : `path:${l.target.path}`)))].map(own)
    const supersedes = Array.isArray(doc.meta.supersedes) ? doc.meta.supersedes.filter((x): x is string => typeof x === 'string').map(own) : []
    const by = typeof doc.meta.superseded_by === 'string' && doc.meta.superseded_by ? own(doc.meta.superseded_by) : undefined
    const status = statusOf(doc.meta)
    if (!links.length && !supersedes.length && !by && status === 'active') return undefined
    const node: Node = { path: own(doc.path), status, ...(by ? { supersededBy: by } : {}), supersedes, links }
    this.put(own(doc.id), node)
    return JSON.stringify(node)
  }

  /** Restores a document's relations from the record {@link set} returned; a record that is not one is ignored. */
  restore(id: string, record: string): void {
    let node: Node
    try {
      node = JSON.parse(record) as Node
    } catch {
      return
    }
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string')
    if (typeof node?.path !== 'string' || !strings(node.links) || !strings(node.supersedes)) return
    if (node.supersededBy !== undefined && typeof node.supersededBy !== 'string') return
    this.remove(id)
    this.put(id, { path: node.path, status: statusOf(node), ...(node.supersededBy ? { supersededBy: node.supersededBy } : {}), supersedes: node.supersedes, links: node.links })
  }

  private put(id: string, node: Node): void {
    this.nodes.set(id, node)
    for (const key of node.links) add(this.incoming, key, id)
    if (node.supersededBy) add(this.successors, node.supersededBy, id)
  }

  /** Forgets a document. */
  remove(id: string): void {
    const node = this.nodes.get(id)
    if (!node) return
    this.nodes.delete(id)
    for (const key of node.links) drop(this.incoming, key, id)
    if (node.supersededBy) drop(this.successors, node.supersededBy, id)
  }

  /** The id of the document at a root-relative path. */
  idOfPath(path: string): string | undefined {
    return this.lookup.idAt(path)
  }

  /** One document's relations; undefined for a document without any (active, no links, no supersedes). */
  get(id: string): Readonly<Node> | undefined {
    return this.nodes.get(id)
  }

  /** Ids of documents that link to `id` (by id or by path), sorted. */
  linkedFrom(id: string): string[] {
    const out = new Set(this.incoming.get(`id:${id}`) ?? [])
    const path = this.lookup.pathOf(id)
    if (path) for (const from of this.incoming.get(`path:${path}`) ?? []) out.add(from)
    out.delete(id)
    return [...out].sort()
  }

  /** Ids that name `id` as their successor (`superseded_by`) or that `id` lists in `supersedes`, sorted. */
  supersededOnes(id: string): string[] {
    const out = new Set(this.successors.get(id) ?? [])
    for (const old of this.nodes.get(id)?.supersedes ?? []) out.add(old)
    out.delete(id)
    return [...out].sort()
  }

  /** Every document with relations (for the check). */
  entries(): IterableIterator<[string, Readonly<Node>]> {
    return this.nodes.entries()
  }

  /** The resolved target of one link key: an id, or undefined when it names no document. */
  resolve(key: string): string | undefined {
    if (key.startsWith('id:')) return this.lookup.pathOf(key.slice(3)) ? key.slice(3) : undefined
    return this.lookup.idAt(key.slice(5))
  }

  /** How many documents have relations. */
  get size(): number {
    return this.nodes.size
  }
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key)
  if (!set) map.set(key, (set = new Set()))
  set.add(value)
}

function drop(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key)
  if (!set) return
  set.delete(value)
  if (!set.size) map.delete(key)
}

/** Hits reordered so that a superseded hit comes right after its successor when both are on the page. */
export function successorsFirst<T extends { id: string; supersededBy?: string }>(hits: T[]): T[] {
  if (!hits.some((h) => h.supersededBy)) return hits
  const out = [...hits]
  for (const hit of hits) {
    if (!hit.supersededBy) continue
    const at = out.indexOf(hit)
    const successor = out.findIndex((h) => h.id === hit.supersededBy)
    if (successor > at) {
      out.splice(at, 1)
      out.splice(successor, 0, hit)
    }
  }
  return out
}

/** The status keys a rewrite of a document (distillation) must keep. */
const STATUS_KEYS = ['status', 'superseded_by', 'supersedes', 'retired'] as const

/**
 * A rewritten document (`replaceId`: distillation) keeps the status of the file it replaces: the status keys of its
 * front matter and its notice line. Without this a late distillation would silently un-retire a document.
 */
export function carryStatus(previous: Pick<KnowledgeDoc, 'meta' | 'body'>, meta: FrontMatter, body: string): { meta: FrontMatter; body: string } {
  const out: Record<string, unknown> = { ...meta }
  for (const key of STATUS_KEYS) if (previous.meta[key] !== undefined && out[key] === undefined) out[key] = previous.meta[key]
  const line = previous.body
    .split('\n')
    .slice(0, 4)
    .find((l) => l.endsWith(NOTICE_MARK))
  const notice = line?.replace(/^> /, '').slice(0, -NOTICE_MARK.length).trim()
  return { meta: out as FrontMatter, body: notice ? withNotice(body, notice) : body }
}
