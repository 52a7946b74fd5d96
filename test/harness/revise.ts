/**
 * Another process on a knowledge root, for the revision tests: `node revise.ts <root> <command> …` through the built
 * store (lib/).
 *   versions <id>…                prints {"<id>": <version>} after a start-up scan (no watcher)
 *   replace <id> <answer>         rewrites a document through the store (as distillation or a status change does)
 *   status <id> <status>          sets `status:` in the front matter by hand (what the relations feature will write)
 * Every command prints one JSON line.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from './dsh.ts'

const [root, command, ...rest] = process.argv.slice(2)
const { KnowledgeStore } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/knowledge/store.js')).href)
const { createRedactor } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/redact/redactor.js')).href)
const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false })
await store.start()
if (command === 'versions') {
  console.log(JSON.stringify(Object.fromEntries(rest.map((id) => [id, store.versionOf(id) ?? null]))))
} else if (command === 'replace') {
  const [id, answer] = rest
  const old = store.get(id)
  const written = await store.write({
    kind: old.kind,
    title: old.title,
    cwd: old.cwd,
    session: old.session,
    turn: old.turn,
    replaceId: id,
    sections: [
      { heading: 'Question', text: old.title },
      { heading: 'Answer', text: answer },
    ],
  })
  console.log(JSON.stringify({ id: written.id, version: written.version }))
} else if (command === 'status') {
  const [id, status] = rest
  const file = join(root, store.get(id).path)
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\n---\n/, `\nstatus: ${status}\n---\n`))
  console.log(JSON.stringify({ id }))
}
await store.close()
