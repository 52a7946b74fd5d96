/**
 * One capture process for the concurrent re-capture test: `node capture-at.ts <root> <startAtMs> <title> <answer>`
 * loads the built store (lib/), waits until `startAtMs` so several processes capture at the same moment, then
 * captures session `session-c0ccc0cc-…` turn 1 through `captureRound`, the code path of the plugin and the CLI.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, startAt, title, answer] = process.argv.slice(2)
const load = (p: string) => import(pathToFileURL(join(PROJECT_ROOT, p)).href)
const { KnowledgeStore } = await load('lib/knowledge/store.js')
const { createRedactor } = await load('lib/redact/redactor.js')
const { captureRound } = await load('lib/capture/keep-round.js')
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1))
const result = await captureRound(
  store,
  {
    session: 'session-c0ccc0cc-0000-4000-8000-000000000001',
    turn: 1,
    cwd: '/work/proj',
    question: title,
    answer,
    outcome: 'completed',
    tools: [],
  },
  { minScore: 0 },
)
await store.close()
if (result.error) {
  console.error(result.error)
  process.exit(1)
}
