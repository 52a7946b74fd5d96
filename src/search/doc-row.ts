/**
 * What {@link SearchIndex.upsert} writes for one document, computed before the database is touched: the `doc` row's
 * columns, the token streams of the FTS5 columns ({@link indexStreams}), the tag and tool names, and whether the text
 * holds Chinese. Pure: no I/O, no index state; tokenizing (the only part that could throw on odd input) happens here.
 * @module dsh-knowledge-sync/search/doc-row
 */
import type { KnowledgeDoc } from '../types.js'
import { hasHan } from './expand/index.js'
import { asStrings, epoch, KIND_INDEX, STATUS_INDEX, stripTitle } from './schema.js'
import { indexStreams } from './tokenize.js'

/** The `doc` insert; its values are the rowid, then {@link DocRowValues.columns}. */
export const INSERT_DOC =
  'INSERT INTO doc (rowid, id, path, kind, title, cwd, created, created_ms, mtime, tags, tools, session, turn, superseded_by, relations, size, ctime, hash, seen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)'

/** Where `created` is in {@link DocRowValues.columns}: an upsert that keeps it keeps the rowid order a rebuild gives (dense rowids, oldest first). */
export const CREATED_COLUMN = 5

/** One document as the index stores it. */
export interface DocRowValues {
  id: string
  kind: number
  status: number
  body: string
  tags: string[]
  tools: string[]
  /** The `doc` columns after the rowid, in {@link INSERT_DOC}'s order. */
  columns: Array<string | number | null>
  titleText: { words: string; wholes: string }
  tagText: { words: string; wholes: string }
  bodyText: { words: string; wholes: string }
  /** The title or body holds Chinese characters (only looked for when `checkHan`). */
  han: boolean
}

/** The row of one document; `checkHan`: whether to look for Chinese (false once the index knows it has some). */
export function docRow(doc: KnowledgeDoc, checkHan: boolean): DocRowValues {
  const meta = doc.meta ?? ({} as KnowledgeDoc['meta'])
  const id = String(doc.id ?? meta.id)
  const kind = KIND_INDEX[meta.kind] ?? KIND_INDEX.manual
  const title = typeof meta.title === 'string' ? meta.title : id
  const cwd = typeof meta.cwd === 'string' ? meta.cwd : ''
  const tags = asStrings(meta.tags)
  const tools = asStrings(meta.tools)
  const mtime = Number.isFinite(doc.mtimeMs) ? doc.mtimeMs : 0
  const created = typeof meta.created === 'string' ? meta.created : new Date(mtime).toISOString()
  const body = typeof doc.body === 'string' ? doc.body : ''
  const session = typeof meta.session === 'string' ? meta.session : null
  const turn = typeof meta.turn === 'number' && Number.isFinite(meta.turn) ? meta.turn : null
  const stamp = doc.stamp
  const status = STATUS_INDEX[meta.status as string] ?? 0
  const supersededBy = status === STATUS_INDEX.superseded && typeof meta.superseded_by === 'string' ? meta.superseded_by : null
  const titleText = indexStreams(title)
  const tagText = indexStreams(tags.join(' '))
  // The body usually opens with `# <title>`: the title has its own column, so that line is not indexed twice.
  const bodyText = indexStreams(stripTitle(body, title))
  const han = checkHan && (hasHan(title) || hasHan(body))
  const createdMs = epoch(created, mtime)
  const columns = [
    id,
    String(doc.path ?? ''),
    kind,
    title,
    cwd,
    created,
    createdMs,
    mtime,
    JSON.stringify(tags),
    JSON.stringify(tools),
    session,
    turn,
    supersededBy,
    typeof doc.relations === 'string' ? doc.relations : null,
    stamp?.size ?? null,
    stamp?.ctimeMs ?? null,
    stamp?.hash ?? null,
    stamp?.seenMs ?? null,
  ]
  return { id, kind, status, body, tags, tools, columns, titleText, tagText, bodyText, han }
}
