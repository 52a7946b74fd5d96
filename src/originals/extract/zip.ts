/**
 * Reading the zip container of DOCX, PPTX and XLSX as hostile input: the central directory is read first (entry
 * count, declared sizes and compression ratios checked before anything is inflated); an entry whose name leaves the
 * archive (`../`, an absolute path) is refused; every inflated byte is counted against the declared size (yauzl
 * checks it) and a total budget; an XML part that declares a DTD is refused (Office never writes one, and entity
 * expansion — "billion laughs" — starts there). Nothing is ever written to disk from an archive.
 * @module dsh-knowledge-sync/originals/extract/zip
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl'

export const ZIP_LIMITS = {
  entries: 100_000,
  /** Inflated bytes of all entries together. */
  totalBytes: 2 * 1024 * 1024 * 1024,
  /** Inflated bytes of one entry. */
  entryBytes: 1024 * 1024 * 1024,
  /** Inflated/compressed ratio above which an entry larger than 1 MiB is taken for a bomb. */
  ratio: 200,
}

export class ExtractError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`)
    this.name = 'ExtractError'
  }
}

export interface ZipArchive {
  /** Entry names in the archive's order. */
  names: string[]
  has(name: string): boolean
  /** The inflated bytes of one entry, within `maxBytes`. */
  read(name: string, maxBytes?: number): Promise<Buffer>
  /** Streams one entry's inflated bytes to `each` (which may throw to stop), within `maxBytes`; XML parts are checked for a DTD. */
  stream(name: string, each: (part: Buffer) => void, maxBytes?: number): Promise<void>
  /** Inflates every entry once, counting bytes and refusing DTDs: the check before a library reads the archive its own way. */
  verify(): Promise<void>
  close(): void
}

const DTD = /<!(DOCTYPE|ENTITY)/i

/** Opens the file behind descriptor `fd` as a zip, checking its directory (the descriptor stays open). `file` names it in errors (`originals/x.docx`). */
export async function openZip(fd: number, file: string): Promise<ZipArchive> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    yauzl.fromFd(fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (error, z) => (error ? reject(error) : resolve(z))),
  ).catch((error: Error) => {
    throw new ExtractError(file, `not a readable zip archive (${error.message}); DOCX, PPTX and XLSX files are zip archives`)
  })
  const entries = new Map<string, Entry>()
  let total = 0
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      if (entries.size >= ZIP_LIMITS.entries) return reject(new ExtractError(file, `holds more than ${ZIP_LIMITS.entries} entries; refused`))
      const name = entry.fileName
      if (name.startsWith('/') || name.split(/[\\/]/).includes('..') || /^[A-Za-z]:/.test(name))
        return reject(new ExtractError(file, `holds an entry whose name leaves the archive (${JSON.stringify(name.slice(0, 120))}); refused`))
      total += entry.uncompressedSize
      if (entry.uncompressedSize > ZIP_LIMITS.entryBytes || total > ZIP_LIMITS.totalBytes)
        return reject(
          new ExtractError(
            file,
            `declares ${Math.round(total / 1024 / 1024)} MiB once inflated (limits: ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB an entry, ${ZIP_LIMITS.totalBytes / 1024 / 1024} MiB in all); refused as a zip bomb`,
          ),
        )
      if (entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize / Math.max(entry.compressedSize, 1) > ZIP_LIMITS.ratio)
        return reject(
          new ExtractError(
            file,
            `entry ${JSON.stringify(name.slice(0, 120))} inflates ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))}× (limit ${ZIP_LIMITS.ratio}×); refused as a zip bomb`,
          ),
        )
      if (entry.isEncrypted()) return reject(new ExtractError(file, 'is encrypted (password-protected); open it and save it without a password first'))
      entries.set(name, entry)
      zip.readEntry()
    })
    zip.on('end', () => resolve())
    zip.on('error', (error: Error) =>
      reject(
        error instanceof ExtractError
          ? error
          : new ExtractError(
              file,
              /relative path|absolute path/.test(error.message) ? `holds an entry whose name leaves the archive (${error.message}); refused` : `broken zip archive: ${error.message}`,
            ),
      ),
    )
    zip.readEntry()
  })

  const raw = (name: string, maxBytes: number, each: (part: Buffer) => void): Promise<void> => {
    const entry = entries.get(name)
    if (!entry) return Promise.reject(new ExtractError(file, `has no part ${name}`))
    return new Promise((resolve, reject) => {
      zip.openReadStream(entry, (error, readable) => {
        if (error || !readable) return reject(new ExtractError(file, `cannot inflate ${name}: ${error?.message}`))
        let size = 0
        readable.on('data', (part: Buffer) => {
          size += part.length
          if (size > maxBytes) {
            readable.destroy()
            reject(new ExtractError(file, `part ${name} inflates past ${Math.round(maxBytes / 1024 / 1024)} MiB; refused`))
            return
          }
          try {
            each(part)
          } catch (e) {
            readable.destroy()
            reject(e)
          }
        })
        readable.on('error', (e: Error) => reject(new ExtractError(file, `cannot inflate ${name}: ${e.message} (the archive lies about its sizes or is damaged)`)))
        readable.on('end', () => resolve())
      })
    })
  }

  let inflated = 0
  /** Every part goes through here: the total inflated bytes are counted, and an XML part's text is checked for a DTD. */
  const stream = (name: string, each: (part: Buffer) => void, maxBytes = ZIP_LIMITS.entryBytes): Promise<void> => {
    const xml = /\.(xml|rels)$/i.test(name)
    let tail = ''
    return raw(name, maxBytes, (part) => {
      inflated += part.length
      if (inflated > ZIP_LIMITS.totalBytes) throw new ExtractError(file, `inflates past ${ZIP_LIMITS.totalBytes / 1024 / 1024} MiB; refused as a zip bomb`)
      if (xml) {
        const text = tail + part.toString('latin1')
        if (DTD.test(text)) throw new ExtractError(file, `part ${name} declares a DTD or XML entities; Office files never do, refused`)
        tail = text.slice(-16)
      }
      each(part)
    })
  }

  return {
    names: [...entries.keys()],
    has: (name) => entries.has(name),
    stream,
    async read(name, maxBytes = 64 * 1024 * 1024) {
      const parts: Buffer[] = []
      await stream(name, (part) => parts.push(part), maxBytes)
      return Buffer.concat(parts)
    },
    async verify() {
      for (const name of entries.keys()) await stream(name, () => {})
    },
    // yauzl's close() would close the caller's descriptor (its reader does on the last unref): the caller owns it.
    close: () => {},
  }
}
