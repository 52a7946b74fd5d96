/**
 * The tree memo (knowledge/disk/tree-memo.ts) spares a fresh CLI command the listing of every folder (issue 30): a
 * folder whose mtime and ctime are what the last walk recorded is taken from the memo. It must never change what the
 * walk finds: real folders under a real root (nested, an originals folder, `node_modules`, dot folders, linked
 * documents), changed at random and walked with and without the memo after each change; and, since the memo lies in
 * the root's cache folder, which someone else's push may fill, every malformed or hostile memo is ignored whole.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { listFiles, walkDocuments } from '../../src/knowledge/disk/list-files.js'
import { type MemoWalk, readTreeMemo, type TreeMemo, writeTreeMemo } from '../../src/knowledge/disk/tree-memo.js'
import { mulberry32 } from '../harness/rng.ts'

const cleanup: string[] = []
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A root of nested folders with what the walk must skip or report beside the documents. */
function tree(): string {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-tree-memo-')), 'kb')
  cleanup.push(join(root, '..'))
  for (const dir of ['a', 'a/b', 'a/b/c', 'd', 'node_modules/x', '.hidden', 'e/originals/.manifest', 'deep/1/2/3/4/5/6/7/8/9']) mkdirSync(join(root, dir), { recursive: true })
  for (const file of [
    'top.md',
    'a/one.md',
    'a/b/two.md',
    'a/b/c/three.md',
    'd/four.md',
    'd/notes.txt',
    'node_modules/x/no.md',
    '.hidden/no.md',
    'e/originals/kept.md',
    'deep/1/2/3/4/5/6/7/8/eight.md',
    'deep/1/2/3/4/5/6/7/8/9/nine.md',
  ])
    writeFileSync(join(root, file), `# ${file}\n`)
  symlinkSync(join(root, 'top.md'), join(root, 'd', 'linked.md'))
  return root
}

const memoOf = (root: string) => join(root, '.knowledge', 'cache', 'tree-v1.memo')

/** What a walk finds: the files (relative) and the links reported. */
async function walked(root: string, memo?: MemoWalk) {
  const invalid = new Map<string, string>()
  const files = (await walkDocuments(root, invalid, memo)).map((full) => full.slice(root.length + 1)).sort()
  return { files, invalid: [...invalid.keys()].sort() }
}

