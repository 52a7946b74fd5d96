/**
 * The CLI starts lean: `--help`, `redact` and `capture --dry-run` never load SQLite, a search loads the bundle and not
 * the redaction rules or picomatch, no command prints node:sqlite's
 * ExperimentalWarning (other warnings still print), a second search reuses the persisted index, and a user who
 * installed the bundle with the real `dsh plugin add` runs the CLI with the one command the README documents.
 * Build first (`bash scripts/bootstrap.sh`).
 */
import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT, createDshHome } from '../harness/dsh.ts'

const BIN = join(PROJECT_ROOT, 'lib/cli/bin.js')
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `dsh-ks-lean-${name}-`))
const ROUND = JSON.stringify({
  session: 'session-77778888-0000-4000-8000-000000000000',
  turn: 1,
  cwd: '/ws',
  outcome: 'completed',
  question: 'Why does pnpm install fail with ERR_PNPM_FETCH_404 on the CI runner?',
  answer:
    'The lockfile pointed at the internal registry mirror, which returned 404 for the tarball. Setting `registry=` in .npmrc to the public registry and regenerating the lockfile fixed ERR_PNPM_FETCH_404.',
  tools: [{ name: 'bash', arguments: '{"command":"pnpm install"}', result: 'ERR_PNPM_FETCH_404', isError: true }],
})

interface Result {
  code: number | null
  stdout: string
  stderr: string
  sqlite: string[]
}

/**
 * Runs a command with the warnings a user would see (no NODE_OPTIONS from the test environment, which silences
 * them) and a preload that reports, at exit, whether node:sqlite was loaded.
 */
