/**
 * A standalone store process for the index-cache tests: `node open-store.ts <root>` opens the built store (lib/) on
 * `root`, indexes it (building or reconciling the persisted index), prints `ready <size>` and closes.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root] = process.argv.slice(2)
const { KnowledgeStore } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/redact/redactor.js')).href)
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()
process.stdout.write(`ready ${store.size}\n`)
await store.close()
