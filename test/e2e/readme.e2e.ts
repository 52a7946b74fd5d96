/**
 * The READMEs' "use it with a real model" lines, replayed exactly as written, in both languages, on a fresh DSH_HOME:
 * dsh installed from the registry at the pinned version into a scratch npm prefix, the rc.8 workarounds, the packed
 * bundle, the key, and the start. The scripted model server stands in for the real model (DEEPSEEK_BASE_URL), and the
 * web start gets the test-only `--host 127.0.0.1 --port 0 --no-open` so it can run beside other servers; nothing
 * else differs from what a reader types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

type Profile = 'web' | 'headless'

/** The commands of the block marked `<!-- readme-replay: <profile> -->`, comments stripped. */
export function replayBlock(readme: string, profile: Profile): string[] {
  const marker = `<!-- readme-replay: ${profile} -->`
  const start = readme.indexOf(marker)
  if (start < 0) throw new Error(`no ${marker} in the README`)
  const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(start))![1]
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean)
}

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

/** Runs `lines` in one bash (so `source` and `export` carry over) with a fresh DSH_HOME; `onOutput` may stop it. */
function replay(lines: string[], onOutput?: (output: string, stop: () => void) => void): Promise<Replay> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-ks-readme-home-'))
  const knowledge = join(home, 'knowledge')
  const script = ['set -euo pipefail', ...lines.slice(0, -1), `exec ${lines.at(-1)}`].join('\n')
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DSH_HOME: home,
        DSH_KNOWLEDGE_ROOT: knowledge,
        DEEPSEEK_BASE_URL: server.url,
        npm_config_prefix: npmPrefix,
        npm_config_loglevel: 'error',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        PATH: `${join(npmPrefix, 'bin')}:${process.env.PATH}`,
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

describe("the READMEs' real-model set-up, replayed verbatim", () => {
  it('says the same commands in English and Chinese, for both profiles', () => {
    for (const profile of ['web', 'headless'] as const) {
      expect(replayBlock(readmes.zh, profile)).toEqual(replayBlock(readmes.en, profile))
      expect(replayBlock(readmes.en, profile).join('\n')).toContain('@deepseek-ai/dsh@0.1.0-rc.8')
    }
  })

  it('headless: installs dsh rc.8, applies the workarounds, adds the bundle and captures a round', async () => {
    const run = await replay(replayBlock(readmes.en, 'headless'))
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain(ANSWER)
    expect(run.output).not.toMatch(/missing peer|registerConfig|HMR service/)
    const docs = allDocuments(run.knowledge)
    expect(docs).toHaveLength(1)
    expect(docs[0].text).toContain(ANSWER)
  }, 600_000)

  it("web: the same lines start dsh web with the bundle's routes live", async () => {
    const lines = replayBlock(readmes.en, 'web')
    lines[lines.length - 1] += ' --host 127.0.0.1 --port 0 --no-open'
    let url = ''
    let stats: { status: number; body: any } | undefined
    const run = await replay(lines, (output, stop) => {
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
    })
    expect(url, run.output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(stats?.status).toBe(200)
    expect(stats?.body.documents).toBe(0)
    expect(run.output).not.toMatch(/missing peer|registerConfig|HMR service/)
  }, 600_000)
})
