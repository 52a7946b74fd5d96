/**
 * A state file of lines read without holding the event loop (disk/line-file.ts, the local history's whole reads): its
 * lines parsed with turns of the loop between, from an offset, up to the file's end as it was when opened; over a
 * bound, a link or a FIFO refused with a clear error; a missing file is undefined.
 * @module dsh-knowledge-sync/test/unit/line-file
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readLinesSliced } from '../../src/knowledge/disk/line-file.js'
import { RootFileError } from '../../src/knowledge/disk/root-files.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})
function fresh(): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ks-line-file-'))
  roots.push(root)
  mkdirSync(join(root, '.knowledge'))
  return { root, file: join(root, '.knowledge', 'lines.jsonl') }
}
const parse = (line: string): number | undefined => {
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === 'number' ? value : undefined
  } catch {
    return undefined
  }
}

describe('readLinesSliced', () => {
  it('parses every line, skipping what parse rejects, with a turn of the loop between lines at a budget of 0 ms', async () => {
    const { root, file } = fresh()
    writeFileSync(file, `${Array.from({ length: 200 }, (_, k) => String(k)).join('\n')}\nnot json\n{"a":1}\n7`)
    let turns = 0
    let done = false
    const tick = (): void => {
      turns++
      if (!done) setImmediate(tick)
    }
    setImmediate(tick)
    const read = await readLinesSliced(root, file, { parse, maxBytes: 1 << 20, sliceMs: 0 })
    done = true
    expect(read?.items).toEqual([...Array.from({ length: 200 }, (_, k) => k), 7])
    // One turn per line read (203 lines): a read in one piece would let none pass while it parsed.
    expect(turns).toBeGreaterThanOrEqual(200)
  })

  it('reads from an offset to the end as it was when opened, and says where that end is', async () => {
    const { root, file } = fresh()
    writeFileSync(file, '1\n2\n')
    const whole = await readLinesSliced(root, file, { parse, maxBytes: 100, sliceMs: 8 })
    expect(whole).toMatchObject({ items: [1, 2], end: 4 })
    appendFileSync(file, '3\n4\n')
    const tail = await readLinesSliced(root, file, { parse, maxBytes: 100, sliceMs: 8, from: whole!.end })
    expect(tail).toMatchObject({ items: [3, 4], end: 8, ino: whole!.ino })
  })

  it('refuses more than its bound to read, a link and a FIFO, naming the file; a missing file is undefined', async () => {
    const { root, file } = fresh()
    expect(await readLinesSliced(root, file, { parse, maxBytes: 10, sliceMs: 8 })).toBeUndefined()
    writeFileSync(file, '1\n'.repeat(20))
    await expect(readLinesSliced(root, file, { parse, maxBytes: 10, sliceMs: 8 })).rejects.toThrow(/lines\.jsonl is over 10 bytes/)
    await expect(readLinesSliced(root, file, { parse, maxBytes: 10, sliceMs: 8 })).rejects.toBeInstanceOf(RootFileError)
    // From an offset only what is left counts toward the bound.
    expect((await readLinesSliced(root, file, { parse, maxBytes: 10, sliceMs: 8, from: 34 }))?.items).toEqual([1, 1, 1])
    const secret = join(root, 'secret.txt')
    writeFileSync(secret, '42\n')
    const link = join(root, '.knowledge', 'link.jsonl')
    symlinkSync(secret, link)
    await expect(readLinesSliced(root, link, { parse, maxBytes: 100, sliceMs: 8 })).rejects.toThrow(/link\.jsonl is a symbolic link/)
    const fifo = join(root, '.knowledge', 'fifo.jsonl')
    execFileSync('mkfifo', [fifo])
    // Opened without waiting for a writer, and refused: not a regular file.
    await expect(readLinesSliced(root, fifo, { parse, maxBytes: 100, sliceMs: 8 })).rejects.toThrow(/fifo\.jsonl is not a regular file/)
  })
})
