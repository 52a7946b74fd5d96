/**
 * `pnpm run bench`: every benchmark in this folder, one after another, at sizes that finish in a few minutes on two
 * cores (the redaction bench, the capture hot path, search at 1k and 10k documents). Each prints its own ratios
 * against a baseline measured in the same run. Larger sizes: run a bench directly (see its header).
 * @module dsh-knowledge-sync/bench/run
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
if (!existsSync(join(root, 'lib/knowledge/store.js'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' })

const runs = [['redact.bench.mjs'], ['capture.bench.ts'], ['search.bench.mjs', '1000'], ['search.bench.mjs', '10000']]
for (const [file, ...args] of runs) {
  console.log(`\n=== node bench/${[file, ...args].join(' ')}`)
  execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', join(here, file), ...args], { stdio: 'inherit', cwd: root })
}
