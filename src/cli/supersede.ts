/**
 * `dsh-knowledge supersede <id> --by <id> [--reason TEXT]`: the same change as `knowledge_supersede`.
 * @module dsh-knowledge-sync/cli/supersede
 */
import { supersede as supersedeDoc } from '../knowledge/corrections/correct.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const supersede: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id || !invocation.values.by) throw new UsageError('supersede needs a document id and --by <id>')
  const store = await openStore(invocation, { trustWatcher: true })
  try {
    const done = await supersedeDoc(store, { id, by: invocation.values.by, reason: invocation.values.reason }, scopeOf(store, invocation), 'cli')
    if (invocation.values.json) printJson(done)
    else print(`${done.id} is now superseded by ${done.by}`)
    return 0
  } finally {
    await store.close()
  }
}
