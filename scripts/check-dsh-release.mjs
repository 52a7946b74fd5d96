#!/usr/bin/env node
// Checks, against the npm registry, what the READMEs say about which dsh to install: that the `latest` tag of
// @deepseek-ai/dsh still cannot be installed (its @deepseek-ai/dsh-app-boot range matches no published version) and
// that 0.1.0-rc.8 still resolves. Run by hand (needs the network): node scripts/check-dsh-release.mjs
// Exit 0: the README statement holds. Exit 1: it no longer holds — update the "Which dsh" paragraph of both READMEs.
import { execFileSync } from 'node:child_process'

const view = (spec, field) => JSON.parse(execFileSync('npm', ['view', spec, field, '--json'], { encoding: 'utf8' }) || 'null')
/** Whether any published version satisfies a simple `^x.y.z[-pre]` or exact range (the forms dsh uses). */
function satisfiable(range, versions) {
  const base = range.replace(/^[\^~]/, '')
  if (!range.startsWith('^')) return versions.includes(base)
  const [major, minor] = base.split('.')
  const cmp = (a, b) => a.localeCompare(b, undefined, { numeric: true })
  return versions.some((v) => v.split('.')[0] === major && (major !== '0' || v.split('.')[1] === minor) && cmp(v, base) >= 0)
}

const tags = view('@deepseek-ai/dsh', 'dist-tags')
const latest = tags.latest
const deps = view(`@deepseek-ai/dsh@${latest}`, 'dependencies') ?? {}
const bootRange = deps['@deepseek-ai/dsh-app-boot']
const bootVersions = view('@deepseek-ai/dsh-app-boot', 'versions') ?? []
const rc8 = view('@deepseek-ai/dsh@0.1.0-rc.8', 'version')
const latestInstallable = bootRange ? satisfiable(bootRange, bootVersions) : true
console.log(
  `@deepseek-ai/dsh latest: ${latest}; its @deepseek-ai/dsh-app-boot range ${bootRange ?? '(none)'} ${latestInstallable ? 'is' : 'is NOT'} satisfiable; 0.1.0-rc.8 ${rc8 ? 'is published' : 'is MISSING'}`,
)
if (latestInstallable || !rc8) {
  console.log('The READMEs\' "Which dsh" paragraph no longer holds: update it (and scripts/dsh/package.json if a newer dsh works).')
  process.exit(1)
}
console.log('The READMEs hold: install @deepseek-ai/dsh@0.1.0-rc.8.')