function run(command: string, args: string[], options: { input?: string; preload?: string } = {}): Promise<Result> {
  const dir = tmp('probe')
  const out = join(dir, 'modules.json')
  const probe = join(dir, 'probe.cjs')
  writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList.filter((m) => /sqlite/i.test(m)))))\n${options.preload ?? ''}`,
  )
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', NODE_OPTIONS: `--require ${probe}` }
  delete env.DSH_KNOWLEDGE_ROOT
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd: dir })
    let stdout = '',
      stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => {
      let sqlite: string[] = []
      try {
        sqlite = JSON.parse(readFileSync(out, 'utf8'))
      } catch {
        /* the probe did not run */
      }
      resolve({ code, stdout, stderr, sqlite })
    })
    // `--help` and the like exit without reading stdin: EPIPE is theirs to cause (see test/harness/spawn.ts).
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error)
    })
    child.stdin.end(options.input ?? '')
  })
}
const cli = (args: string[], options?: { input?: string; preload?: string }) => run(process.execPath, [BIN, ...args], options)

describe('the CLI starts lean', () => {
  it('does not load SQLite for --help, redact and capture --dry-run', async () => {
    const root = tmp('root')
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage:')
    const redact = await cli(['redact'], { input: 'token ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m' })
    expect(redact.code, redact.stderr).toBe(0)
    expect(redact.stdout).toContain('[REDACTED')
    const dry = await cli(['capture', '--dry-run', '--root', root], { input: ROUND })
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout).kept).toBe(true)
    for (const r of [help, redact, dry]) {
      expect(r.sqlite).toEqual([])
      expect(r.stderr).toBe('')
    }
    // The probe works: a search does load it.
    const search = await cli(['search', 'anything', '--root', root])
    expect(search.sqlite.length).toBeGreaterThan(0)
  }, 180_000)

  it('a search loads the bundle (a few files of this package, not each module), not the redaction rules, not picomatch', async () => {
    const root = tmp('root')
    expect((await cli(['capture', '--root', root, '--json'], { input: ROUND })).code).toBe(0)
    // At exit: which files were loaded, and whether one of them holds the rules (redact/tokens.ts).
    const loaded = (dir: string) =>
      `const seen = []; require('node:module').registerHooks({ load(url, context, next) { const r = next(url, context); if (url.startsWith('file:')) seen.push({ url, rules: String(r.source).includes('function scanTokens') }); return r } })
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(join(dir, 'loaded.json'))}, JSON.stringify(seen)))`
    const probe = (dir: string) => JSON.parse(readFileSync(join(dir, 'loaded.json'), 'utf8')) as Array<{ url: string; rules: boolean }>
    const searchDir = tmp('search')
    const search = await cli(['search', 'ERR_PNPM_FETCH_404', '--root', root], { preload: loaded(searchDir) })
    expect(search.code, search.stderr).toBe(0)
    expect(search.stdout).toContain('77778888-t1')
    const loadedFiles = probe(searchDir)
    const files = loadedFiles.filter((f) => f.url.startsWith(`file://${PROJECT_ROOT}/lib/`))
    expect(files.some((f) => f.url.endsWith('/lib/cli/bundle/main.js'))).toBe(true)
    expect(files.length).toBeLessThan(40) // unbundled, a search loaded ~100
    expect(files.filter((f) => f.rules)).toEqual([])
    // Nor picomatch, which only a --tool glob needs (and then loads it).
    expect(loadedFiles.filter((f) => f.url.includes('/picomatch/'))).toEqual([])
    const toolDir = tmp('tool')
    const tool = await cli(['search', 'ERR_PNPM_FETCH_404', '--tool', 'ba*', '--root', root], { preload: loaded(toolDir) })
    expect(tool.stdout).toContain('77778888-t1')
    expect(probe(toolDir).some((f) => f.url.includes('/picomatch/'))).toBe(true)
    // The probe works: a dry-run capture redacts, and loads them.
    const dryDir = tmp('dry')
    const dry = await cli(['capture', '--dry-run', '--root', root], { input: ROUND, preload: loaded(dryDir) })
    expect(dry.code, dry.stderr).toBe(0)
    expect(probe(dryDir).some((f) => f.rules)).toBe(true)
  }, 180_000)

  it('prints no ExperimentalWarning for SQLite in any command, and still prints other warnings', async () => {
    const root = tmp('root')
    const runs = [
      await cli(['capture', '--root', root, '--json'], { input: ROUND }),
      await cli(['search', 'ERR_PNPM_FETCH_404', '--root', root]),
      await cli(['search', 'ERR_PNPM_FETCH_404', '--root', root, '--json']),
      await cli(['list', '--root', root]),
      await cli(['stats', '--root', root]),
      await cli(['read', '77778888-t1', '--root', root]),
    ]
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.sqlite.length).toBeGreaterThan(0)
      expect(r.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/)
    }
    expect(runs[1].stdout).toContain('77778888-t1')
    const other = await cli(['stats', '--root', root], { preload: `setImmediate(() => process.emitWarning('another experiment', 'ExperimentalWarning'))` })
    expect(other.stderr).toContain('ExperimentalWarning: another experiment')
    expect(other.stderr).not.toContain('SQLite')
  }, 180_000)

  it('runs from a profile after `dsh plugin add` with the documented command', async () => {
    const home = await createDshHome({ profile: 'headless' })
    // dsh links the profile's peer packages (Cordis, schemastery) at launch; a user has started dsh at least once.
    expect((await home.dumpConfig()).code).toBe(0)
    const root = tmp('root')
    // README: "${DSH_HOME:-$HOME/.dsh}/profiles/<profile>/node_modules/.bin/dsh-knowledge" <command> …
    const bin = join(home.home, 'profiles/headless/node_modules/.bin/dsh-knowledge')
    const env = { ...home.env }
    const captured = await new Promise<Result>((resolve, reject) => {
      const child = spawn('sh', ['-c', `"\${DSH_HOME:-$HOME/.dsh}/profiles/headless/node_modules/.bin/dsh-knowledge" capture --root "${root}" --json`], {
        env: { ...env, DSH_HOME: home.home },
        cwd: root,
      })
      let stdout = '',
        stderr = ''
      child.stdout.on('data', (d) => {
        stdout += d
      })
      child.stderr.on('data', (d) => {
        stderr += d
      })
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, stdout, stderr, sqlite: [] }))
      child.stdin.end(ROUND)
    })
    expect(captured.code, captured.stderr).toBe(0)
    expect(JSON.parse(captured.stdout).id).toBe('77778888-t1')
    const found = await run(bin, ['search', 'registry mirror 404', '--root', root])
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).toContain('77778888-t1')
    expect(found.stderr).toBe('')
  }, 180_000)
})
