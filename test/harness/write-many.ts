/**
 * A standalone writer process for the multi-process store tests: `node write-many.ts <root> <session> <count> [big]
 * [trust] [history]` writes `count` rounds of `session` into `root` through the built store (lib/), with a ledger
 * entry each. As `dsh-knowledge capture` opens its store: `trust`, a live watching owner's freshness stamp stands for
 * the check of every file; `history`, it keeps the local history of what it writes (a root outside git).
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, session, count, ...flags] = process.argv.slice(2)
const big = flags.includes('big')
const { KnowledgeStore } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/redact/redactor.js')).href)
const { keepLocalHistory } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/history/local.js')).href)
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, trustWatcher: flags.includes('trust') })
if (flags.includes('history')) keepLocalHistory(store)
const filler = big ? 'The cache key includes a timestamp, so every build misses. '.repeat(1000) : 'Because the key includes a timestamp.'
for (let turn = 1; turn <= Number(count); turn++) {
  const written = await store.write({
    kind: 'raw',
    title: `Round ${turn} of ${session}`,
    cwd: '/ws',
    session,
    turn,
    sections: [
      { heading: 'Question', text: `Why does build ${turn} miss the cache?` },
      { heading: 'Answer', text: filler },
    ],
  })
  await store.ledger.record({ type: 'kept', session, turn, id: written.id, score: 1, redacted: 0 })
}
await store.close()
