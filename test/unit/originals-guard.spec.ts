/**
 * The pre-execute guard's reading of tool calls, as a labelled set: each call is labelled "deny" (it would write
 * into the originals folder) or "allow" (it reads, or writes elsewhere). The first group was written before the
 * rules; the second ("found after") are cases thought of while attacking the rules, which made them grow (`cd`
 * moving the shell's folder, input redirections, here-documents, `cp` out of the folder being a read).
 */
import { describe, expect, it } from 'vitest'
import { writeIntoFolder } from '../../src/originals/guard.js'

const ROOT = '/team/kb'
const DIR = `${ROOT}/originals`
const CWD = ROOT

type Case = [label: 'deny' | 'allow', tool: string, args: Record<string, unknown>]

const BEFORE_RULES: Case[] = [
  ['deny', 'write', { file_path: 'originals/syllabus.docx', content: 'x' }],
  ['deny', 'write', { file_path: `${DIR}/a/b.md`, content: 'x' }],
  ['deny', 'edit', { file_path: 'originals/notes.md', old_string: 'a', new_string: 'b' }],
  ['deny', 'str_replace_editor', { command: 'create', path: `${DIR}/x.md`, file_text: 'x' }],
  ['deny', 'str_replace_editor', { command: 'str_replace', path: `${DIR}/x.md`, old_str: 'a', new_str: 'b' }],
  ['allow', 'str_replace_editor', { command: 'view', path: `${DIR}/x.md` }],
  ['allow', 'write', { file_path: 'notes/summary.md', content: 'x' }],
  ['allow', 'write', { file_path: 'originals-copy/x.md', content: 'x' }],
  ['allow', 'read', { file_path: 'originals/syllabus.docx' }],
  ['allow', 'grep', { pattern: 'price', path: 'originals' }],
  ['deny', 'bash', { command: 'echo hi > originals/a.txt' }],
  ['deny', 'bash', { command: 'echo hi >> ./originals/a.txt' }],
  ['deny', 'bash', { command: 'ls && rm -rf originals' }],
  ['deny', 'bash', { command: 'mv originals/a.pdf /tmp/' }],
  ['deny', 'bash', { command: 'cp ~/Downloads/x.pdf originals/' }],
  ['deny', 'bash', { command: 'sed -i s/old/new/ originals/list.csv' }],
  ['deny', 'bash', { command: 'curl -o originals/page.html https://example.com' }],
  ['deny', 'bash', { command: 'echo x | tee -a originals/log.txt' }],
  ['deny', 'bash', { command: 'touch x', workdir: 'originals' }],
  ['allow', 'bash', { command: 'cat originals/a.txt | grep price' }],
  ['allow', 'bash', { command: 'sed s/old/new/ originals/list.csv > /tmp/out.csv' }],
  ['allow', 'bash', { command: 'ls -la originals && wc -l originals/*.csv' }],
  ['allow', 'bash', { command: 'echo done 2>&1' }],
]

const FOUND_AFTER: Case[] = [
  ['deny', 'bash', { command: 'cd originals && rm old.pdf' }],
  ['deny', 'bash', { command: 'cd /tmp; cd /team/kb/originals; touch x' }],
  ['allow', 'bash', { command: 'cd originals && ls' }],
  ['allow', 'bash', { command: 'cp originals/a.pdf /tmp/a.pdf' }],
  ['allow', 'bash', { command: 'wc -l < originals/list.csv' }],
  ['deny', 'bash', { command: 'cat > originals/new.md <<EOF\nhello\nEOF' }],
  ['deny', 'bash', { command: 'printf x >| originals/a' }],
  ['deny', 'bash', { command: 'make &> originals/build.log' }],
  ['deny', 'bash', { command: 'echo x > "$KB/originals/a.txt"' }],
  ['deny', 'bash', { command: 'dd if=/dev/zero of=originals/zero bs=1 count=1' }],
  ['deny', 'bash', { command: 'unzip pack.zip -d originals' }],
  ['deny', 'bash', { command: 'sudo rm originals/a' }],
  ['deny', 'bash', { command: "echo 'quoted' > 'originals/with space.txt'" }],
  ['deny', 'pwsh', { command: 'Set-Content -Path originals/a.txt -Value x' }],
  ['allow', 'bash', { command: 'unzip -l originals/pack.zip' }],
  ['deny', 'bash', { command: 'rm ../originals/a', workdir: '/team/kb/sub' }],
]

describe('the pre-execute guard (labelled set)', () => {
  for (const [group, cases] of [
    ['before the rules', BEFORE_RULES],
    ['found after', FOUND_AFTER],
  ] as const)
    for (const [label, tool, args] of cases)
      it(`${group}: ${label} ${tool} ${JSON.stringify(args).slice(0, 90)}`, () => {
        const got = writeIntoFolder(tool, args, CWD, [DIR], 'originals')
        expect(got === undefined ? 'allow' : 'deny').toBe(label)
      })
})
