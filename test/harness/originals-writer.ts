/**
 * A process that updates the originals manifest, for the cross-process specs: `node originals-writer.ts <root> <tag>
 * <count> [--retire R] [--kill-at K]` opens the built originals folder (lib/) on `root`, prints `{ ready }`, waits
 * for one line on stdin (so that every process starts at once), then fires `count` adds of distinct files
 * `<tag>/<k>.txt` at the same time (provenance `run` with session `<tag>`), and after them retires the first R.
 * Each update is printed as it is committed: `{ added }`, `{ retired }`. With `--kill-at K` it kills itself with
 * SIGKILL (a real kill -9) as the K-th add is committed, the others in flight. Ends with `{ done, errors }`.
 */
import { Readable } from 'node:stream'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, tag, countText, ...flags] = process.argv.slice(2)
const option = (name: string) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : undefined)
const count = Number(countText)
const retire = option('--retire') ?? 0
const killAt = option('--kill-at')
const { OriginalsFolder } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/originals/index.js')).href)
const folder = new OriginalsFolder({ root }).open()
const say = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}
say({ ready: process.pid })
const input = createInterface({ input: process.stdin })
await new Promise<void>((resolve) => input.once('line', () => resolve()))
input.close()

const errors: string[] = []
let added = 0
await Promise.all(
  Array.from({ length: count }, (_, k) =>
    folder
      .add(Readable.from([Buffer.from(`original ${k} of ${tag}\n`)]), `${tag}/${k}.txt`, { kind: 'run', session: tag }, { maxBytes: 1024, what: `${tag} ${k}` })
      .then((got: { path: string }) => {
        say({ added: got.path })
        if (++added === killAt) process.kill(process.pid, 'SIGKILL')
      })
      .catch((error: Error) => errors.push(error.message)),
  ),
)
await Promise.all(
  Array.from({ length: retire }, (_, k) =>
    folder
      .retire(`${tag}/${k}.txt`, 'wrong', `withdrawn by ${tag}`)
      .then((entry: { path: string }) => say({ retired: entry.path }))
      .catch((error: Error) => errors.push(error.message)),
  ),
)
say({ done: true, errors })
process.exit(0)
