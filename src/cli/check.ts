/**
 * `dsh-knowledge check`: the same check as `knowledge_check`. Exit code 1 when a problem is found (for CI).
 * @module dsh-knowledge-sync/cli/check
 */
import { checkKnowledge, renderProblems } from '../knowledge/corrections/check.js'
import { type Command, openStore, print, printJson, scopeOf } from './common.js'

export const check: Command = async (invocation) => {
  const store = await openStore(invocation)
  try {
    const scope = scopeOf(store, invocation)
    const problems = checkKnowledge(store, scope)
    if (invocation.values.json) printJson({ root: store.root, scope: scope ?? null, problems })
    else print(renderProblems(problems, scope))
    return problems.length ? 1 : 0
  } finally {
    await store.close()
  }
}
