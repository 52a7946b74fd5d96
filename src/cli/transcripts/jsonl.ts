/**
 * Reading another agent's transcript file without trusting it: never through a symbolic link, never a FIFO, device
 * or `/proc` file (opened non-blocking, then checked to be a regular file), at most {@link MAX_TRANSCRIPT_BYTES}
 * read, and lines longer than {@link MAX_LINE_BYTES} or not JSON skipped and counted. A torn last line (the agent is
 * still writing) is one more skipped line.
 * @module dsh-knowledge-sync/cli/transcripts/jsonl
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs'

export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
export const MAX_LINE_BYTES = 8 * 1024 * 1024
const CHUNK = 1 << 20

export interface JsonLines {
  values: unknown[]
  /** Lines that were not JSON objects, or too long, or past the size bound. */
  skipped: number
}

/** The JSON objects of a `.jsonl` file, one per line; throws an Error naming the file when it must not be read. */
export function readJsonLines(path: string): JsonLines {
  const link = lstatSync(path)
  if (link.isSymbolicLink()) throw new Error(`${path} is a symbolic link; transcripts are read only as regular files`)
  if (!link.isFile()) throw new Error(`${path} is not a regular file`)
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  const values: unknown[] = []
  let skipped = 0
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new Error(`${path} is not a regular file`)
    const buffer = Buffer.allocUnsafe(CHUNK)
    let pending: Buffer[] = []
    let pendingBytes = 0
    let overlong = false
    let total = 0
    const take = (line: Buffer) => {
      if (overlong) {
        skipped++
        overlong = false
        return
      }
      const text = line.toString('utf8').trim()
      if (!text) return
      try {
        const value = JSON.parse(text)
        if (value && typeof value === 'object' && !Array.isArray(value)) values.push(value)
        else skipped++
      } catch {
        skipped++
      }
    }
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null)
      if (n === 0) break
      total += n
      let start = 0
      for (let i = 0; i < n; i++) {
        if (buffer[i] !== 0x0a) continue
        const piece = buffer.subarray(start, i)
        if (!overlong && pendingBytes + piece.length <= MAX_LINE_BYTES) take(Buffer.concat([...pending, piece]))
        else {
          overlong = true
          take(Buffer.alloc(0))
        }
        pending = []
        pendingBytes = 0
        start = i + 1
      }
      const rest = buffer.subarray(start, n)
      if (pendingBytes + rest.length > MAX_LINE_BYTES) overlong = true
      else {
        pending.push(Buffer.from(rest))
        pendingBytes += rest.length
      }
      if (total >= MAX_TRANSCRIPT_BYTES) {
        skipped++
        pending = []
        break
      }
    }
    if (pendingBytes || overlong) take(Buffer.concat(pending))
  } finally {
    closeSync(fd)
  }
  return { values, skipped }
}
