/**
 * A long-lived store process for the shared-index tests: `node shared-store.ts <root> [--watch]` opens the built
 * store (lib/) on `root`, prints `ready <size> <scan line>`, then answers one JSON command per stdin line with one
 * JSON line on stdout (with `--changes`, also `{ change, id }` for each document indexed or dropped after start, and
 * `{ info }` for each info line the store logs):
 * - `{ "write": "<tag>", "count": n }`: writes n rounds as fast as it can, `{ ids, errors }`;
 * - `{ "write": "<tag>", "count": n, "killAt": k }`: fires n writes at once and kills itself with SIGKILL (a real
 *   kill -9) as the k-th is written, while the others are in flight; prints `{ written: id }` for each one before;
 * - `{ "search": "<query>", "filter": {...} }`: `{ ids }`; `{ "read": "<id>" }`: `{ path }` (or null);
 * - `{ "exit": true }`: closes the store and exits.
 */
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, ...flags] = process.argv.slice(2)
const { KnowledgeStore } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/redact/redactor.js')).href)
let scan = ''
const logger = {
  info(format: string, ...args: unknown[]) {
    let i = 0
    if (flags.includes('--changes')) say({ info: format.replace(/%[sd]/g, () => String(args[i++])) })
  },
  warn() {},
  debug(format: string, ...args: unknown[]) {
    let i = 0
    if (format.startsWith('indexed')) scan = format.replace(/%[sd]/g, () => String(args[i++]))
  },
}
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: flags.includes('--watch'), logger })
function say(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}
await store.start()
// A large root's files are checked behind the start (knowledge/view/freshness.ts): ready once they are, as the owner
// the benches and tests rely on vouches only from then on.
await store.indexed.checked
say({ ready: store.size, scan })
// `--changes`: every document the store indexes or drops after start, as it happens (a hand edit the watcher saw).
// Said on the next turn: the index commits its open transaction on the turn after the write (search/write-cycle.ts),
// so another process reading the file after this line sees the change.
if (flags.includes('--changes')) store.onChange((change: { type: string; id: string }) => setImmediate(() => say({ change: change.type, id: change.id })))
// The checkpoint worker never keeps a process alive; the open stdin does until `exit`.
const alive = setInterval(() => {}, 60_000)

export const round = (tag: string, k: number) => ({
  kind: 'raw',
  title: `Round ${tag} ${k}`,
  cwd: '/ws/app',
  session: `${tag}0000000-0000-4000-8000-000000000000`.slice(0, 36),
  turn: k + 1,
  tags: [`tag-${tag}`],
  sections: [
    { heading: 'Question', text: `What about job ${k} of ${tag}?` },
    { heading: 'Answer', text: `marker${tag}${[...String(k)].map((c) => 'abcdefghij'[Number(c)]).join('')} and the shared word` },
  ],
})

type Command = { write?: string; count?: number; killAt?: number; search?: string; filter?: object; read?: string; exit?: boolean }

async function run(command: Command): Promise<void> {
  if (command.write !== undefined && command.killAt !== undefined) {
    let written = 0
    const writes = Array.from({ length: command.count ?? 1 }, (_, k) =>
      store.write(round(command.write!, k)).then((doc: { id: string }) => {
        say({ written: doc.id })
        if (++written === command.killAt) process.kill(process.pid, 'SIGKILL')
      }),
    )
    await Promise.all(writes)
    return
  }
  if (command.write !== undefined) {
    const ids: string[] = []
    let errors = 0
    for (let k = 0; k < (command.count ?? 1); k++) {
      try {
        ids.push((await store.write(round(command.write, k))).id)
      } catch (error) {
        errors++
        process.stderr.write(`write failed: ${(error as Error).message}\n`)
      }
    }
    return say({ ids, errors })
  }
  if (command.search !== undefined) return say({ ids: store.search(command.search, { limit: 50, ...command.filter }).map((h: { id: string }) => h.id) })
  if (command.read !== undefined) return say({ path: (await store.read(command.read))?.path ?? null })
  if (command.exit) {
    await store.close()
    clearInterval(alive)
    say({ closed: true })
    process.exit(0)
  }
}

let queue = Promise.resolve()
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(() => run(JSON.parse(line) as Command))
})
