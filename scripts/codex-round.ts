/**
 * One real Codex round through `dsh-knowledge mcp`, by hand: what test/e2e/codex.e2e.ts asserts, printed.
 *
 *   npm install --prefix /tmp/codex-cli @openai/codex@0.171.0        # not a dependency of the project
 *   node scripts/build.mjs
 *   KS_CODEX_BIN=/tmp/codex-cli/node_modules/.bin/codex node scripts/codex-round.ts [--keep]
 *
 * Prints the config.toml it wrote, every request the local model server got (tools, the tool output), what tried to
 * go through the proxy variables, the addresses connected to (with strace), and Codex's last message. `--keep` keeps
 * the folder (root, workspace, CODEX_HOME) and prints its path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { codexBinary, isLoopback, knowledgeRound, straceWorks } from '../test/harness/codex.ts'
import { functionOutputs, itemText } from '../test/harness/responses-server.ts'

const { bin, reason } = codexBinary()
if (!bin) {
  console.error(`codex-round: ${reason}`)
  process.exit(2)
}
const keep = process.argv.includes('--keep')
const base = mkdtempSync(join(tmpdir(), 'dsh-ks-codex-'))
const traced = straceWorks()
const round = await knowledgeRound({ bin, base, trace: traced })
const { run, server } = round
const version = run.stdout ? String(server.requests[0]?.headers['user-agent'] ?? '') : ''

console.log(`# Codex: ${version}`)
console.log(`# exit code ${run.code}; workspace ${round.workspace}; root ${round.root}\n`)
console.log(`## config.toml\n${round.config}`)
console.log('## requests the model server got')
for (const [i, r] of server.requests.entries()) {
  const tools = (r.body?.tools ?? []).map((t) => (t.type === 'namespace' ? `${t.name}{${(t.tools ?? []).map((x) => x.name).join(',')}}` : (t.name ?? t.type)))
  console.log(`${i + 1}. ${r.method} ${r.path} (host ${r.headers.host}) tools: ${tools.join(' ')}`)
  for (const output of functionOutputs(r)) console.log(`   function_call_output ${output.call_id}:\n${itemText(output.output).replace(/^/gm, '     | ')}`)
}
console.log(`\n## through the proxy variables: ${server.escapes.length ? JSON.stringify(server.escapes) : 'nothing'}`)
if (run.connections) {
  const outside = run.connections.filter((c) => !isLoopback(c))
  console.log(`## connections (strace): ${run.connections.length}, outside loopback: ${outside.length ? JSON.stringify(outside) : 'none'}`)
} else console.log('## connections: not traced (strace cannot trace here)')
console.log(`## Codex's last message\n${run.lastMessage.trim()}`)
console.log(`\nmarker ${round.marker} ${run.lastMessage.includes(round.marker) ? 'is' : 'is NOT'} in the answer`)
if (keep) console.log(`kept: ${base}`)
else rmSync(base, { recursive: true, force: true })
process.exit(run.code === 0 && run.lastMessage.includes(round.marker) && server.escapes.length === 0 ? 0 : 1)
