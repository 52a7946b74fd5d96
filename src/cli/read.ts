/**
 * `dsh-knowledge read`: one document, with the same checks as `knowledge_read`.
 * @module dsh-knowledge-sync/cli/read
 */
import { relationsView } from '../knowledge/corrections/correct.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const read: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('read needs a document id')
  const store = await openStore(invocation, { write: false })
  try {
    // The file's own text, read with the store's checks (no link followed, the index's size bound).
    const scope = scopeOf(store, invocation)
    const { doc, text } = await store.readText(id, scope)
    if (invocation.values.json) printJson({ id: doc.id, version: doc.version ?? store.versionOf(doc.id), path: doc.path, meta: doc.meta, body: doc.body, ...relationsView(store, doc.id, scope) })
    else print(text)
    return 0
  } finally {
    await store.close()
  }
}
