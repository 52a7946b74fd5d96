/**
 * `dsh-knowledge read`: one document, with the same checks as `knowledge_read`.
 * @module dsh-knowledge-sync/cli/read
 */
import { readFile } from 'node:fs/promises'
import { insideRoot } from '../knowledge/paths.js'
import { relationsView } from '../knowledge/correct.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const read: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('read needs a document id')
  const store = await openStore(invocation)
  try {
    const scope = scopeOf(store, invocation)
    const doc = await store.readVisible(id, scope)
    if (invocation.values.json) printJson({ id: doc.id, version: doc.version, path: doc.path, meta: doc.meta, body: doc.body, ...relationsView(store, doc.id, scope) })
    else print(await readFile(insideRoot(store.root, doc.path), 'utf8'))
    return 0
  } finally {
    await store.close()
  }
}
