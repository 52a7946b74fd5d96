/**
 * The demo: boots a real `dsh --profile headless` with the packed bundle installed by `dsh plugin add`, against the
 * project's scripted model server on 127.0.0.1, and shows what the product does:
 *   session 1 — two rounds: a real finding (whose tool call carried a credential) is kept and redacted, a terse
 *               "12 passed" round is dropped;
 *   session 2 — a new session in the same workspace sees the two-sentence pointer, and its model calls
 *               knowledge_search and knowledge_read and gets the finding back.
 * Run by `bash scripts/demo.sh` (Node 22 runs this TypeScript directly).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { createDshHome, PROJECT_ROOT } from '../test/harness/dsh.ts'
import { allDocuments, ledgerEntries } from '../test/harness/files.ts'
import { byPrompt, startModelServer, systemText } from '../test/harness/model-server.ts'
import { readmeBlock } from '../test/harness/readme.ts'

const bold = (s: string) => `\x1b[1m${s}\x1b[0m`
const dim = (s: string) => `\x1b[2m${s}\x1b[0m`
const step = (s: string) => console.log(`\n${bold('▶ ' + s)}`)
const fail = (s: string): never => {
  console.error(`\n\x1b[31mdemo failed: ${s}\x1b[0m`)
  process.exit(1)
}

const FAKE_TOKEN = 'ghp_' + 'Demo0Token1Abc2Def3Ghi4Jkl5Mno6Pqr7Stu8'
const FINDING =
  'The cause was the pnpm store: `pnpm install` failed with ERR_PNPM_EACCES because /root/.local/share/pnpm belonged to another user. ' +
  'Fixed by setting `store-dir=/tmp/pnpm-store` in .npmrc; chose that over chown because the CI image is read-only.'

const workspace = mkdtempSync(join(tmpdir(), 'dsh-knowledge-demo-'))
mkdirSync(join(workspace, '.git'))
let documentId = ''
const server = await startModelServer(byPrompt({}, { title: 'Demo session' }))
server.setScript((request) =>
  byPrompt(
    {
      'pnpm install fail': [
        { reasoning: 'Let me look at the install log.', toolCalls: [{ name: 'bash', arguments: { command: `GITHUB_TOKEN=${FAKE_TOKEN} pnpm install --reporter=ndjson 2>&1 | tail -5` } }] },
        { text: FINDING },
      ],
      'run the tests': [{ text: '12 passed' }],
      'install is broken again': [
        { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'pnpm install ERR_PNPM_EACCES' } }] },
        { toolCalls: [{ name: 'knowledge_read', arguments: { id: documentId } }] },
        { text: 'This was solved before: set store-dir=/tmp/pnpm-store in .npmrc (the store belonged to another user).' },
      ],
    },
    { title: 'Demo session' },
  )(request),
)

try {
  step('Installing the packed bundle into a scratch dsh profile with `dsh plugin --profile headless add <tarball>`')
  const home = await createDshHome({ profile: 'headless', modelUrl: server.url })
  console.log(`  DSH_HOME=${home.home}\n  knowledge root: ${home.knowledgeRoot}\n  scripted model: ${server.url}\n  workspace: ${workspace}`)

  step('Session 1, round 1: "Why does pnpm install fail on CI?" (its tool call carries a GitHub token)')
  const r1 = await home.run('Why does pnpm install fail on CI?', { cwd: workspace })
  if (r1.code !== 0) fail(`dsh exited ${r1.code}\n${r1.stderr}\n${r1.log}`)
  console.log(dim(`  dsh answered: ${r1.stdout.trim().slice(0, 120)}…`))

  step('Session 1, round 2: "run the tests" → "12 passed" (no knowledge in it)')
  const r2 = await home.run('run the tests', { cwd: workspace })
  if (r2.code !== 0) fail(`dsh exited ${r2.code}\n${r2.stderr}`)

  const docs = allDocuments(home.knowledgeRoot)
  if (docs.length !== 1) fail(`expected 1 document, found ${docs.length}`)
  const doc = docs[0]
  documentId = /^id: (\S+)$/m.exec(doc.text)?.[1] ?? fail('no id in the document')
  const dropped = ledgerEntries(home.knowledgeRoot).filter((e) => e.type === 'dropped')
  step('What capture wrote (no model call was made to write it)')
  console.log(`  documents written: ${docs.length} → ${relative(home.knowledgeRoot, join(home.knowledgeRoot, doc.path))}`)
  console.log(`  rounds dropped by the salience bar: ${dropped.length} (top reason: ${dropped[0]?.reasons?.[0] ?? '-'})`)
  console.log(`  the GitHub token reached the file: ${doc.text.includes(FAKE_TOKEN) ? 'YES — BUG' : 'no (redacted)'}`)
  console.log(
    dim(
      doc.text
        .split('\n')
        .map((l) => `  │ ${l}`)
        .join('\n'),
    ),
  )
  if (doc.text.includes(FAKE_TOKEN)) fail('a secret reached the document')

  step('Session 2, same workspace: "The install is broken again — seen this before?"')
  const mark = server.requests.length
  const r3 = await home.run('The install is broken again — seen this before?', { cwd: workspace })
  if (r3.code !== 0) fail(`dsh exited ${r3.code}\n${r3.stderr}\n${r3.log}`)
  const chat = server.requests.slice(mark).filter((r) => r.kind === 'chat')
  const pointer = /Knowledge base:[^\n]*/.exec(systemText(chat[0].body))?.[0] ?? fail('no pointer in the system prompt')
  console.log(`  pointer in the system prompt:\n${dim('  │ ' + pointer)}`)
  const toolText = (k: number) => String(chat[k]?.body.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '')
  console.log(
    `  the model called knowledge_search → first hit:\n${dim(
      toolText(1)
        .split('\n')
        .slice(0, 5)
        .map((l) => '  │ ' + l)
        .join('\n'),
    )}`,
  )
  if (!toolText(1).includes(documentId)) fail('knowledge_search did not return the captured document')
  console.log(`  the model called knowledge_read(${documentId}) → ${toolText(2).includes('store-dir=/tmp/pnpm-store') ? 'got the finding' : 'MISSING'}`)
  console.log(`  dsh answered: ${bold(r3.stdout.trim())}`)

  // The README's own lines (its replayed web block), so what the demo says is what the README says and the test runs.
  step('Use it with a real model (README.md; run from this repository, after this demo)')
  for (const line of readmeBlock(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'), 'web')) console.log(`  ${line}`)
  const version = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version
  console.log(dim(`  (dsh-knowledge-sync ${version}; outside this repository: README.md, "Elsewhere"; documents go to ./knowledge beside where dsh starts, or $DSH_KNOWLEDGE_ROOT)`))
  console.log(`\n${bold('demo ok')}`)
} finally {
  await server.close()
}
