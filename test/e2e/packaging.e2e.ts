/**
 * The packed bundle: every module the patch references is built and packed, and `dsh plugin add` of the tarball
 * puts a `# == dsh-knowledge-sync` layer with all rows into the profile.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { createDshHome, packedTarball, PROJECT_ROOT } from '../harness/dsh.ts'

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'))
const patch = parse(readFileSync(join(PROJECT_ROOT, 'cordis.patch.yml'), 'utf8')) as Array<{ insert: Array<{ id: string; name: string; config?: unknown }> }>
const rows = patch.flatMap((entry) => entry.insert ?? [])
const ROW_IDS = ['knowledge', 'knowledge-capture', 'knowledge-note', 'knowledge-recall', 'knowledge-http', 'knowledge-sync', 'knowledge-wiki', 'knowledge-originals', 'knowledge-client']

/** `dsh-knowledge-sync/capture` → `./lib/capture/index.js` through the exports map. */
function exportTarget(name: string): string {
  const sub = name === pkg.name ? '.' : `./${name.slice(pkg.name.length + 1)}`
  const target = pkg.exports[sub]
  if (!target) throw new Error(`no export ${sub} for row ${name}`)
  return target
}

describe('the packed bundle', () => {
  it('declares every documented row, each by package subpath', () => {
    expect(rows.map((r) => r.id)).toEqual(ROW_IDS)
    for (const row of rows) {
      expect(row.name === pkg.name || row.name.startsWith(`${pkg.name}/`)).toBe(true)
      expect(row.name).not.toMatch(/\.js$|^\.|\/lib\//)
    }
  })

  it('has every referenced module built in lib/, and the browser module', () => {
    for (const row of rows) expect(existsSync(join(PROJECT_ROOT, exportTarget(row.name))), row.name).toBe(true)
    expect(existsSync(join(PROJECT_ROOT, pkg.exports['./client']))).toBe(true)
    expect(readFileSync(join(PROJECT_ROOT, 'lib/client.js'), 'utf8')).toMatch(/^window\.__ModuleLoader__\.load\(\{ id: "dsh-knowledge-sync"/)
  })

  it('exports each row the way the Loader needs it: named name/apply/Config, inject kept, no default export', async () => {
    for (const row of rows) {
      const mod = await import(join(PROJECT_ROOT, exportTarget(row.name)))
      expect(mod.default, row.id).toBeUndefined()
      expect(typeof mod.apply, row.id).toBe('function')
      if (row.id !== 'knowledge-client') {
        expect(typeof mod.name).toBe('string')
        expect(typeof mod.Config, row.id).toBe('function')
        // Defaults apply: the schema fills a complete config from nothing.
        expect(() => mod.Config({})).not.toThrow()
      }
      if (['knowledge-capture', 'knowledge-note', 'knowledge-recall', 'knowledge-http', 'knowledge-sync', 'knowledge-wiki', 'knowledge-originals'].includes(row.id))
        expect(mod.inject).toContain('knowledge')
    }
  })

  it('packs the modules, the patches, the READMEs and the docs they link, and nothing from test/ or bench/', () => {
    const list = execFileSync('tar', ['-tzf', packedTarball()], { encoding: 'utf8' }).split('\n').filter(Boolean)
    for (const row of rows) expect(list).toContain(`package/${exportTarget(row.name).slice(2)}`)
    expect(list).toContain('package/cordis.patch.yml')
    expect(list).toContain('package/lib/client.js')
    expect(list).toContain('package/lib/cli/bin.js')
    // The wiki's skills are read from the package at run time.
    for (const skill of ['knowledge-ingest', 'knowledge-query', 'knowledge-lint']) expect(list).toContain(`package/skills/${skill}/SKILL.md`)
    expect(list).toContain('package/README.md')
    // The "Elsewhere" set-up copies the rc.8 patch out of the installed bundle; the README's map links docs/.
    expect(list).toContain('package/patches/dsh-rc8.patch.yml')
    expect(list).toContain('package/docs/configuration.md')
    expect(list).toContain('package/docs/configuration.zh.md')
    expect(list.some((f) => /^package\/(test|bench|src|client)\//.test(f))).toBe(false)
  })

  it('installs with `dsh plugin add` and shows a dsh-knowledge-sync layer with all rows in --dump-config', async () => {
    const home = await createDshHome({ profile: 'headless' })
    const installed = JSON.parse(readFileSync(join(home.home, 'profiles/headless/package.json'), 'utf8'))
    expect(installed.dsh.profile.bundles).toContain('dsh-knowledge-sync')
    const dump = await home.dumpConfig()
    expect(dump.code, dump.stderr).toBe(0)
    const layer = dump.stdout.split(/^# == /m).find((part) => part.startsWith('dsh-knowledge-sync'))
    expect(layer, dump.stdout.slice(0, 2000)).toBeDefined()
    for (const id of ROW_IDS) expect(layer).toContain(`- id: ${id}\n`)
  }, 180_000)
})
