/**
 * The knowledge-sync commands of the built CLI (`lib/cli/bin.js`) in a subprocess, against a real HTTP server on
 * 127.0.0.1 and real files: sync, status (dry run), --source, --json, discover, promote, audit, regenerate-md; the
 * exemption variable as the only way to reach 127.0.0.1, logged; without it the guard refuses. Build first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const full: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete full.DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS
  delete full.DSH_KNOWLEDGE_ROOT
  for (const [k, v] of Object.entries(env)) if (v !== undefined) full[k] = v
  return spawnCollect(process.execPath, [BIN, ...args], { cwd: base, env: full })
}
const ALLOW = { DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS: '127.0.0.1' }

let server: WebServer
let base = ''
let root = ''
const ORIGINAL =
  '---\nid: vendor\ntitle: Vendor API\n---\n# Vendor API\n\nOur notes.\n<!-- upstream:start name="limits" -->\n<!-- upstream:end -->\n<!-- upstream:start name="adr" -->\n<!-- upstream:end -->\n'

beforeAll(async () => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  server = await startWebServer({
    '/limits': text('<html><body><article><h1>Rate limits</h1><p>100 requests per minute.</p></article></body></html>', 'text/html'),
    '/docs/': text('<a href="/docs/one">one</a> <a href="/docs/two">two</a>', 'text/html'),
    '/docs/one': text('one', 'text/html'),
    '/docs/two': text('two', 'text/html'),
  })
  base = mkdtempSync(join(tmpdir(), 'dsh-ks-synccli-'))
  root = join(base, 'knowledge')
  mkdirSync(root)
  execFileSync('git', ['init', '-q', base])
  mkdirSync(join(base, 'adr'))
  writeFileSync(join(base, 'adr/0002.md'), 'Decision: keep retries at 3.\n')
  writeFileSync(join(root, 'vendor.md'), ORIGINAL)
  writeFileSync(
    join(root, 'sources.yml'),
    `sources:
  - name: limits
    type: http
    url: ${server.url}/limits
    selector: article
    target: { file: vendor.md, section: limits }
  - name: adr
    type: local
    path: adr/0002.md
    target: { file: vendor.md, section: adr }
roots:
  - { name: docs, url: "${server.url}/docs/", max_depth: 1 }
`,
  )
})
afterAll(async () => {
  await server?.close()
})

describe('dsh-knowledge sync', () => {
  it('refuses 127.0.0.1 when the exemption is unset, and the other source still syncs', async () => {
    const r = await cli(['status', '--root', root, '--json'])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report.results.map((x: any) => [x.name, x.status])).toEqual([
      ['limits', 'fetch-error'],
      ['adr', 'would-change'],
    ])
    expect(report.results[0].reason).toMatch(/refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback\)/)
    expect(server.seen).toHaveLength(0)
    expect(readFileSync(join(root, 'vendor.md'), 'utf8')).toBe(ORIGINAL)
  })

  it('status shows a diff and writes nothing; sync writes; a second sync is unchanged from cache', async () => {
    const dry = await cli(['status', '--root', root], ALLOW)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/^limits\s+would-change/m)
    expect(dry.stdout).toContain('+# Rate limits')
    expect(dry.stderr).toMatch(/address guard OFF for host 127\.0\.0\.1/)
    expect(readFileSync(join(root, 'vendor.md'), 'utf8')).toBe(ORIGINAL)

    const run = await cli(['sync', '--root', root, '--json'], ALLOW)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).results.map((x: any) => x.status)).toEqual(['changed', 'changed'])
    const text = readFileSync(join(root, 'vendor.md'), 'utf8')
    expect(text).toContain('100 requests per minute.')
    expect(text).toContain('Decision: keep retries at 3.')
    expect(text.startsWith('---\nid: vendor\ntitle: Vendor API\n---\n# Vendor API\n\nOur notes.\n<!-- upstream:start name="limits" -->\n')).toBe(true)

    const again = await cli(['sync', '--root', root, '--source', 'limits', '--json'], ALLOW)
    expect(JSON.parse(again.stdout).results).toEqual([expect.objectContaining({ name: 'limits', status: 'unchanged', from_cache: true })])
    const found = await cli(['search', 'rate limits', '--root', root, '--json'])
    expect(JSON.stringify(JSON.parse(found.stdout))).toContain('vendor')
  })

  it('discover, promote, audit and regenerate-md', async () => {
    const d = await cli(['discover', '--root', root, '--json'], ALLOW)
    expect(d.code, d.stderr).toBe(0)
    expect(JSON.parse(d.stdout)[0]).toMatchObject({ root: 'docs', method: 'crawl', found: 3, added: 3 })
    let audit = JSON.parse((await cli(['audit', '--root', root, '--json'])).stdout)
    expect(audit.pending).toBe(3)
    const p = await cli(['promote', '--root', root, '--url', `${server.url}/docs/one`, '--file', 'vendor.md', '--section', 'nosuch', '--reason', 'the overview'])
    expect(p.code, p.stderr).toBe(0)
    audit = JSON.parse((await cli(['audit', '--root', root, '--json'])).stdout)
    expect(audit.pending).toBe(2)
    expect(audit.neverSynced.map((x: any) => x.url)).toEqual([`${server.url}/docs/one`])
    expect(audit.missingTarget[0].problem).toMatch(/no section "nosuch"/)
    const decisions = JSON.parse(readFileSync(join(root, '.knowledge/decisions.json'), 'utf8')).decisions
    expect(decisions.find((x: any) => x.url === `${server.url}/docs/one`)).toMatchObject({ status: 'in-use', decided_by: 'human', locked: true, reason: 'the overview', target_file: 'vendor.md' })
    const bad = await cli(['promote', '--root', root, '--url', `${server.url}/x`, '--file', '../escape.md', '--section', 's'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/leaves the knowledge root/)
    writeFileSync(join(root, '.knowledge/decisions.md'), 'stale')
    expect((await cli(['regenerate-md', '--root', root])).code).toBe(0)
    expect(readFileSync(join(root, '.knowledge/decisions.md'), 'utf8')).toMatch(/^<!-- GENERATED from decisions.json/)
    const usage = await cli(['promote', '--root', root, '--url', 'x'])
    expect(usage.code).toBe(2)
  })

  it('promote: 12 processes at once all land, and a locked decision is refused (exit 1) unless --force', async () => {
    const urls = Array.from({ length: 12 }, (_, k) => `${server.url}/many/${k}`)
    const runs = await Promise.all(urls.map((url) => cli(['promote', '--root', root, '--url', url, '--file', 'vendor.md', '--section', 'adr'])))
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    const decisions = JSON.parse(readFileSync(join(root, '.knowledge/decisions.json'), 'utf8')).decisions.map((x: any) => x.url)
    for (const url of urls) expect(decisions).toContain(url)
    const again = await cli(['promote', '--root', root, '--url', urls[0], '--file', 'vendor.md', '--section', 'limits'])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/is locked: a person decided it \(in-use → vendor\.md#adr/)
    const forced = await cli(['promote', '--root', root, '--url', urls[0], '--file', 'vendor.md', '--section', 'limits', '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    const after = JSON.parse(readFileSync(join(root, '.knowledge/decisions.json'), 'utf8')).decisions.find((x: any) => x.url === urls[0])
    expect(after.target_section).toBe('limits')
  }, 300_000)
})
