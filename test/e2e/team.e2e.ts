/**
 * A team shares one base through git: two real clones, each with its own store (watching), each capturing rounds and
 * notes for a session whose id starts with the same 8 characters as the other machine's. Both commit; each pulls the
 * other's work: no merge conflict, every document in both indexes (the watcher picks up what git wrote), ids unique
 * and the same on both machines, and new writes never collide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { captureRound } from '../../src/capture/keep-round.js'
import { noteDraft } from '../../src/note/note-args.js'
import { teamRedactor, teamRound } from '../harness/team-rounds.ts'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const X = 'session-abcd1234-aaaa-4000-8000-000000000001'
const Y = 'session-abcd1234-bbbb-4000-8000-000000000002'
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } })
const redactor = teamRedactor
const round = teamRound
async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}
const idMap = (store: KnowledgeStore) => Object.fromEntries(store.list({ limit: 1000 }).items.map((m) => [m.id, m.path]))
const sameIds = (x: KnowledgeStore, y: KnowledgeStore) => {
  const [p, q] = [idMap(x), idMap(y)].map((m) => JSON.stringify(Object.entries(m).sort()))
  return p === q
}

let a: string, b: string
let storeA: KnowledgeStore, storeB: KnowledgeStore

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), 'dsh-ks-team-'))
  const origin = join(base, 'origin.git')
  git(base, 'init', '--quiet', '--bare', origin)
  a = join(base, 'a')
  const init = spawnSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'init', '--git', '--root', a, '--json'], { encoding: 'utf8' })
  expect(init.status, init.stderr).toBe(0)
  expect(JSON.parse(init.stdout).gitattributesAdded).toEqual(['.knowledge/*.jsonl merge=union'])
  git(a, 'add', '-A')
  git(a, 'commit', '--quiet', '-m', 'knowledge base')
  git(a, 'remote', 'add', 'origin', origin)
  git(a, 'push', '--quiet', 'origin', 'HEAD:main')
  b = join(base, 'b')
  git(base, 'clone', '--quiet', '--branch', 'main', origin, b)
  git(a, 'branch', '--quiet', '--set-upstream-to=origin/main')
  storeA = new KnowledgeStore({ root: a, redactor: redactor() })
  storeB = new KnowledgeStore({ root: b, redactor: redactor() })
  await Promise.all([storeA.start(), storeB.start()])
}, 180_000)

afterAll(async () => {
  await storeA?.close()
  await storeB?.close()
})

describe('a base shared through git', () => {
  it("merges both machines' work without a conflict, and both indexes hold every document under the same unique ids", async () => {
    for (const [store, session, topics] of [
      [storeA, X, ['esbuild', 'the TLS proxy']],
      [storeB, Y, ['the docker cache']],
    ] as const) {
      for (const [k, topic] of topics.entries()) expect((await captureRound(store, round(session, k + 1, topic), { minScore: 2 })).kept).toBe(true)
      await store.write(
        noteDraft(
          { title: `Note from ${session.slice(8, 21)}`, finding: `Pin ${topics[0]} in CI; it broke twice.`, tags: ['ci'], kind: 'note', links: [], supersedes: [] },
          { session, cwd: '/work/app', suffix: store.nextNoteSuffix(session) },
        ),
      )
    }
    expect(storeA.get('abcd1234-t1')?.session).toBe(X)
    expect(storeB.get('abcd1234-t1')?.session).toBe(Y)
    for (const dir of [a, b]) {
      git(dir, 'add', '-A')
      git(dir, 'commit', '--quiet', '-m', `work on ${dir}`)
    }
    git(a, 'push', '--quiet', 'origin', 'HEAD:main')
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main')
    git(b, 'push', '--quiet', 'origin', 'HEAD:main')
    git(a, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main')
    for (const dir of [a, b]) expect(git(dir, 'status', '--porcelain')).toBe('')
    // The ledgers merged as a union: both machines' kept rounds are in each.
    for (const dir of [a, b]) {
      const ledger = readFileSync(join(dir, '.knowledge/ledger.jsonl'), 'utf8')
      expect(ledger).toContain(X)
      expect(ledger).toContain(Y)
    }
    // Both watchers settle: every document indexed, and the ids re-resolved after the merge (a busy machine can show
    // the count before the last re-claim of a prefix).
    await until(() => storeA.count() === 5 && storeB.count() === 5 && sameIds(storeA, storeB), 60_000)
    const ids = idMap(storeA)
    expect(Object.keys(ids)).toHaveLength(5)
    expect(idMap(storeB)).toEqual(ids)
    // The session that sorts first keeps the short ids; the other's are known by a longer prefix of its own id.
    expect(storeB.get('abcd1234-t1')?.session).toBe(X)
    expect(storeB.get('abcd1234bbbb-t1')?.session).toBe(Y)
    expect(storeA.get('abcd1234bbbb-n1')?.session).toBe(Y)
    // A fresh start over a clone resolves the same way (scan order does not matter).
    const fresh = new KnowledgeStore({ root: b, redactor: redactor(), watch: false })
    await fresh.start()
    expect(idMap(fresh)).toEqual(ids)
    await fresh.close()
  }, 180_000)

  it("new writes on the machine that lost the short prefix never collide with the teammate's ids", async () => {
    const written = await captureRound(storeB, round(Y, 2, 'the flaky e2e test'), { minScore: 2 })
    expect(written.id).toBe('abcd1234bbbb-t2')
    expect(storeB.get('abcd1234-t2')?.session).toBe(X)
    expect(storeB.count()).toBe(6)
  })
})
