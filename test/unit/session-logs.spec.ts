/**
 * The check every dsh session log passes before dsh's reader sees it: a zstd bomb is refused after streaming
 * `maxBytes` (never held whole), and a FIFO, a symlinked FIFO or a link to a file outside are refused at once.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zstdCompressSync } from 'node:zlib'
import { vetSessionLog } from '../../src/cli/dsh-sessions.js'

const dir = () => mkdtempSync(join(tmpdir(), 'dsh-ks-vet-'))
const MiB = 1024 * 1024

describe('vetting a session log', () => {
  it('refuses a small zstd file that expands past the cap, counting as it streams', async () => {
    const at = join(dir(), 'session.jsonl.zstd')
    // 48 frames of 1 MiB of zeros: about 1.5 KB on disk, 48 MiB decompressed (the real cap is 256 MiB; this test caps at 8).
    const frame = zstdCompressSync(Buffer.alloc(MiB))
    writeFileSync(at, Buffer.concat(Array.from({ length: 48 }, () => frame)))
    await expect(vetSessionLog(at, 8 * MiB)).rejects.toThrow(/expands past 8 MiB/)
    await expect(vetSessionLog(at, 64 * MiB)).resolves.toBeUndefined()
  })

  it('refuses a plain log over the cap by its size', async () => {
    const at = join(dir(), 'session.jsonl')
    writeFileSync(at, Buffer.alloc(2 * MiB, 0x61))
    await expect(vetSessionLog(at, MiB)).rejects.toThrow(/over the 1 MiB/)
  })

  it('refuses a FIFO and a symlink to one at once, without waiting for a writer', async () => {
    const d = dir()
    const fifo = join(d, 'pipe')
    execFileSync('mkfifo', [fifo])
    symlinkSync(fifo, join(d, 'session.jsonl.zstd'))
    symlinkSync('/etc/hostname', join(d, 'session.jsonl'))
    await expect(vetSessionLog(join(d, 'session.jsonl.zstd'))).rejects.toThrow(/symbolic link/)
    await expect(vetSessionLog(join(d, 'session.jsonl'))).rejects.toThrow(/symbolic link/)
    await expect(vetSessionLog(fifo)).rejects.toThrow(/not a regular file/)
  })
})
