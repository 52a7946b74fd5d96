/**
 * `dsh-knowledge list`: the visible documents, newest first.
 * @module dsh-knowledge-sync/cli/list
 */
import type { DocKind } from '../types.js'
import { parseSearchArgs } from '../knowledge/query.js'
import { eachListed } from '../knowledge/pager.js'
import { type Command, openStore, print, printJson, scopeOf } from './common.js'

export const list: Command = async (invocation) => {
  const { values } = invocation
  const { status } = parseSearchArgs({ query: '', status: values.status }, 1)
  const store = await openStore(invocation, { write: false, trustWatcher: true })
  try {
    const scope = scopeOf(store, invocation)
    // Every document, a page at a time: one list call returns at most 1,000 (the list once stopped there, under a total of all).
    const items = [...eachListed(store, { scope, kind: values.kind as DocKind | undefined, tag: values.tag, tool: values.tool, status })]
    if (values.json) {
      printJson(items)
      return 0
    }
    if (!items.length) {
      print(`no documents${scope ? ` visible in ${scope}` : ''} under ${store.root}`)
      return 0
    }
    for (const m of items)
      print(
        `${m.id}${m.version ? ` (v:${m.version})` : ''}\t${m.kind}\t${String(m.created).slice(0, 10)}\t${m.title}${m.status ? `\t(${m.status}${m.supersededBy ? ` by ${m.supersededBy}` : ''})` : ''}${m.tags.length ? `\t[${m.tags.join(', ')}]` : ''}`,
      )
    print(`${items.length} document(s)${scope ? ` visible in ${scope}` : ''} under ${store.root}`)
    return 0
  } finally {
    await store.close()
  }
}
