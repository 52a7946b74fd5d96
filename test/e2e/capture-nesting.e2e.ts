/**
 * Deep nesting is a clear error (issue 10, item 11), with the real `dsh-knowledge capture` (built lib/cli/bin.js in a
 * subprocess): tool arguments nested 200k levels deep are refused with a message naming the field, not a
 * "Maximum call stack size exceeded" crash, and nothing is written; the same nesting given as a JSON string (as dsh
 * records tool calls) is stored with a bounded marker in place of the deep part. Build first (`node scripts/build.mjs`).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments, allFiles } from '../harness/files.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[], input: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.DSH_KNOWLEDGE_ROOT
  return spawnCollect(process.execPath, [BIN, ...args], { env }, input)
}

const ANSWER =
  'The cause was the pnpm store path: pnpm install failed with ERR_PNPM_EACCES because /root/.local/share/pnpm was owned by another user. Fixed by setting store-dir=/tmp/pnpm-store in .npmrc; chose that over chown because CI images are read-only.'
/** A round whose second tool call's arguments are `deep` (spliced in as raw JSON text, so no serializer recurses). */
function roundJson(deep: string): string {
  const round = {
    session: 'session-3f2a9c1e-1111-4222-8333-444455556666',
    turn: 1,
    cwd: '/work/proj',
    created: '2025-01-02T03:04:05.000Z',
    question: 'Why does pnpm install fail on the CI runner?',
    answer: ANSWER,
    outcome: 'completed',
    tools: [
      { name: 'bash', arguments: { command: 'pnpm install' } },
      { name: 'write', arguments: '@DEEP@' },
    ],
  }
  return JSON.stringify(round).replace('"@DEEP@"', deep)
}
const nested = (levels: number) => '{"a":'.repeat(levels) + '{"token":"x"}' + '}'.repeat(levels)

beforeAll(() => {
  expect(existsSync(BIN), 'build first: node scripts/build.mjs').toBe(true)
})

describe('dsh-knowledge capture with deeply nested tool arguments', () => {
  it('refuses 200k levels of nesting with a message naming the field, and writes nothing', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-nest-')), 'kb')
    for (const args of [
      ['capture', '--root', root],
      ['capture', '--root', root, '--dry-run'],
    ]) {
      const r = await cli(args, roundJson(nested(200_000)))
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/^dsh-knowledge: round\.tools\[1\]\.arguments is nested deeper than 64 levels \(at \$\.a\.a\.a/)
      expect(r.stderr).not.toMatch(/Maximum call stack/)
      expect(r.stderr.length).toBeLessThan(600)
      expect(r.stdout).toBe('')
    }
    expect(allDocuments(root)).toEqual([])
    expect(allFiles(root).filter((f) => !f.path.startsWith('.knowledge/ids'))).toEqual([])
  })

  it('keeps a round whose arguments are the same nesting as a JSON string, with a bounded marker in place of the deep part', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-nest-')), 'kb')
    // 10k levels fit the 64 KiB parse window: shown compactly down to 64 levels, then the marker.
    const r = await cli(['capture', '--root', root, '--json'], roundJson(JSON.stringify(nested(10_000))))
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ kept: true, error: null })
    const [doc] = allDocuments(root)
    expect(doc.text).toContain('{"a":'.repeat(64) + '"[nested deeper than 64 levels: omitted]"')
    expect(doc.text.length).toBeLessThan(10_000)
    // 200k levels as a string: over the parse window, shown as a cut string; still no crash.
    const big = await cli(['capture', '--root', root, '--dry-run'], roundJson(JSON.stringify(nested(200_000))))
    expect(big.code, big.stderr).toBe(0)
    expect(JSON.parse(big.stdout).kept).toBe(true)
  })
})
