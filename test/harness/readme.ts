/**
 * The READMEs' command blocks, found by their markers (`<!-- readme-replay: <name> -->` before a ```bash block): the
 * test replays them and the demo prints them, so what a reader copies is what was run.
 * Plain TypeScript that Node 22 runs with type stripping (scripts/demo.ts imports it).
 * @module dsh-knowledge-sync/test/harness/readme
 */

/** The lines of the bash block after `<!-- readme-replay: <name> -->`, exactly as written (comments included). */
export function readmeBlock(readme: string, name: string): string[] {
  const marker = `<!-- readme-replay: ${name} -->`
  const start = readme.indexOf(marker)
  if (start < 0) throw new Error(`no ${marker} in the README`)
  const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(start))
  if (!block) throw new Error(`no bash block after ${marker}`)
  return block[1].split('\n').filter((line) => line.trim())
}

/** The same lines as a shell runs them: comments stripped, blank lines dropped. */
export function replayBlock(readme: string, name: string): string[] {
  return readmeBlock(readme, name)
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean)
}

/** The row ids the README's "Verify" paragraph (after `<!-- readme-rows -->`) says `--dump-config` shows. */
export function readmeRows(readme: string): string[] {
  const start = readme.indexOf('<!-- readme-rows -->')
  if (start < 0) throw new Error('no <!-- readme-rows --> in the README')
  // The marker opens the paragraph: its first line is the marker itself.
  const paragraph = readme.slice(start).split('\n\n')[0]
  return [...paragraph.matchAll(/`(knowledge[\w-]*)`/g)].map((m) => m[1])
}
