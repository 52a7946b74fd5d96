/**
 * A store's close returns in a process that has nothing else to do: a script that opens the store (watching, so its
 * WAL checkpoints run in a worker), writes and `await store.close()`s goes on past the close and exits 0. Before, the
 * unref'd checkpoint worker was what close waited for, so Node saw nothing alive and exited with the close pending
 * (exit code 13, "unsettled top-level await"). Runs lib/ as shipped: build first (`node scripts/build.mjs`).
 * @module dsh-knowledge-sync/test/e2e/store-close
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const SCRIPT = `
const lib = (p) => import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'lib')).href)} + '/' + p)
const { KnowledgeStore } = await lib('knowledge/store.js')
const { createRedactor } = await lib('redact/redactor.js')
const store = new KnowledgeStore({ root: process.argv[2], redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }) })
await store.start()
await store.write({ kind: 'note', title: 'Close returns', cwd: '/w', session: 's', turn: 1, sections: [{ heading: 'Finding', text: 'The close returns.' }] })
await store.close()
console.log('closed')
`

describe('closing a store', () => {
  it('returns in a process with nothing else alive (the checkpoint worker is waited for, not abandoned)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-close-'))
    const script = join(dir, 'close.mjs')
    writeFileSync(script, SCRIPT)
    for (let run = 0; run < 3; run++) {
      const r = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', script, mkdtempSync(join(dir, 'root-'))], { encoding: 'utf8', timeout: 60_000 })
      expect(r.stderr).not.toMatch(/unsettled top-level await/)
      expect({ status: r.status, stdout: r.stdout.trim() }).toEqual({ status: 0, stdout: 'closed' })
    }
  })
})
