/**
 * `dsh-knowledge read`: one document, with the same checks as `knowledge_read`; `read overview` is the wiki's
 * overview (a document), `read log` its operation log.
 * @module dsh-knowledge-sync/cli/read
 */
import { relationsView } from '../knowledge/corrections/correct.js'
import { LOG_ID } from '../recall/read-tool.js'
import { readLogTail, renderLog } from '../knowledge/wiki/op-log.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const read: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('read needs a document id')
  const store = await openStore(invocation, { write: false })
  try {
    // The file's own text, read with the store's checks (no link followed, the index's size bound).
    const scope = scopeOf(store, invocation)
    // `read log`: the wiki's last ten operations, newest first (log.md is generated, not a document).
    if (id === LOG_ID && !store.get(LOG_ID)) {
      const entries = readLogTail(store.root)
      if (invocation.values.json) printJson(entries)
      else print(renderLog(entries))
      return 0
    }
    const { doc, text } = await store.readText(id, scope)
    if (invocation.values.json) printJson({ id: doc.id, version: doc.version ?? store.versionOf(doc.id), path: doc.path, meta: doc.meta, body: doc.body, ...relationsView(store, doc.id, scope) })
    else print(text)
    return 0
  } finally {
    await store.close()
  }
}
