/**
 * The wiki with the real `dsh-knowledge` CLI (the built `lib/cli/bin.js` in a subprocess): template, create with
 * fields and content from a file or stdin, the JSON of create, edit by fragment, rewrite of the overview, index,
 * log and read log, refusals with their reason and exit code. Build first (`node scripts/build.mjs`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { GENERATED_LINE } from '../../src/knowledge/wiki/catalogue.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { ledgerEntries } from '../harness/files.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[], input?: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.DSH_KNOWLEDGE_ROOT
  return spawnCollect(process.execPath, [BIN, ...args], { cwd: tmpdir(), env }, input)
}
const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-wiki-cli-${name}-`))

let root = ''
beforeAll(() => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
  root = join(tmp('root'), 'kb')
})

describe('dsh-knowledge index / create / edit / rewrite / log / read', () => {
  it('prints a template without --content-file, and creates a page with fields from a file', async () => {
    const template = await cli(['create', 'entity', 'payments-service', '--root', root, '--title', 'Payments service'])
    expect(template.code, template.stderr).toBe(0)
    expect(template.stdout).toContain('## What it is')
    const file = join(tmp('content'), 'page.md')
    writeFileSync(file, 'The service that charges cards. Owned by the billing team.\n')
    const created = json(
      await cli([
        'create',
        'entity',
        'payments-service',
        '--root',
        root,
        '--title',
        'Payments service',
        '--content-file',
        file,
        '--field',
        'kind=system',
        '--field',
        'aliases=payments,billing-api',
        '--json',
      ]),
    )
    expect(created).toEqual({ id: 'entity/payments-service', path: 'entities/payments-service.md', type: 'entity', version: 1 })
    const meta = parseDocument(readFileSync(join(root, created.path), 'utf8'), created.path, 'x', 0).meta
    expect(meta).toMatchObject({ type: 'entity', entity_kind: 'system', aliases: ['payments', 'billing-api'] })
    expect(ledgerEntries(root).filter((e: any) => e.type === 'page')).toMatchObject([{ id: 'entity/payments-service', op: 'create', actor: 'cli' }])
  })

  it('creates from stdin with a link, edits by fragment, refuses a broken link and a rename with exit code 1', async () => {
    const concept = json(
      await cli(
        ['create', 'concept', 'idempotency-key', '--root', root, '--title', 'Idempotency key', '--content-file', '-', '--json'],
        'A key that makes a retried charge safe; used by [payments](entity/payments-service).\n',
      ),
    )
    expect(concept.id).toBe('concept/idempotency-key')
    expect(readFileSync(join(root, 'concepts/idempotency-key.md'), 'utf8')).toContain('[payments](../entities/payments-service.md)')
    const edited = json(await cli(['edit', 'concept/idempotency-key', '--root', root, '--old', 'retried charge', '--new', 'retried card charge', '--json']))
    expect(edited.version).toBe(2)
    const broken = await cli(['create', 'concept', 'ghost-link', '--root', root, '--title', 'Ghost', '--content-file', '-'], 'See [nothing](entity/nobody).')
    expect(broken.code).toBe(1)
    expect(broken.stderr).toMatch(/refused: concept\/ghost-link links to entity\/nobody, which names no document/)
    expect(existsSync(join(root, 'concepts/ghost-link.md'))).toBe(false)
    const rename = await cli(['edit', 'concept/idempotency-key', '--root', root, '--old', 'key', '--new', 'token', '--field', 'slug=token'])
    expect(rename.code).toBe(1)
    expect(rename.stderr).toMatch(/pages are never renamed/)
  })

  it('rewrites the overview, logs an operation, prints the index and the log', async () => {
    const over = json(await cli(['rewrite', 'overview', '--root', root, '--content-file', '-', '--json'], 'Payments: start at [the service](entity/payments-service).\n'))
    expect(over).toMatchObject({ id: 'overview', path: 'overview.md' })
    expect((await cli(['read', 'overview', '--root', root])).stdout).toContain('Payments: start at')
    const logged = json(await cli(['log', '--root', root, '--operation', 'ingest', '--what', 'payments runbook', '--page', 'entity/payments-service', '--json']))
    expect(logged).toMatchObject({ operation: 'ingest', what: 'payments runbook', pages: ['entity/payments-service'] })
    const index = await cli(['index', '--root', root])
    expect(index.stdout).toContain('## Entities (1)\n- Payments service — entity/payments-service — The service that charges cards. — kind: system — aliases: payments, billing-api')
    expect(index.stdout).toContain('## Concepts (1)')
    for (const args of [['log'], ['read', 'log']]) {
      const log = await cli([...args, '--root', root])
      expect(log.code, log.stderr).toBe(0)
      expect(log.stdout).toMatch(/^The last 1 operation\(s\), newest first:\n- \d{4}-\d\d-\d\d \d\d:\d\d ingest: payments runbook \(entity\/payments-service\)/)
    }
    const indexFile = readFileSync(join(root, 'index.md'), 'utf8')
    expect(indexFile.startsWith(`${GENERATED_LINE}\n`)).toBe(true)
    expect(indexFile).toContain('- [Idempotency key](concepts/idempotency-key.md)')
    // index is a read: it does not change index.md.
    expect(readFileSync(join(root, 'index.md'), 'utf8')).toBe(indexFile)
  })
})

describe("a profile's declared page types", () => {
  it('create, index and the template know the types of --profile NAME; without it the type is refused', async () => {
    const home = tmp('home')
    mkdirSync(join(home, 'profiles', 'web'), { recursive: true })
    writeFileSync(
      join(home, 'profiles', 'web', 'cordis.patch.yml'),
      '- id: knowledge-wiki\n  config:\n    enabled: true\n    types:\n      - type: runbook\n        folder: runbooks\n        section: Runbooks\n        description: Step-by-step operations for one service.\n        template: "## Steps\\n\\n1. …\\n"\n        fields: [service]\n        indexFields: [service]\n',
    )
    const kb = join(tmp('profile-root'), 'kb')
    const profile = ['--profile', 'web', '--dsh-home', home]
    const refused = await cli(['create', 'runbook', 'deploy', '--root', kb, '--title', 'Deploy', '--content-file', '-'], 'Roll out.\n')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/no page type "runbook"/)
    expect((await cli(['create', 'runbook', 'deploy', '--title', 'Deploy', ...profile])).stdout).toContain('## Steps')
    const made = json(
      await cli(['create', 'runbook', 'deploy', '--root', kb, '--title', 'Deploy', '--field', 'service=payments', '--content-file', '-', '--json', ...profile], 'Roll out the payments service.\n'),
    )
    expect(made).toMatchObject({ id: 'runbook/deploy', path: 'runbooks/deploy.md', type: 'runbook' })
    expect((await cli(['index', '--root', kb, ...profile])).stdout).toContain('## Runbooks (1)\n- Deploy — runbook/deploy — Roll out the payments service. — service: payments')
  })
})
