/**
 * Seeds a knowledge root with many captured rounds in one process (the CLI would start one process per round):
 * `node seed-rounds.ts <root> <spec.json>` where the spec is `{ rounds: Round[], minScore?: number }`. Each round
 * goes through the built capture path (lib/), so kept rounds become documents and dropped ones ledger entries, as in
 * a live dsh. Prints one JSON line: `{ kept, dropped }`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, specFile] = process.argv.slice(2)
const lib = (path: string) => import(pathToFileURL(join(PROJECT_ROOT, 'lib', path)).href)
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')
const { captureRound } = await lib('capture/keep-round.js')
const { DEFAULT_MIN_SCORE } = await lib('capture/salience.js')
const spec = JSON.parse(readFileSync(specFile, 'utf8')) as { rounds: unknown[]; minScore?: number }
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()
let kept = 0
let dropped = 0
for (const round of spec.rounds) {
  const result = await captureRound(store, round, { minScore: spec.minScore ?? DEFAULT_MIN_SCORE, keepFailedResults: false })
  if (result.kept) kept++
  else dropped++
}
await store.close()
console.log(JSON.stringify({ kept, dropped }))
