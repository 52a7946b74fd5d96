/**
 * A round captured again never makes two files with one id (issue 10, item 7), across processes: the plugin (the
 * real capture row in the in-process agent loop, with a watching store) and the real `dsh-knowledge capture` CLI
 * (the built lib/cli/bin.js in a subprocess) capture the same session and turn with different content. The rule:
 * the newer capture replaces the older document in place (same file, atomic rename). Build first
 * (`node scripts/build.mjs`).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import type { KnowledgeStore } from '../../src/knowledge/store.js'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, createLoop, type Loop } from '../harness/loop.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const SESSION = 'session-7e7e7e7e-0000-4000-8000-000000000001'

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

function cli(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCollect(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } }, input)
}
const round = (answer: string, question = 'Why does the nightly build miss the cache?') =>
  JSON.stringify({
    session: SESSION,
    turn: 1,
    cwd: '/work/proj',
    question,
    outcome: 'completed',
    answer,
    tools: [{ name: 'bash', arguments: '{"command":"pnpm build"}' }],
  })
const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
const idsOf = (root: string) => allDocuments(root).map((d) => parseDocument(d.text, d.path, 'x', 0).meta.id)

describe('re-capturing a round (10.7)', () => {
  it('plugin first, then the CLI in another process: one file, the newer content, seen by the running plugin', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-recap-')), 'kb')
    loop = await createLoop(
      byPrompt({
        nightly: [{ text: 'Root cause: the cache key included a timestamp; removed it in turbo.json because every build missed.' }],
      }),
      [
        [knowledge, { root }],
        [capture, { salience: { minScore: 0 } }],
      ],
    )
    const store = (loop.ctx as any).knowledge as KnowledgeStore
    await loop.ask('Why does the nightly build miss the cache?', { session: SESSION, cwd: '/work/proj' })
    await until(() => idsOf(root).length === 1)
    const [first] = allDocuments(root)
    expect(first.text).toContain('timestamp')

    const again = await cli(
      ['capture', '--root', root, '--min-score', '0', '--json'],
      round(
        'Correction: the real cause was an unpinned lockfile; pinned pnpm-lock.yaml because CI resolved new versions.',
        'Why does the nightly build still miss the cache after removing the timestamp?',
      ),
    )
    expect(again.code, again.stderr).toBe(0)
    const docs = allDocuments(root)
    expect(idsOf(root)).toEqual(['7e7e7e7e-t1'])
    expect(docs[0].path).toBe(first.path) // replaced in place
    expect(docs[0].text).toContain('unpinned lockfile')
    expect(docs[0].text).not.toContain('timestamp; removed')
    // The running plugin's watcher sees the replacement; no duplicate is reported anywhere.
    await until(() => store.search('unpinned lockfile').length === 1)
    expect(store.search('turbo.json')).toEqual([])
    expect([...store.invalid.values()].join('\n')).not.toMatch(/duplicate/)
    const stats = JSON.parse((await cli(['stats', '--root', root, '--json'])).stdout)
    expect(stats.documents).toBe(1)
    expect(stats.invalidFiles).toEqual([])
  }, 180_000)

  it('two CLI processes one after the other: the later capture wins, one file', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-recap-')), 'kb')
    // Different questions, so different titles and slugs: the second must not land beside the first.
    for (const [question, answer] of [
      ['Why does the build miss the cache?', 'First: the cache key held a timestamp; removed it because builds missed.'],
      ['Why does it still miss the cache?', 'Second: the lockfile was unpinned; pinned it because CI resolved new versions.'],
    ]) {
      const r = await cli(['capture', '--root', root, '--min-score', '0', '--json'], round(answer, question))
      expect(r.code, r.stderr).toBe(0)
    }
    expect(idsOf(root)).toEqual(['7e7e7e7e-t1'])
    expect(allDocuments(root)[0].text).toContain('Second: the lockfile')
    const read = await cli(['read', '7e7e7e7e-t1', '--root', root])
    expect(read.stdout).toContain('Second: the lockfile')
  }, 180_000)

  it('two processes capturing the same round at the same moment still leave one file (a per-round lock)', async () => {
    const script = join(PROJECT_ROOT, 'test/harness/capture-at.ts')
    for (let attempt = 0; attempt < Number(process.env.RACE_ATTEMPTS ?? 12); attempt++) {
      const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-recap-')), 'kb')
      const startAt = String(Date.now() + 1500)
      const run = (title: string, answer: string) => spawnCollect(process.execPath, [script, root, startAt, title, answer]).then((r) => r.code ?? 1)
      const codes = await Promise.all([
        run('Why does the build miss the cache?', 'Root cause: the cache key held a timestamp; removed it because builds missed.'),
        run('Why does the nightly still miss the cache?', 'Root cause: the lockfile was unpinned; pinned it because CI resolved new versions.'),
        run('Why is the runner cache cold?', 'Root cause: the runner cache was evicted; raised its size because builds missed.'),
      ])
      expect(codes).toEqual([0, 0, 0])
      expect(idsOf(root), `attempt ${attempt}`).toEqual(['c0ccc0cc-t1'])
    }
  }, 180_000)

  it('cleans up two files of one id left by an older version, keeping the newer round', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-recap-')), 'kb')
    const dir = join(root, SESSION)
    mkdirSync(dir, { recursive: true })
    const old = (slug: string, text: string) =>
      writeFileSync(join(dir, `7e7e7e7e-t1-${slug}.md`), `---\nid: 7e7e7e7e-t1\ntitle: ${slug}\nkind: raw\nsession: ${SESSION}\nturn: 1\ncwd: /work/proj\n---\n\n${text}\n`)
    old('aaa', 'old one')
    old('bbb', 'old two')
    // A hand-written file whose name merely looks like the round's is someone else's: never overwritten or removed.
    writeFileSync(join(dir, '7e7e7e7e-t1-my-own-notes.md'), '---\nid: my-own-notes\ntitle: Mine\n---\n\nkeep me\n')
    const r = await cli(['capture', '--root', root, '--min-score', '0', '--json'], round('Third: the runner cache was evicted; raised its size because builds missed.'))
    expect(r.code, r.stderr).toBe(0)
    expect(idsOf(root).sort()).toEqual(['7e7e7e7e-t1', 'my-own-notes'])
    expect(allDocuments(root).find((d) => d.text.includes('id: 7e7e7e7e-t1'))!.text).toContain('Third: the runner cache')
    expect(allDocuments(root).find((d) => d.path.endsWith('my-own-notes.md'))!.text).toContain('keep me')
  }, 180_000)
})
