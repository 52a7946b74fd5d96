/**
 * A standalone store process for the index-cache tests: `node open-store.ts <root>` opens the built store (lib/) on
 * `root`, indexes it (building or reconciling the persisted index), prints `ready <size>` and closes. With
 * `--kill-at-build` it kills itself with SIGKILL (a real kill -9) the moment the store starts building a new cache
 * file: a crash at a known point of the build, not at a moment a timer guessed.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, flag] = process.argv.slice(2)
const { KnowledgeStore } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/redact/redactor.js')).href)
const killAtBuild = {
  info(message: string) {
    if (flag === '--kill-at-build' && /rebuilding it from the documents/.test(message)) process.kill(process.pid, 'SIGKILL')
  },
  warn() {},
  debug() {},
}
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, logger: killAtBuild })
await store.start()
process.stdout.write(`ready ${store.size}\n`)
await store.close()
