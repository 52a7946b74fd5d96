/**
 * `dsh-knowledge read`: one document, with the same checks as `knowledge_read`.
 * @module dsh-knowledge-sync/cli/read
 */
import { readFile } from 'node:fs/promises'
import { insideRoot } from '../knowledge/paths.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const read: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('read needs a document id')
  const store = await openStore(invocation, { write: false })
  try {
    const doc = await store.readVisible(id, scopeOf(store, invocation))
    if (invocation.values.json) printJson({ id: doc.id, path: doc.path, meta: doc.meta, body: doc.body })
    else print(await readFile(insideRoot(store.root, doc.path), 'utf8'))
    return 0
  } finally {
    await store.close()
  }
}
