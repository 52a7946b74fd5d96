/**
 * Backfill from dsh's own session logs: sessions run through the real `dsh --profile headless` with the packed bundle
 * (captured live into one root), then `dsh-knowledge import` over the same DSH_HOME into a second root. The imported
 * documents must be the captured ones byte for byte; a second run writes nothing; a garbage log is reported and
 * skipped without losing the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { zstdCompressSync } from 'node:zlib'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDshHome, PROJECT_ROOT, type DshHome } from '../harness/dsh.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { spawnCollect } from '../harness/spawn.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const GH_TOKEN = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCollect(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, cwd: tmpdir() })
}

let server: ModelServer
let home: DshHome

beforeAll(async () => {
  server = await startModelServer(
    byPrompt(
      {
        'Why does the CI build fail': [
          { toolCalls: [{ name: 'bash', arguments: { command: `GITHUB_TOKEN=${GH_TOKEN} pnpm install --frozen-lockfile` } }] },
          {
            text: 'The build fails because esbuild was installed for Node 20; the fix is to delete node_modules and reinstall with pnpm 10 under Node 22, since pnpm 10 skips build scripts unless onlyBuiltDependencies lists esbuild.',
          },
        ],
        'run the tests': [{ text: '12 passed' }],
        为什么部署超时: [{ text: '原因是健康检查的超时只有 5 秒，而服务冷启动需要 12 秒；解决办法：把 readinessProbe 的 initialDelaySeconds 调到 15，因为冷启动要先加载模型。' }],
      },
      { title: 'Scripted title' },
    ),
  )
  home = await createDshHome({ profile: 'headless', modelUrl: server.url })
  for (const prompt of ['Why does the CI build fail on main?', 'run the tests', '为什么部署超时？']) {
    const run = await home.run(prompt, { cwd: home.home })
    expect(run.code, `${run.stderr}\n${run.log}`).toBe(0)
  }
}, 240_000)

afterAll(async () => {
  await server?.close()
})

describe('dsh-knowledge import', () => {
  it("writes, from dsh's own session logs, exactly the documents live capture wrote", async () => {
    const live = allDocuments(home.knowledgeRoot)
    expect(live).toHaveLength(2)
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-import-')), 'kb')
    const run = await cli(['import', '--dsh-home', home.home, '--root', root, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const summary = JSON.parse(run.stdout)
    expect(summary).toMatchObject({ sessions: 3, rounds: 3, kept: 2, dropped: 1, failed: 0, skipped: 0, unreadable: [] })
    expect(summary.redacted).toBeGreaterThanOrEqual(1)
    expect(allDocuments(root)).toEqual(live)
    for (const doc of allDocuments(root)) expect(doc.text).not.toContain(GH_TOKEN)
    // The ledger tells the same story as live capture's.
    const kinds = (r: string) =>
      ledgerEntries(r)
        .map((e) => `${e.type}:${e.session}:${e.turn}`)
        .sort()
    expect(kinds(root)).toEqual(kinds(home.knowledgeRoot))

    const again = JSON.parse((await cli(['import', '--dsh-home', home.home, '--root', root, '--json'])).stdout)
    expect(again).toMatchObject({ kept: 0, dropped: 0, skipped: 3 })
    // Said in words too: a second run imported nothing, and its first line says so (issue 28, item 21).
    const text = await cli(['import', '--dsh-home', home.home, '--root', root])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.split('\n')[0]).toBe('nothing new imported: all 3 round(s) of 3 session(s) are already known')
    expect(text.stdout).not.toMatch(/^imported:/m)
    expect(allDocuments(root)).toEqual(live)
    expect(ledgerEntries(root)).toHaveLength(ledgerEntries(home.knowledgeRoot).length)
  }, 180_000)

  it('skips rounds live capture already recorded in the same root', async () => {
    const run = await cli(['import', '--dsh-home', home.home, '--root', home.knowledgeRoot, '--json'])
    expect(JSON.parse(run.stdout)).toMatchObject({ sessions: 3, kept: 0, skipped: 3 })
  }, 180_000)

  it('reports a corrupt session log, imports a cut-short one up to the cut, and a dry run writes nothing', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'dsh-ks-import-home-'))
    cpSync(join(home.home, 'sessions'), join(copy, 'sessions'), { recursive: true })
    const project = join(copy, 'sessions', readdirSync(join(copy, 'sessions'))[0])
    // Which folder holds which prompt: the documents' front matter names the sessions.
    const kept = allDocuments(home.knowledgeRoot).map((d) => /^session: (.+)$/m.exec(d.text)![1])
    const log = (session: string) => join(project, session, 'session.jsonl.zstd')
    const [cut, corrupt] = kept
    const bytes = readFileSync(log(cut))
    writeFileSync(log(cut), bytes.subarray(0, Math.floor(bytes.length * 0.4)))
    const damaged = Buffer.from(readFileSync(log(corrupt)))
    for (let i = damaged.length >> 1; i < (damaged.length >> 1) + 64; i++) damaged[i] ^= 0x55
    writeFileSync(log(corrupt), damaged)
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-import-')), 'kb')
    const dry = JSON.parse((await cli(['import', '--dsh-home', copy, '--root', root, '--dry-run', '--json'])).stdout)
    expect(allDocuments(root)).toHaveLength(0)
    expect(ledgerEntries(root)).toHaveLength(0)
    const run = await cli(['import', '--dsh-home', copy, '--root', root, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const summary = JSON.parse(run.stdout)
    expect(summary).toEqual({ ...dry, dryRun: false })
    expect(summary.unreadable.map((u: { session: string }) => u.session)).toEqual([corrupt])
    expect(summary.unreadable[0].error).toMatch(/corrupt/i)
    // The cut log's turn has no turn/end: counted as interrupted, as live capture counts a turn cut by a crash.
    expect(ledgerEntries(root).filter((e) => e.type === 'unanswered')).toMatchObject([{ session: cut, outcome: 'interrupted' }])
    expect(summary).toMatchObject({ sessions: 2, dropped: 1, unanswered: 1, kept: 0, failed: 0 })
  }, 180_000)

  it('refuses a zstd log that expands past the cap and a symlinked FIFO log at once, and imports the rest', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'dsh-ks-import-home-'))
    cpSync(join(home.home, 'sessions'), join(copy, 'sessions'), { recursive: true })
    const project = join(copy, 'sessions', readdirSync(join(copy, 'sessions'))[0])
    const [bomb, fifo] = allDocuments(home.knowledgeRoot).map((d) => /^session: (.+)$/m.exec(d.text)![1])
    // 20 frames of 16 MiB of zeros: about 10 KB on disk, 320 MiB decompressed, over the 256 MiB cap.
    const frame = zstdCompressSync(Buffer.alloc(16 * 1024 * 1024))
    writeFileSync(join(project, bomb, 'session.jsonl.zstd'), Buffer.concat(Array.from({ length: 20 }, () => frame)))
    rmSync(join(project, fifo, 'session.jsonl.zstd'))
    execFileSync('mkfifo', [join(copy, 'pipe')])
    symlinkSync(join(copy, 'pipe'), join(project, fifo, 'session.jsonl.zstd'))
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-import-')), 'kb')
    const run = await cli(['import', '--dsh-home', copy, '--root', root, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const summary = JSON.parse(run.stdout)
    const why = Object.fromEntries(summary.unreadable.map((u: { session: string; error: string }) => [u.session, u.error]))
    expect(why[bomb]).toMatch(/expands past 256 MiB/)
    expect(why[fifo]).toMatch(/symbolic link/)
    expect(summary).toMatchObject({ sessions: 1, failed: 0 })
  }, 180_000)

  it("runs from the dsh profile the bundle was installed into, with the profile's own dsh packages", async () => {
    const bin = join(home.home, 'profiles', home.profile, 'node_modules/dsh-knowledge-sync/lib/cli/bin.js')
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-import-')), 'kb')
    const run = await spawnCollect(process.execPath, [bin, 'import', '--dsh-home', home.home, '--root', root, '--json'], { cwd: tmpdir(), env: { ...process.env, NODE_PATH: '' } })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ sessions: 3, kept: 2, failed: 0 })
    expect(allDocuments(root)).toEqual(allDocuments(home.knowledgeRoot))
  }, 180_000)

  it('selects sessions by --session and --since, and names a missing home clearly', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-import-')), 'kb')
    const future = JSON.parse((await cli(['import', '--dsh-home', home.home, '--root', root, '--since', '2999-01-01', '--json'])).stdout)
    expect(future.sessions).toBe(0)
    const missing = await cli(['import', '--dsh-home', join(tmpdir(), 'no-such-dsh-home'), '--root', root])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no dsh session logs at .*no-such-dsh-home/)
  }, 180_000)
})
