/**
 * A search hit as {@link SearchIndex.search} returns it: a document's metadata, its score, and a snippet of its body
 * with the query's tokens marked ({@link snippet}). Pure: no I/O.
 * @module dsh-knowledge-sync/search/hits
 */
import type { SearchHit } from '../types.js'
import { type IndexedMeta, stripTitle } from './schema.js'
import { markSnippet, snippetParts } from './snippet.js'

/** One hit; `text` is the document's indexed body (its `# title` line is left out of the snippet). */
export function toHit(meta: IndexedMeta, score: number, marks: string[], text: string, width: number): SearchHit {
  const excerpt = snippetParts(stripTitle(text, meta.title), marks, { width })
  return {
    id: meta.id,
    title: meta.title,
    kind: meta.kind,
    score: Number(score.toPrecision(6)),
    snippet: markSnippet(excerpt),
    excerpt,
    path: meta.path,
    cwd: meta.cwd,
    tags: meta.tags,
    tools: meta.tools,
    created: meta.created,
    updated: new Date(meta.mtimeMs).toISOString(),
    ...(meta.status ? { status: meta.status } : {}),
    ...(meta.supersededBy ? { supersededBy: meta.supersededBy } : {}),
    ...(meta.version !== undefined ? { version: meta.version } : {}),
  }
}