describe('the tree memo', () => {
  let waited = false
  // A folder's listing is trusted once it is RACY_MS (2 s) older than the walk that recorded it (a change within the
  // file system's timestamp granularity leaves its times as they were): one wait of the wall clock, not of the machine.
  const settle = async () => {
    if (!waited) await new Promise((resolve) => setTimeout(resolve, 2100))
    waited = true
  }
  beforeAll(() => {
    waited = false
  })

  it('finds what a full walk finds, over 40 random changes, and lists again only the folders that changed', async () => {
    const root = tree()
    const file = memoOf(root)
    await listFiles(root, new Map(), undefined, { memo: file })
    await settle()
    // Recorded again once settled: from here every unchanged folder is taken from the memo.
    const first = { previous: readTreeMemo(root, file), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
    expect(await walked(root, first)).toEqual(await walked(root))
    expect(first.listed).toBeGreaterThan(0)
    await writeTreeMemo(root, file, first.next)
    const steady = { previous: readTreeMemo(root, file), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
    expect(await walked(root, steady)).toEqual(await walked(root))
    expect(steady.listed).toBe(0)
    // (Each holds only folders no round picks; the eighth level holds one a round may remove.)
    const untouched = ['e', 'deep', 'deep/1', 'deep/1/2', 'deep/1/2/3', 'deep/1/2/3/4', 'deep/1/2/3/4/5', 'deep/1/2/3/4/5/6']
    const random = mulberry32(7)
    const folders = () => ['', 'a', 'a/b', 'a/b/c', 'd', 'deep/1/2/3/4/5/6/7/8'].filter((dir) => readdirSafe(join(root, dir)))
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
    const kinds = new Set<string>()
    for (let round = 0; round < 40; round++) {
      const dir = pick(folders())
      const here = join(root, dir)
      const docs = (readdirSafe(here) ?? []).filter((name) => name.endsWith('.md'))
      const kind = pick(['add', 'remove', 'rename', 'new folder', 'remove folder', 'link', 'folder as link', 'edit in place', 'originals'])
      if (kind === 'add') writeFileSync(join(here, `n${round}.md`), 'new')
      else if (kind === 'remove' && docs.length) rmSync(join(here, pick(docs)), { force: true })
      else if (kind === 'rename' && docs.length) renameSync(join(here, pick(docs)), join(here, `r${round}.md`))
      else if (kind === 'new folder') mkdirSync(join(here, `f${round}`)), writeFileSync(join(here, `f${round}`, 'in.md'), 'in')
      else if (kind === 'remove folder' && dir !== '') rmSync(here, { recursive: true, force: true })
      else if (kind === 'link') symlinkSync(join(root, 'top.md'), join(here, `l${round}.md`))
      else if (kind === 'folder as link' && dir !== '') rmSync(here, { recursive: true, force: true }), symlinkSync(join(root, 'a'), here)
      else if (kind === 'edit in place' && docs.length) writeFileSync(join(here, pick(docs)), `edited ${round}`)
      else if (kind === 'originals') mkdirSync(join(here, '.manifest'), { recursive: true })
      kinds.add(kind)
      const previous = readTreeMemo(root, file)
      expect(previous, `round ${round}: the memo reads back`).toBeDefined()
      const memo = { previous, next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
      expect(await walked(root, memo), `round ${round}: ${kind} in '${dir}'`).toEqual(await walked(root))
      // Folders no round changes are taken from the memo as they are, never listed again.
      for (const rel of untouched) expect(memo.next.folders.get(rel), `round ${round}: ${rel}`).toBe(previous?.folders.get(rel))
      expect(memo.listed, `round ${round}: ${kind}`).toBeLessThan(memo.next.folders.size - untouched.length + 1)
      await writeTreeMemo(root, file, memo.next)
    }
    expect(kinds.size).toBe(9)
  }, 20_000)

  it('reads back what it wrote', async () => {
    const root = tree()
    const memo: MemoWalk = { next: { startedAt: 1_700_000_000_123.5, folders: new Map() }, listed: 0 }
    await walked(root, memo)
    await writeTreeMemo(root, memoOf(root), memo.next)
    const back = readTreeMemo(root, memoOf(root)) as TreeMemo
    expect(back.startedAt).toBe(memo.next.startedAt)
    expect([...back.folders]).toEqual([...memo.next.folders])
    // The walk's depth bound and its skips are in what it recorded: nothing below 8 folders, no dot or module folder.
    expect([...back.folders.keys()].some((rel) => rel.split('/').length > 9 || rel.includes('node_modules') || rel.includes('.hidden'))).toBe(false)
    expect(back.folders.get('e')?.folders).toEqual(['originals'])
    expect(back.folders.get('e/originals')?.originals).toBe(true)
  })

  it('ignores a memo that is not what the walk writes, whole: the walk lists every folder and finds the same', async () => {
    const root = tree()
    const file = memoOf(root)
    const memo: MemoWalk = { next: { startedAt: Date.now() + 3_600_000, folders: new Map() }, listed: 0 }
    await walked(root, memo)
    await writeTreeMemo(root, file, memo.next)
    const good = readFileSync(file, 'utf8')
    expect(readTreeMemo(root, file)).toBeDefined()
    const full = await walked(root)
    const forged: Array<[string, string]> = [
      // A name with a separator, or a step up: a path outside its folder.
      ['a separator in a name', good.replace('\0one.md\0', '\0../../etc/passwd\0')],
      ['a name that is ..', good.replace('\0one.md\0', '\0..\0')],
      ['an empty name', good.replace('\0one.md\0', '\0\0')],
      ['torn', good.slice(0, Math.floor(good.length / 2))],
      ['a count past the end', good.replace(/^([^\0]*\0[^\0]*\0-1\0-\0[^\0]*\0[^\0]*\0-\0)\d+/, '$19999999')],
      ['another magic', good.replace('dsh-knowledge-tree-v1', 'dsh-knowledge-tree-v0')],
      ['times not numbers', good.replace(/^([^\0]*\0[^\0]*\0-1\0-\0)[^\0]*/, '$1soon')],
      ['a folder before its parent', good.replace(/^([^\0]*\0[^\0]*\0)-1\0/, '$10\0')],
      ['empty', ''],
    ]
    for (const [what, text] of forged) {
      writeFileSync(file, text)
      expect(readTreeMemo(root, file), what).toBeUndefined()
      const again: MemoWalk = { previous: readTreeMemo(root, file), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
      expect(await walked(root, again), what).toEqual(full)
    }
    // Not a regular file, or a link to one (to another root's memo, say): never read.
    rmSync(file)
    symlinkSync(join(root, 'elsewhere.memo'), file)
    writeFileSync(join(root, 'elsewhere.memo'), good)
    expect(readTreeMemo(root, file)).toBeUndefined()
    rmSync(file)
    mkdirSync(file)
    expect(readTreeMemo(root, file)).toBeUndefined()
  })

  it('lists a folder again whose ctime moved, its mtime put back, after the clock went back (the racy rule cannot tell)', async () => {
    const root = tree()
    const file = memoOf(root)
    // Recorded "an hour from now": what a clock set back by an hour afterwards makes of every later change.
    // (A whole second: put back exactly.)
    const second = Math.floor(Date.now() / 1000) - 60
    utimesSync(join(root, 'a'), second, second)
    const recorded: MemoWalk = { next: { startedAt: Date.now() + 3_600_000, folders: new Map() }, listed: 0 }
    await walked(root, recorded)
    await writeTreeMemo(root, file, recorded.next)
    writeFileSync(join(root, 'a', 'added.md'), 'added')
    utimesSync(join(root, 'a'), second, second)
    expect(statSync(join(root, 'a')).mtimeMs).toBe(recorded.next.folders.get('a')?.mtimeMs)
    const memo: MemoWalk = { previous: readTreeMemo(root, file), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
    const found = await walked(root, memo)
    expect(found.files).toContain('a/added.md')
    expect(found).toEqual(await walked(root))
    // The rest stands as recorded (the root too was listed again: the memo's own folder was made in it since).
    expect(memo.next.folders.get('d')).toBe(memo.previous?.folders.get('d'))
  })

  it('lists a folder again when a memo names other times for it, even one that says it lists nothing there', async () => {
    const root = tree()
    const file = memoOf(root)
    // A pushed memo that would hide every document: it names times of another machine, and is not trusted.
    const hiding: TreeMemo = { startedAt: Date.now() + 3_600_000, folders: new Map([['', { mtimeMs: 1, ctimeMs: 1, originals: false, files: [], folders: [], links: [] }]]) }
    await writeTreeMemo(root, file, hiding)
    expect(readTreeMemo(root, file)).toBeDefined()
    const memo: MemoWalk = { previous: readTreeMemo(root, file), next: { startedAt: Date.now(), folders: new Map() }, listed: 0 }
    expect(await walked(root, memo)).toEqual(await walked(root))
    expect(memo.listed).toBeGreaterThan(5)
  })
})

function readdirSafe(dir: string): string[] | undefined {
  try {
    return readdirSync(dir)
  } catch {
    return undefined
  }
}
