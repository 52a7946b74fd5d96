#!/usr/bin/env node
/**
 * Nothing a user needs is lost when the README shrinks: every paragraph, list item and table row of the README at an
 * older revision must still be found, word for word (whitespace aside), in README + docs/ of the same language.
 * Links rewritten for their new place (`docs/x.md` → `x.md`, a quoted section name → a link to its file) and room
 * paths (`src/knowledge/commit.ts` → `src/knowledge/writes/commit.ts`) count as the same text. Prints what is missing.
 *   node scripts/check-readme-moved.mjs <old-revision>        (exit 1 when a block is missing)
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const revision = process.argv[2]
if (!revision) {
  console.error('usage: node scripts/check-readme-moved.mjs <old-revision>')
  process.exit(2)
}
const flat = (text) =>
  text
    .replace(/\]\(docs\//g, '](')
    .replace(/\[([^\]]+)\]\((?:\.\.\/)?[\w.-]+\.md(?:#[^)]*)?\)/g, '$1')
    .replace(/\[([^\]]+)\]\(#[^)]*\)/g, '$1')
    .replace(/src\/knowledge\/(?:writes|corrections)\//g, 'src/knowledge/')
    .split(/\s+/)
    .join(' ')
/** Paragraphs, list items and table rows longer than a heading. */
const blocks = (text) =>
  text
    .split(/\n\s*\n/)
    .flatMap((p) => p.split(/\n(?=- |\| )/))
    .map(flat)
    .filter((b) => b.length > 25)

let missing = 0
for (const [readme, zh] of [
  ['README.md', false],
  ['README.zh.md', true],
]) {
  const old = execFileSync('git', ['-C', root, 'show', `${revision}:${readme}`], { encoding: 'utf8' })
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && f.endsWith('.zh.md') === zh)
    .map((f) => join(root, 'docs', f))
  const now = [join(root, readme), ...docs].map((f) => flat(readFileSync(f, 'utf8'))).join(' ')
  const lost = blocks(old).filter((b) => !now.includes(b))
  missing += lost.length
  console.log(`${readme}: ${blocks(old).length - lost.length} of ${blocks(old).length} blocks found in ${readme} + docs/`)
  for (const b of lost) console.log(`  not found: ${b.slice(0, 150)}…`)
}
process.exit(missing ? 1 : 0)
