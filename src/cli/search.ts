/**
 * `dsh-knowledge search`: the same search as `knowledge_search`.
 * @module dsh-knowledge-sync/cli/search
 */
import { parseSearchArgs } from '../knowledge/query.js'
import { renderHits } from '../recall/search-tool.js'
import { personReader } from './terminal.js'
import { type Command, debug, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const search: Command = async (invocation) => {
  const { values, positionals } = invocation
  const query = positionals.join(' ')
  if (!query.trim()) throw new UsageError('search needs a query')
  const args = parseSearchArgs({ query, kind: values.kind, tag: values.tag, tool: values.tool, limit: values.limit === undefined ? undefined : Number(values.limit), status: values.status }, 10)
  // Where a one-shot search spends its time (DSH_KNOWLEDGE_DEBUG=1): performance.now() counts from the process's start.
  const started = performance.now()
  const store = await openStore(invocation, { write: false, trustWatcher: true })
  const opened = performance.now()
  let searched = opened
  try {
    const scope = scopeOf(store, invocation)
    const hits = store.search(args.query, { kind: args.kind, idPrefix: args.idPrefix, tag: args.tag, tool: args.tool, limit: args.limit, scope, status: args.status })
    searched = performance.now()
    if (values.json)
      printJson(
        hits.map((h) => ({
          id: h.id,
          title: h.title,
          kind: h.kind,
          score: h.score,
          snippet: h.snippet,
          path: h.path,
          cwd: h.cwd,
          tags: h.tags,
          tools: h.tools,
          created: h.created,
          version: h.version,
          ...(h.status ? { status: h.status } : {}),
          ...(h.supersededBy ? { supersededBy: h.supersededBy } : {}),
        })),
      )
    else print(renderHits(args.query, hits, scope, undefined, undefined, personReader()))
    return 0
  } finally {
    await store.close()
    const f = (ms: number) => ms.toFixed(1)
    debug(
      'search timings: process start and CLI load %s ms, store open %s ms, query %s ms, output and close %s ms',
      f(started),
      f(opened - started),
      f(searched - opened),
      f(performance.now() - searched),
    )
  }
}
