/**
 * Reading a state file of lines under the root (the local history, up to ~9 MB) without holding the event loop: the
 * bytes are read on libuv's threads, and each line is decoded and parsed with a turn of the loop whenever a slice's
 * time has passed. Why: a whole synchronous read and decode of the 8 MB history held the loop 8–30 ms in one piece,
 * twice per rewrite (every ~1,300 rounds of a long-lived process).
 * @module dsh-knowledge-sync/knowledge/disk/line-file
 */
import { closeSync, fstatSync, read } from 'node:fs'
import { relative } from 'node:path'
import { openRootStateFile, RootFileError } from './root-files.js'

/** What {@link readLinesSliced} read: the parsed lines, and the file's size and inode when it was opened. */
export interface SlicedLines<T> {
  items: T[]
  /** The offset read up to (the file's size when opened): a later read of what was appended starts there. */
  end: number
  ino: number
}

/**
 * The turns long work gives the event loop: once `sliceMs` have passed since the last turn, {@link due} says so and
 * {@link turn} gives one (a check per item, not a promise per item). The local history's compaction uses it too.
 */
export class LoopSlices {
  private last = performance.now()
  constructor(private readonly sliceMs: number) {}
  get due(): boolean {
    return performance.now() - this.last >= this.sliceMs
  }
  async turn(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve))
    this.last = performance.now()
  }
}

const readAt = (fd: number, into: Buffer, at: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => read(fd, into, at, length, position, (error, n) => (error ? reject(error) : resolve(n))))

/**
 * The lines of `full` from byte `from` to its end as it was when opened, each given to `parse` (undefined: skipped).
 * Undefined when the file does not exist; throws a {@link RootFileError} when there is more than `maxBytes` to read
 * (and whatever {@link openRootStateFile} refuses: a link, a FIFO, a path leaving the root).
 */
export async function readLinesSliced<T>(
  root: string,
  full: string,
  options: { parse: (line: string) => T | undefined; maxBytes: number; sliceMs: number; from?: number },
): Promise<SlicedLines<T> | undefined> {
  const fd = openRootStateFile(root, full)
  if (fd === undefined) return undefined
  let bytes: Buffer
  let ino: number
  const from = options.from ?? 0
  try {
    const stat = fstatSync(fd)
    ino = stat.ino
    if (stat.size - from > options.maxBytes) throw new RootFileError(`${relative(root, full)} is over ${options.maxBytes} bytes`)
    bytes = Buffer.allocUnsafe(Math.max(0, stat.size - from))
    let got = 0
    while (got < bytes.length) {
      const n = await readAt(fd, bytes, got, bytes.length - got, from + got)
      if (n <= 0) break
      got += n
    }
    bytes = bytes.subarray(0, got)
  } finally {
    closeSync(fd)
  }
  const items: T[] = []
  const slices = new LoopSlices(options.sliceMs)
  for (let at = 0; at < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, at)
    const end = newline === -1 ? bytes.length : newline
    const item = options.parse(bytes.toString('utf8', at, end))
    if (item !== undefined) items.push(item)
    at = end + 1
    if (slices.due) await slices.turn()
  }
  return { items, end: from + bytes.length, ino }
}
