/**
 * The store's worker threads in a host whose eval'd code is an ES module: `node --input-type=module -e …` (a script
 * that composes the store). A worker evaluated with `eval: true` inherits that flag, and `require` is not defined
 * there: the start-up reconcile failed so and fell back to the main thread (found by the soak's fresh process), and
 * the checkpoint, probe and word-vector workers failed too. `--experimental-default-type=module` does not reach eval'd
 * workers (it passed before the fix); it is run as well. Each worker must do its job, as shipped in lib/ (build first).
 * @module dsh-knowledge-sync/test/e2e/worker-module-host
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const url = (path: string): string => JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'lib', path)).href)

/** Each worker once, over a real persisted index; prints one JSON line of what each did. */
const SCRIPT = (root: string, vectors: string) => `
const { KnowledgeStore } = await import(${url('knowledge/store.js')})
const { createRedactor } = await import(${url('redact/redactor.js')})
const { CACHE_DIR, CACHE_FILE } = await import(${url('knowledge/index-cache/index-cache.js')})
const { reconcileOffThread } = await import(${url('knowledge/index-cache/reconcile-worker.js')})
const { Checkpointer } = await import(${url('search/checkpointer.js')})
const { probeInThreads } = await import(${url('knowledge/reports/probe-threads.js')})
const { loadWordVectors } = await import(${url('search/word-vectors.js')})
const { join } = await import('node:path')
const root = ${JSON.stringify(root)}
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: true })
await store.start()
for (let k = 0; k < 5; k++)
  await store.write({ kind: 'note', title: 'Finding ' + k, cwd: '/w', session: 'session-aaaa1111-0000-4000-8000-000000000000', suffix: 'n' + k, sections: [{ heading: 'Finding', text: 'The lockfile pins esbuild ' + k + '.' }] })
await store.close()
const file = join(root, CACHE_DIR, CACHE_FILE)
const out = {}
const reconcile = reconcileOffThread(root, file, 0)
out.reconcile = await reconcile.result.then((r) => 'listed ' + (r.kept + r.files.length), (e) => 'failed: ' + e.message)
out.probe = await probeInThreads(file, undefined, [], 1, () => {}).results.then((r) => 'results ' + r.length, (e) => 'failed: ' + e.message)
out.vectors = await loadWordVectors(${JSON.stringify(vectors)}, 10).then((v) => 'words ' + v.index.size, (e) => 'failed: ' + e.message)
// A connection that stays open (the last one to close would checkpoint itself) leaves a write in the WAL to copy back.
const { DatabaseSync } = process.getBuiltinModule('node:sqlite')
const db = new DatabaseSync(file)
db.exec("PRAGMA busy_timeout = 5000; INSERT OR REPLACE INTO meta (key, value) VALUES ('worker-module-host', '1')")
out.checkpoint = await new Promise((resolve) => {
  const worker = new Checkpointer(file, { walBytes: 1, everyMs: 5 }, () => resolve('failed: the worker ended'))
  worker.onCheckpoint(() => worker.stop().then(() => resolve('checkpointed')))
  worker.poke()
})
db.close()
console.log(JSON.stringify(out))
`

describe('worker threads in a host whose eval is an ES module', () => {
  for (const flag of ['--input-type=module', '--experimental-default-type=module']) {
    it(`reconcile, probe, word vectors and checkpoint workers each do their job under ${flag}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-worker-host-'))
      const root = join(dir, 'kb')
      mkdirSync(root)
      const vectors = join(dir, 'vectors.json')
      writeFileSync(vectors, JSON.stringify({ dimensions: 2, words: ['lockfile', 'esbuild'], vectors: { lockfile: [1, 0], esbuild: [0, 1] } }))
      const run = spawnSync(process.execPath, [flag, '--no-warnings', '-e', SCRIPT(root, vectors)], { encoding: 'utf8', timeout: 60_000 })
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' })
      const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string>
      expect(out).toEqual({ reconcile: 'listed 5', probe: 'results 0', vectors: 'words 2', checkpoint: 'checkpointed' })
    }, 90_000)
  }
})
