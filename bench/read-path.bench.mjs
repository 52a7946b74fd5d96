/**
 * The cost of the link-safe read path (issue 10, item 2), against the plain read it replaced, in the same run:
 * 10,000 small documents in 100 session folders, each read (a) the old way, `statSync` + `readFileSync(path)`;
 * (b) as the start-up scan now reads them, `readRootFile` with the per-scan folder cache (open O_NOFOLLOW, fstat,
 * read, close); (c) as the watcher and `read` do, `readRootFile` with a folder `realpath` per call.
 * Prints the median of 7 passes, the ratio to (a), and the per-file p99/max of (c).
 * Run: `node bench/read-path.bench.mjs` after `node scripts/build.mjs` (it loads lib/knowledge/view/files.js).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const { readRootFile } = await import(pathToFileURL(join(import.meta.dirname, '..', 'lib/knowledge/view/files.js')).href)
const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-readbench-')), 'kb')
const files = []
for (let s = 0; s < 100; s++) {
  mkdirSync(join(root, `session-${s}`), { recursive: true })
  for (let k = 0; k < 100; k++) {
    const rel = `session-${s}/id${s}-t${k}-a-round.md`
    writeFileSync(join(root, rel), `---\nid: id${s}-t${k}\ntitle: Round ${k}\n---\n\n# Round ${k}\n\n${'The cache key includes a timestamp. '.repeat(40)}\n`)
    files.push(rel)
  }
}
const realRoot = realpathSync.native(root)
const passes = { old: [], scan: [], watcher: [] }
const perFile = []
for (let pass = 0; pass < 7; pass++) {
  let t = performance.now()
  for (const rel of files) {
    const full = join(root, rel)
    statSync(full)
    readFileSync(full, 'utf8')
  }
  passes.old.push(performance.now() - t)
  const dirs = new Map()
  t = performance.now()
  for (const rel of files) readRootFile(realRoot, rel, join(root, rel), dirs)
  passes.scan.push(performance.now() - t)
  t = performance.now()
  for (const rel of files) {
    const one = performance.now()
    readRootFile(realRoot, rel, join(root, rel))
    if (pass === 6) perFile.push(performance.now() - one)
  }
  passes.watcher.push(performance.now() - t)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const base = median(passes.old)
console.log(`10,000 files, median of 7 passes`)
console.log(`  (a) old: stat + readFile            ${base.toFixed(1)} ms`)
console.log(`  (b) scan: readRootFile, folder cache ${median(passes.scan).toFixed(1)} ms (×${(median(passes.scan) / base).toFixed(2)})`)
console.log(`  (c) watcher/read: realpath per call  ${median(passes.watcher).toFixed(1)} ms (×${(median(passes.watcher) / base).toFixed(2)})`)
perFile.sort((a, b) => a - b)
console.log(
  `  (c) per file: p50 ${(perFile[perFile.length >> 1] * 1000).toFixed(1)} µs, p99 ${(perFile[Math.floor(perFile.length * 0.99)] * 1000).toFixed(1)} µs, max ${(perFile[perFile.length - 1] * 1000).toFixed(1)} µs`,
)
