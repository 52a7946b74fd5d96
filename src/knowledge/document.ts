/**
 * Markdown documents with YAML front matter, both directions. Pure: no I/O.
 *
 * The body is free text: an answer may contain `---` lines, `{{`, or YAML; only the first front-matter block is
 * parsed, and serialization goes through the `yaml` library so no value can break out of its field.
 * @module dsh-knowledge-sync/knowledge/document
 */
import { parseDocument as parseYaml, stringify } from 'yaml'
import type { DocKind, FrontMatter } from '../types.js'

/** A document that cannot be read; the message names the file and what is wrong with it. */
export class DocumentError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}`)
    this.name = 'DocumentError'
  }
}

const KINDS: readonly DocKind[] = ['raw', 'note', 'distilled', 'manual']
/** Ids are file-name safe: no separators, no dot segments, bounded. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/
export const MAX_ID_LENGTH = 128

/** True when `id` can name a document: refuses `../`, absolute paths, NUL and anything else outside the pattern. */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id)
}

/** Front-matter key order for written documents: identity first, then provenance, then what this product adds. */
const KEY_ORDER = ['id', 'title', 'kind', 'session', 'turn', 'created', 'outcome', 'cwd', 'tools', 'tags', 'salience', 'redacted', 'distill']

/** Serializes front matter and body into one Markdown text. */
export function formatDocument(meta: FrontMatter, body: string): string {
  const ordered: Record<string, unknown> = {}
  for (const key of KEY_ORDER) if (meta[key] !== undefined) ordered[key] = meta[key]
  for (const [key, value] of Object.entries(meta)) if (!(key in ordered) && value !== undefined) ordered[key] = value
  const yaml = stringify(ordered, { lineWidth: 0, defaultStringType: 'PLAIN', defaultKeyType: 'PLAIN' })
  return `---\n${yaml}---\n\n${body.endsWith('\n') ? body : body + '\n'}`
}

/** Splits a file's text into raw YAML and body; null when the file has no front matter. */
export function splitFrontMatter(text: string): { yaml: string; body: string } | null {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const open = /^---[ \t]*\r?\n/.exec(src)
  if (!open) return null
  const rest = src.slice(open[0].length)
  const close = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m.exec(rest)
  if (!close) return null
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length).replace(/^\r?\n/, '') }
}

const asStringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => v !== null && v !== undefined).map(String)
    : typeof value === 'string' && value.trim() ? value.split(',').map((s) => s.trim()).filter(Boolean) : []

const firstHeading = (body: string): string | undefined => /^#[ \t]+(.+)$/m.exec(body)?.[1]?.trim()

/**
 * Parses a document. `fallbackId` (the file name without `.md`) and `mtimeMs` fill what a hand-written file leaves
 * out; malformed YAML or an invalid id throws {@link DocumentError} naming the file.
 */
export function parseDocument(text: string, path: string, fallbackId: string, mtimeMs: number): { meta: FrontMatter; body: string } {
  const parts = splitFrontMatter(text)
  if (!parts) throw new DocumentError(path, 'no YAML front matter (the file must start with a `---` line and close it with another)')
  const doc = parseYaml(parts.yaml, { prettyErrors: true, uniqueKeys: false })
  if (doc.errors.length) throw new DocumentError(path, `malformed front matter: ${doc.errors[0].message.split('\n')[0]}`)
  const data = doc.toJS({ maxAliasCount: 50 }) as unknown
  if (data !== null && (typeof data !== 'object' || Array.isArray(data))) throw new DocumentError(path, 'front matter is not a mapping of keys to values')
  const raw = (data ?? {}) as Record<string, unknown>
  const id = raw.id === undefined || raw.id === null ? fallbackId : String(raw.id)
  if (!isValidId(id)) throw new DocumentError(path, `invalid id ${JSON.stringify(id).slice(0, 80)} (letters, digits, '-', '_' and inner dots only)`)
  const kind = KINDS.includes(raw.kind as DocKind) ? (raw.kind as DocKind) : 'manual'
  const created = raw.created instanceof Date ? raw.created.toISOString()
    : typeof raw.created === 'string' && !Number.isNaN(Date.parse(raw.created)) ? raw.created : new Date(mtimeMs).toISOString()
  const meta: FrontMatter = {
    ...raw,
    id,
    title: typeof raw.title === 'string' && raw.title.trim() ? raw.title : firstHeading(parts.body) ?? id,
    kind,
    created,
    cwd: typeof raw.cwd === 'string' ? raw.cwd : '',
    tools: asStringList(raw.tools),
    tags: asStringList(raw.tags),
  }
  return { meta, body: parts.body }
}
