/**
 * The originals folder and its manifest against the disk: adding without overwriting or duplicating, hand-copied
 * files, touches versus changes, missing and retired files, a file swapped for a link, a hostile manifest, names in
 * another Unicode normalisation, and the watcher.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { format } from 'node:util'
import { Readable } from 'node:stream'
import { OriginalsFolder } from '../../src/knowledge/originals/index.js'
import { watchFolder } from '../../src/originals/index.js'

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})

function fresh(now?: () => Date) {
  const root = mkdtempSync(join(tmpdir(), 'originals-folder-'))
  roots.push(root)
  const warnings: string[] = []
  const folder = new OriginalsFolder({ root, now, logger: { warn: (f, ...a) => warnings.push(format(f, ...a)), debug: () => {} } }).open()
  return { root, dir: join(root, 'originals'), folder, warnings }
}

const bytes = (text: string) => Readable.from([Buffer.from(text)])
const add = (folder: OriginalsFolder, text: string, dest: string, replaces?: string) => folder.add(bytes(text), dest, { kind: 'run' }, { maxBytes: 1024 * 1024, what: 'test', replaces })
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, '.manifest/manifest.json'), 'utf8'))

describe('adding', () => {
  it('records path, hash, size and provenance; the list shows no hash', async () => {
    const { folder, dir } = fresh()
    expect(await add(folder, 'hello', 'notes/a.txt')).toEqual({ path: 'notes/a.txt', existing: false })
    expect(readFileSync(join(dir, 'notes/a.txt'), 'utf8')).toBe('hello')
    const entry = manifestOf(dir).originals[0]
    expect(entry).toMatchObject({ path: 'notes/a.txt', size: 5, provenance: { kind: 'run' } })
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/)
    const listed = await folder.list()
    expect(listed).toMatchObject([{ path: 'notes/a.txt', status: 'present', type: 'text', size: 5 }])
    expect(JSON.stringify(listed)).not.toContain(entry.sha256)
  })

  it('never overwrites: an existing name is an error asking for another, and the file is untouched', async () => {
    const { folder, dir } = fresh()
    await add(folder, 'one', 'a.txt')
    await expect(add(folder, 'two', 'a.txt')).rejects.toThrow(/originals\/a\.txt already exists: nothing is ever overwritten; choose another name/)
    await expect(add(folder, 'two', 'A.TXT')).rejects.toThrow(/already exists/)
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one')
    expect(manifestOf(dir).originals).toHaveLength(1)
  })

  it('does not copy a byte-identical file again: it returns the path of the one there', async () => {
    const { folder, dir } = fresh()
    await add(folder, 'same bytes', 'first.txt')
    expect(await add(folder, 'same bytes', 'second.txt')).toEqual({ path: 'first.txt', existing: true })
    expect(existsSync(join(dir, 'second.txt'))).toBe(false)
  })

  it('a new version goes under a new name with replaces', async () => {
    const { folder } = fresh()
    await add(folder, 'v1', 'prices-2024.txt')
    await add(folder, 'v2', 'prices-2025.txt', 'prices-2024.txt')
    expect((await folder.list()).find((l) => l.path === 'prices-2025.txt')?.replaces).toBe('prices-2024.txt')
    await expect(add(folder, 'v3', 'x.txt', 'nope.txt')).rejects.toThrow(/replaces: originals\/nope\.txt is not an original/)
  })

  it('refuses names that leave the folder or hide in it', async () => {
    const { folder, root } = fresh()
    for (const bad of ['../escape.txt', '/etc/passwd', '.manifest/manifest.json', 'a/../../b', 'x\u0000y'])
      await expect(add(folder, 'x', bad)).rejects.toThrow(/must be relative|"\." or "\.\."|reserved|control character/)
    expect(existsSync(join(root, 'escape.txt'))).toBe(false)
  })

  it('is over the size cap: refused, and nothing is left behind', async () => {
    const { folder, dir } = fresh()
    await expect(folder.add(bytes('x'.repeat(2000)), 'big.txt', { kind: 'run' }, { maxBytes: 1000, what: 'big' })).rejects.toThrow(/big is larger than/)
    expect(existsSync(join(dir, 'big.txt'))).toBe(false)
  })
})

describe('the disk as it is', () => {
  it('a file copied in by hand is picked up as present, manual', async () => {
    const { folder, dir } = fresh()
    writeFileSync(join(dir, 'by-hand.pdf'), '%PDF-1.4 nothing')
    expect(await folder.list()).toMatchObject([{ path: 'by-hand.pdf', status: 'present', provenance: { kind: 'manual' }, type: 'pdf' }])
  })

  it('a touch does not move changedAt; a change of content does', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z')
    const { folder, dir } = fresh(() => new Date((t += 60_000)))
    await add(folder, 'content', 'a.txt')
    const before = (await folder.list())[0].changedAt
    utimesSync(join(dir, 'a.txt'), new Date(), new Date(Date.now() + 5000))
    expect((await folder.list())[0].changedAt).toBe(before)
    writeFileSync(join(dir, 'a.txt'), 'changed content')
    expect((await folder.list())[0].changedAt > before).toBe(true)
  })

  it('a known file that disappeared is missing; one that comes back is present again', async () => {
    const { folder, dir } = fresh()
    await add(folder, 'here', 'a.txt')
    unlinkSync(join(dir, 'a.txt'))
    expect((await folder.list())[0].status).toBe('missing')
    writeFileSync(join(dir, 'a.txt'), 'here')
    expect((await folder.list())[0].status).toBe('present')
  })

  it('a file swapped for a symbolic link: missing with the problem named, never read through the link', async () => {
    const { folder, dir, root } = fresh()
    await add(folder, 'real', 'a.txt')
    writeFileSync(join(root, 'secret.txt'), 'TOP SECRET')
    unlinkSync(join(dir, 'a.txt'))
    symlinkSync(join(root, 'secret.txt'), join(dir, 'a.txt'))
    const [item] = await folder.list()
    expect(item).toMatchObject({ status: 'missing', problem: 'originals/a.txt is a symbolic link; links are never followed' })
    await expect(folder.openForReading('a.txt')).rejects.toThrow(/originals\/a\.txt is a symbolic link/)
    await expect(folder.retire('a.txt', 'wrong', 'x')).rejects.toThrow(/symbolic link/)
    expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe('TOP SECRET')
  })

  it('finds a name in another Unicode normalisation (NFD on disk, NFC asked)', async () => {
    const { folder, dir } = fresh()
    writeFileSync(join(dir, 'Cafe\u0301-menu.txt'.normalize('NFD')), 'menu')
    const entry = await folder.resolve('Café-menu.txt'.normalize('NFC'))
    expect(entry.path).toBe('Café-menu.txt'.normalize('NFC'))
    const { fd } = await folder.openForReading('Café-menu.txt')
    expect(readFileSync(fd, 'utf8')).toBe('menu')
  })
})

describe('retiring', () => {
  it('moves the file to the hidden retired folder and records why, the reason and the replacement', async () => {
    const { folder, dir } = fresh()
    await add(folder, 'old prices', 'prices-old.txt')
    await add(folder, 'new prices', 'prices-new.txt')
    await expect(folder.retire('prices-old.txt', 'replaced', 'newer list')).rejects.toThrow(/needs replacedBy/)
    const entry = await folder.retire('prices-old.txt', 'replaced', 'newer list', 'prices-new.txt')
    expect(existsSync(join(dir, 'prices-old.txt'))).toBe(false)
    expect(readFileSync(join(dir, '.retired/prices-old.txt'), 'utf8')).toBe('old prices')
    expect(entry.retired).toMatchObject({ why: 'replaced', reason: 'newer list', replacedBy: 'prices-new.txt' })
    const listed = await folder.list()
    expect(listed.find((l) => l.path === 'prices-old.txt')).toMatchObject({ status: 'retired', retired: { why: 'replaced', replacedBy: 'prices-new.txt' } })
    expect(listed.find((l) => l.path === 'prices-new.txt')?.replaces).toBe('prices-old.txt')
    await expect(folder.openForReading('prices-old.txt')).rejects.toThrow(/is retired \(replaced: newer list\); use originals\/prices-new\.txt/)
    await expect(add(folder, 'another', 'prices-old.txt')).rejects.toThrow(/already exists/)
    await expect(add(folder, 'old prices', 'again.txt')).rejects.toThrow(/byte-identical to originals\/prices-old\.txt, retired/)
  })
})

describe('a hostile manifest', () => {
  it('drops entries that fail their checks (a path out of the folder, a bad hash) and keeps the rest', async () => {
    const { folder, dir, warnings } = fresh()
    await add(folder, 'good', 'good.txt')
    const m = manifestOf(dir)
    m.originals.push(
      { ...m.originals[0], path: '../../etc/passwd' },
      { ...m.originals[0], path: 'x.txt', sha256: 'nope' },
      { ...m.originals[0], path: 'y.txt', retired: { at: m.originals[0].addedAt, why: 'wrong', reason: '', storedAs: '../../../tmp/x' } },
    )
    writeFileSync(join(dir, '.manifest/manifest.json'), JSON.stringify(m))
    expect((await folder.list()).map((l) => l.path)).toEqual(['good.txt'])
    expect(warnings.join('\n')).toMatch(/must be relative|"\." or "\.\."/)
    expect(warnings.join('\n')).toMatch(/x\.txt: sha256 is not a hex digest/)
    expect(warnings.join('\n')).toMatch(/y\.txt: retired\.storedAs is outside the retired folder/)
  })

  it('a torn or non-JSON manifest is set aside (kept) and rebuilt from the files', async () => {
    const { folder, dir, warnings } = fresh()
    await add(folder, 'good', 'good.txt')
    writeFileSync(join(dir, '.manifest/manifest.json'), '{"originals": [ {"path": "go')
    expect((await folder.list()).map((l) => [l.path, l.provenance.kind])).toEqual([['good.txt', 'manual']])
    expect(warnings.join('\n')).toMatch(/is not valid JSON.*moved to .*manifest\.json\.unreadable-/)
  })

  it('a manifest that is a symbolic link is never read through it', async () => {
    const { folder, dir, root, warnings } = fresh()
    writeFileSync(join(root, 'elsewhere.json'), JSON.stringify({ originals: [] }))
    mkdirSync(join(dir, '.manifest'), { recursive: true })
    symlinkSync(join(root, 'elsewhere.json'), join(dir, '.manifest/manifest.json'))
    await folder.list()
    expect(warnings.join('\n')).toMatch(/symbolic link; the manifest is never read through a link/)
    expect(readFileSync(join(root, 'elsewhere.json'), 'utf8')).toBe(JSON.stringify({ originals: [] }))
  })
})

describe("the manifest's lock", () => {
  it('a lock file that is a symbolic link is refused naming it; its target is untouched, nothing is written', async () => {
    const { folder, dir, root } = fresh()
    writeFileSync(join(root, 'target'), 'keep me')
    symlinkSync(join(root, 'target'), join(dir, '.manifest/manifest.lock'))
    await expect(add(folder, 'x', 'x.txt')).rejects.toThrow(/manifest\.lock is not a plain file/)
    expect(readFileSync(join(root, 'target'), 'utf8')).toBe('keep me')
    expect(existsSync(join(dir, 'x.txt'))).toBe(false)
  })

  it('a lock file with garbage in it (torn, or put there) is set aside and a fresh one used', async () => {
    const { folder, dir } = fresh()
    writeFileSync(join(dir, '.manifest/manifest.lock'), 'not a database, just text that is long enough')
    expect(await add(folder, 'x', 'x.txt')).toEqual({ path: 'x.txt', existing: false })
    expect(manifestOf(dir).originals.map((e: { path: string }) => e.path)).toEqual(['x.txt'])
  })

  it('two folders on one root in one process take turns (each change waits for the other)', async () => {
    const { folder, root, dir } = fresh()
    const other = new OriginalsFolder({ root }).open()
    await Promise.all(Array.from({ length: 20 }, (_, k) => add(k % 2 ? folder : other, `text ${k}`, `f${k}.txt`)))
    expect(manifestOf(dir).originals.length).toBe(20)
  })
})

describe('the watcher', () => {
  it('picks up a file copied in by hand without being asked', async () => {
    const { folder, dir } = fresh()
    const seen = new Promise<string[]>((resolve) => {
      const stop = watchFolder(
        folder,
        (r) => {
          if (r.added.length) {
            stop()
            resolve(r.added)
          }
        },
        () => {},
      )
    })
    writeFileSync(join(dir, 'dropped.docx'), 'x')
    expect(await seen).toEqual(['dropped.docx'])
    expect(manifestOf(dir).originals[0]).toMatchObject({ path: 'dropped.docx', provenance: { kind: 'manual' } })
  })
})
