/**
 * `dsh-knowledge retire <id> --reason TEXT` and `dsh-knowledge restore <id>`: the person retires a document (it leaves
 * search, lists and counts; it stays on disk) or brings it back. The person runs the command, so no approval prompt.
 * @module dsh-knowledge-sync/cli/retire
 */
import { restore as restoreDoc, retire as retireDoc } from '../knowledge/corrections/correct.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'

export const retire: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('retire needs a document id and --reason')
  const store = await openStore(invocation, { trustWatcher: true })
  try {
    const done = await retireDoc(store, { id, reason: invocation.values.reason }, scopeOf(store, invocation), 'cli')
    if (invocation.values.json) printJson(done)
    else print(`${done.id} is retired (still on disk; \`dsh-knowledge restore ${done.id}\` brings it back)`)
    return 0
  } finally {
    await store.close()
  }
}

export const restore: Command = async (invocation) => {
  const id = invocation.positionals[0]
  if (!id) throw new UsageError('restore needs a document id')
  const store = await openStore(invocation, { trustWatcher: true })
  try {
    const done = await restoreDoc(store, { id }, scopeOf(store, invocation), 'cli')
    if (invocation.values.json) printJson(done)
    else print(`${done.id} is ${done.status} again`)
    return 0
  } finally {
    await store.close()
  }
}
