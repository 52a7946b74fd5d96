/**
 * Files under `.knowledge/` that are not files (a directory put where `revisions.log` or the index cache goes, as a
 * push or a slip can do): every CLI command still runs, says once what it ignored, and loses nothing.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')

function cli(root: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.DSH_KNOWLEDGE_ROOT
  return spawnCollect(process.execPath, [BIN, ...args, '--root', root], { cwd: root, env }, '')
}

function seededRoot(): string {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-kdir-')), 'kb')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'proxy.md'), '---\ntitle: Proxy port\n---\n\n# Proxy port\n\nThe build proxy listens on 3128.\n')
  return root
}

describe('a directory where a .knowledge file goes', () => {
  for (const place of ['.knowledge/revisions.log', '.knowledge/cache/index-v4.sqlite', '.knowledge/cache/index-v4.sqlite-wal', '.knowledge/cache/index-v4.lock']) {
    it(`lists, searches and reads with ${place} a directory, and says so once`, async () => {
      const root = seededRoot()
      expect((await cli(root, 'list')).code).toBe(0)
      rmSync(join(root, place), { force: true })
      mkdirSync(join(root, place, 'inner'), { recursive: true })
      const list = await cli(root, 'list', '--json')
      expect(list.code, list.stderr).toBe(0)
      expect(JSON.parse(list.stdout).map((d: { id: string }) => d.id)).toEqual(['proxy'])
      expect(list.stderr.split('\n').filter((l) => l.includes(place.split('/').pop()!))).toHaveLength(1)
      const search = await cli(root, 'search', 'proxy', '--json')
      expect(search.code, search.stderr).toBe(0)
      expect(JSON.stringify(JSON.parse(search.stdout))).toContain('proxy')
      const read = await cli(root, 'read', 'proxy')
      expect(read.code, read.stderr).toBe(0)
      expect(read.stdout).toContain('3128')
      // The directory is left as it was (nothing deleted), and the document is untouched.
      expect(readFileSync(join(root, 'proxy.md'), 'utf8')).toContain('3128')
      mkdirSync(join(root, place, 'inner'), { recursive: true })
    })
  }
})
