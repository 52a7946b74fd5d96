/**
 * Names inside the originals folder: every path the manifest records or a tool writes passes through here, so no
 * input (a tool's destination, a manifest line from a hostile clone) can name a place outside the folder, a hidden
 * entry (the manifest's own folder) or a NUL. Names are kept in Unicode NFC: a name typed on one system finds the
 * file another system wrote in NFD.
 * @module dsh-knowledge-sync/knowledge/originals/names
 */
import { extname } from 'node:path'

/** The default folder of originals, relative to the knowledge root. */
export const DEFAULT_ORIGINALS_DIR = 'originals'
export { MANIFEST_DIR } from '../disk/originals-marker.js'
export const MANIFEST_FILE = 'manifest.json'
/** The manifest's cross-process lock (an empty SQLite file: the operating system holds the lock; see disk/os-lock.ts). */
export const MANIFEST_LOCK = 'manifest.lock'
/** The hidden folder inside the originals folder that retired files move to, keeping their relative path. */
export const RETIRED_DIR = '.retired'
const MAX_NAME_LENGTH = 255
const MAX_PATH_LENGTH = 1024
const MAX_DEPTH = 8

export class OriginalsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OriginalsError'
  }
}

/**
 * A relative path inside the originals folder, checked and normalized (NFC, `/` separators, no empty, `.` or `..`
 * segment, no hidden segment, no control character). Throws {@link OriginalsError} naming the input.
 */
export function originalPath(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.trim()) throw new OriginalsError('a path inside originals/ is required')
  const shown = JSON.stringify(raw.slice(0, 200))
  let text = raw.trim().normalize('NFC').replaceAll('\\', '/')
  // `./originals/deck.pptx`, as a summary page or a shell at the root writes it, names the same file.
  text = text.replace(/^(\.\/)+/, '')
  if (text.startsWith('originals/')) text = text.slice('originals/'.length)
  if (/[\u0000-\u001f\u007f]/.test(text)) throw new OriginalsError(`${shown} holds a control character`)
  if (text.startsWith('/') || /^[A-Za-z]:/.test(text)) throw new OriginalsError(`${shown} must be relative to originals/`)
  const parts = text.split('/').filter((p) => p !== '')
  if (!parts.length) throw new OriginalsError(`${shown} names no file`)
  if (parts.length > MAX_DEPTH) throw new OriginalsError(`${shown} is more than ${MAX_DEPTH} folders deep`)
  for (const part of parts) {
    if (part === '.' || part === '..') throw new OriginalsError(`${shown} may not contain "." or ".." segments`)
    if (part.startsWith('.')) throw new OriginalsError(`${shown}: names starting with "." are reserved (the manifest's folder is hidden)`)
    if (Buffer.byteLength(part) > MAX_NAME_LENGTH) throw new OriginalsError(`${shown}: a name is longer than ${MAX_NAME_LENGTH} bytes`)
  }
  const joined = parts.join('/')
  if (joined.length > MAX_PATH_LENGTH) throw new OriginalsError(`${shown} is longer than ${MAX_PATH_LENGTH} characters`)
  return joined
}

/** The kinds of original the tools tell apart, from the name's extension. */
export type OriginalType = 'docx' | 'pptx' | 'xlsx' | 'pdf' | 'html' | 'markdown' | 'text' | 'image' | 'other'

const TYPES: Record<string, OriginalType> = {
  '.docx': 'docx',
  '.pptx': 'pptx',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.pdf': 'pdf',
  '.html': 'html',
  '.htm': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.csv': 'text',
  '.json': 'text',
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.gif': 'image',
  '.webp': 'image',
  '.svg': 'image',
}

export function typeOf(path: string): OriginalType {
  return TYPES[extname(path).toLowerCase()] ?? 'other'
}
