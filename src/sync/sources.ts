/**
 * `<root>/sources.yml`: the declared upstream sources and the discovery roots. Each entry is checked on its own: a
 * malformed one becomes an `invalid-target` result with its reason and never stops the others.
 * @module dsh-knowledge-sync/sync/sources
 */
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { compile } from 'css-select'
import { parse as parseYaml } from 'yaml'
import { readRootStateFile } from '../knowledge/disk/root-files.js'
import { checkDocumentPath } from '../knowledge/documents/paths.js'

export const SOURCES_FILE = 'sources.yml'
/** The format version readers assume when the file names none. */
export const SOURCES_VERSION = '1.0.0'
export const DEFAULT_CACHE_TTL = 86400
export const DEFAULT_MAX_DEPTH = 3
export const DEFAULT_MAX_URLS = 200
const MAX_ENTRIES = 1000
const MAX_SOURCES_BYTES = 1024 * 1024
const SECTION_NAME = /^[^"\r\n]{1,200}$/

/** Where a source's text goes: a document (relative to the knowledge root) and a section name in it. */
export interface Target {
  file: string
  section: string
}

interface SourceBase {
  name: string
  target: Target
  origin: 'declared' | 'decision'
}
/** A local file (absolute, or relative to the directory that holds the knowledge root). */
export interface LocalSource extends SourceBase {
  type: 'local'
  path: string
}
/** A web page; `selector` picks a subtree of an HTML page; `cacheTtl` in seconds (0 = no cache). */
export interface HttpSource extends SourceBase {
  type: 'http' | 'https'
  url: string
  selector?: string
  cacheTtl: number
}
export type Source = LocalSource | HttpSource

/** A place `discover` walks. */
export interface DiscoveryRoot {
  name: string
  url: string
  maxDepth: number
  maxUrls: number
}

/** An entry that could not be used, and why. */
export interface InvalidEntry {
  name: string
  reason: string
  target?: Partial<Target>
}

export interface SourcesFile {
  exists: boolean
  version: string
  sources: Source[]
  roots: DiscoveryRoot[]
  invalid: InvalidEntry[]
  /** The whole file could not be read (bad YAML); nothing in it is used. */
  error?: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Checks a target: a `.md` file inside the knowledge root, a section name usable in a marker. */
export function checkTarget(root: string, raw: unknown): Target | string {
  if (!isRecord(raw)) return 'target must be {file, section}'
  const { file, section } = raw
  if (typeof file !== 'string' || !file.trim()) return 'target.file must be a path relative to the knowledge root'
  const checked = checkDocumentPath(root, file)
  if ('reason' in checked) return `target.file ${checked.reason}`
  const rel = checked.rel
  if (typeof section !== 'string' || !SECTION_NAME.test(section)) return 'target.section must be a name of 1-200 characters without quotes or line breaks'
  return { file: rel, section }
}

function checkSelector(selector: unknown): string | undefined | Error {
  if (selector === undefined || selector === null) return undefined
  if (typeof selector !== 'string' || !selector.trim() || selector.length > 500) return new Error('selector must be a CSS selector string')
  try {
    compile(selector)
  } catch (error) {
    return new Error(`selector ${JSON.stringify(selector)} is not valid CSS: ${(error as Error).message}`)
  }
  return selector
}

/** Parses one `sources:` entry. `base` is the directory relative local paths start from. */
export function parseSource(root: string, base: string, raw: unknown, index: number): Source | InvalidEntry {
  const name = isRecord(raw) && typeof raw.name === 'string' && raw.name.trim() ? raw.name.trim() : `#${index + 1}`
  const bad = (reason: string): InvalidEntry => ({ name, reason, target: isRecord(raw) && isRecord(raw.target) ? (raw.target as Partial<Target>) : undefined })
  if (!isRecord(raw)) return bad('an entry must be a mapping')
  if (typeof raw.name !== 'string' || !raw.name.trim()) return bad('name is missing')
  if (name.length > 200) return bad('name is longer than 200 characters')
  const target = checkTarget(root, raw.target)
  if (typeof target === 'string') return bad(target)
  const type = raw.type
  if (type === 'local') {
    if (typeof raw.path !== 'string' || !raw.path.trim() || raw.path.includes('\0')) return bad('a local source needs path')
    return { type, name, target, origin: 'declared', path: isAbsolute(raw.path) ? raw.path : resolve(base, raw.path) }
  }
  if (type !== 'http' && type !== 'https') return bad(`type must be local, http or https (got ${JSON.stringify(type)})`)
  if (typeof raw.url !== 'string') return bad('an http source needs url')
  let url: URL
  try {
    url = new URL(raw.url)
  } catch {
    return bad(`url ${JSON.stringify(raw.url).slice(0, 200)} is not a URL`)
  }
  if (url.protocol !== `${type}:`) return bad(`url ${url.href} does not match type ${type}`)
  if (url.username || url.password) return bad('url must not carry credentials')
  const ttl = raw.cache_ttl ?? DEFAULT_CACHE_TTL
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) return bad(`cache_ttl must be a whole number of seconds >= 0 (got ${JSON.stringify(ttl)})`)
  const selector = checkSelector(raw.selector)
  if (selector instanceof Error) return bad(selector.message)
  return { type, name, target, origin: 'declared', url: url.href, selector, cacheTtl: ttl }
}

function parseRoot(raw: unknown, index: number): DiscoveryRoot | InvalidEntry {
  const name = isRecord(raw) && typeof raw.name === 'string' && raw.name.trim() ? raw.name.trim() : `root #${index + 1}`
  if (!isRecord(raw)) return { name, reason: 'a root must be a mapping' }
  let url: URL
  try {
    url = new URL(String(raw.url))
  } catch {
    return { name, reason: 'a root needs an http(s) url' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { name, reason: 'a root needs an http(s) url' }
  if (url.username || url.password) return { name, reason: 'url must not carry credentials' }
  const depth = raw.max_depth ?? DEFAULT_MAX_DEPTH
  const max = raw.max_urls ?? DEFAULT_MAX_URLS
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > 10) return { name, reason: 'max_depth must be a whole number 0-10' }
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 10000) return { name, reason: 'max_urls must be a whole number 1-10000' }
  return { name, url: url.href, maxDepth: depth, maxUrls: max }
}

/** Reads and checks `<root>/sources.yml`. Never throws: a missing file is empty, a broken one says why in `error`. */
export async function loadSources(root: string): Promise<SourcesFile> {
  const out: SourcesFile = { exists: false, version: SOURCES_VERSION, sources: [], roots: [], invalid: [] }
  let text: string | undefined
  try {
    // Like every file of the root: never through a link, only a regular file (a FIFO would block the read).
    text = readRootStateFile(root, join(root, SOURCES_FILE), MAX_SOURCES_BYTES)
  } catch (error) {
    out.error = `cannot read ${SOURCES_FILE}: ${(error as Error).message}`
    return out
  }
  if (text === undefined) return out
  out.exists = true
  let data: unknown
  try {
    data = parseYaml(text, { maxAliasCount: 50 })
  } catch (error) {
    out.error = `${SOURCES_FILE}: ${(error as Error).message.split('\n')[0]}`
    return out
  }
  if (data === null || data === undefined) return out
  if (!isRecord(data)) {
    out.error = `${SOURCES_FILE} must be a mapping with sources: and roots:`
    return out
  }
  if (data.version !== undefined) out.version = String(data.version)
  const base = dirname(resolve(root))
  const entries = Array.isArray(data.sources) ? data.sources.slice(0, MAX_ENTRIES) : []
  if (data.sources !== undefined && !Array.isArray(data.sources)) out.invalid.push({ name: 'sources', reason: 'sources: must be a list' })
  const names = new Set<string>()
  entries.forEach((raw, index) => {
    const parsed = parseSource(root, base, raw, index)
    if ('reason' in parsed) {
      out.invalid.push(parsed)
      return
    }
    if (names.has(parsed.name)) {
      out.invalid.push({ name: parsed.name, reason: 'another source has the same name', target: parsed.target })
      return
    }
    names.add(parsed.name)
    out.sources.push(parsed)
  })
  const roots = Array.isArray(data.roots) ? data.roots.slice(0, MAX_ENTRIES) : []
  roots.forEach((raw, index) => {
    const parsed = parseRoot(raw, index)
    if ('reason' in parsed) out.invalid.push({ name: parsed.name, reason: parsed.reason })
    else out.roots.push(parsed)
  })
  return out
}

/** True when sources.yml declares at least one discovery root (read synchronously: used once at row start). */
export function declaresRoots(root: string): boolean {
  try {
    const text = readRootStateFile(root, join(root, SOURCES_FILE), MAX_SOURCES_BYTES)
    if (text === undefined) return false
    const data = parseYaml(text, { maxAliasCount: 50 }) as unknown
    return isRecord(data) && Array.isArray(data.roots) && data.roots.length > 0
  } catch {
    return false
  }
}
