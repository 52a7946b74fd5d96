/**
 * Markdown documents with YAML front matter, both directions. Pure: no I/O.
 *
 * The body is free text: an answer may contain `---` lines, `{{`, or YAML; only the first front-matter block is
 * parsed, and serialization goes through the `yaml` library so no value can break out of its field.
 * @module dsh-knowledge-sync/knowledge/documents/document
 */
import { createRequire } from 'node:module'

/** The `yaml` library, loaded for the first hand-written front matter only (own-format files never need it). */
let yaml: typeof import('yaml') | undefined
const parseYaml: typeof import('yaml').parseDocument = (source, options) => {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml')
  return yaml.parseDocument(source, options)
}
import type { DocKind, FrontMatter } from '../../types.js'
import { DOC_KINDS, isValidId } from '../../wire.js'
import { ownString } from '../../search/schema.js'

/** A document that cannot be read; the message names the file and what is wrong with it. */
export class DocumentError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`)
    this.name = 'DocumentError'
  }
}

const KINDS: readonly DocKind[] = DOC_KINDS
// The id rule is shared with the browser module (its chat row checks persisted ids the same way).
export { ID_PATTERN, isValidId, MAX_ID_LENGTH } from '../../wire.js'

/** Front-matter key order for written documents: identity first, then provenance, then what this product adds. */
const KEY_ORDER = ['id', 'title', 'kind', 'session', 'turn', 'created', 'outcome', 'cwd', 'tools', 'tags', 'salience', 'redacted', 'distill']

/**
 * Strings written without quotes: they read the same in every YAML version. No leading dot, dash or sigil, no `: `,
 * no reserved words; a leading digit only with a letter that no YAML number, date or time can contain (so
 * `3f2a9c1e-t1` is plain, `1e5`, `0x1F` and `2026-11-30` are quoted); plus ISO 8601 UTC timestamps.
 */
const PLAIN = /^(?:[A-Za-z_/][A-Za-z0-9_./@+-]*|\d[A-Za-z0-9_./@+-]*[g-np-wyzG-NP-WYZ][A-Za-z0-9_./@+-]*|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)$/
const RESERVED = /^(?:true|false|null|yes|no|on|off|y|n|~)$/i
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** One front-matter value: a plain scalar when that is unambiguous, else JSON (which is also valid YAML). */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return PLAIN.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null'
  if (typeof value === 'boolean' || value === null) return String(value)
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v ?? null)).join(', ')}]`
  if (typeof value === 'object')
    return `{${Object.entries(value as object)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join(', ')}}`
  return JSON.stringify(String(value))
}

/**
 * Serializes front matter and body into one Markdown text. Every key is one line, `key: value`, where a value is a
 * plain scalar or JSON (valid YAML flow): any YAML reader understands it, and {@link parseDocument} reads it back
 * without a YAML parser, which keeps a cold start over thousands of files fast.
 */
export function formatDocument(meta: FrontMatter, body: string): string {
  const keys = [...KEY_ORDER.filter((k) => meta[k] !== undefined), ...Object.keys(meta).filter((k) => !KEY_ORDER.includes(k) && meta[k] !== undefined)]
  const lines = keys.map((key) => (KEY.test(key) ? `${key}: ${formatValue(meta[key])}` : `${JSON.stringify(key)}: ${formatValue(meta[key])}`))
  return `---\n${lines.join('\n')}\n---\n\n${body.endsWith('\n') ? body : body + '\n'}`
}

/**
 * The fast reader for the front matter {@link formatDocument} writes (one `key: value` line each, values plain or
 * JSON). Returns undefined for anything else (comments, block lists, hand-written YAML), which then goes through
 * the full YAML parser, so both give the same result.
 */
export function readSimpleFrontMatter(yaml: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  for (const line of yaml.split('\n')) {
    if (!line) continue
    const colon = line.indexOf(': ')
    if (colon < 1) return undefined
    const key = line.slice(0, colon)
    if (!KEY.test(key) || key in out) return undefined
    const raw = line.slice(colon + 2)
    const first = raw.charCodeAt(0)
    if (first === 34 /* " */ || first === 91 /* [ */ || first === 123 /* { */) {
      try {
        out[key] = JSON.parse(raw)
      } catch {
        return undefined
      }
    } else if (raw === 'true' || raw === 'false') out[key] = raw === 'true'
    else if (raw === 'null') out[key] = null
    else if (/^-?(?:0|[1-9]\d{0,14})(?:\.\d+)?$/.test(raw)) out[key] = Number(raw)
    else if (PLAIN.test(raw) && !RESERVED.test(raw)) out[key] = raw
    else return undefined
  }
  return out
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

/**
 * Bounds applied when any document is read (hand-written ones included), so one file cannot flood a tool output,
 * the index or the page: 100k tags or a 1 MB title are cut here, not in each consumer. Documents this product
 * writes are well inside them (draft LIMITS: title 120, tags 12, tools 50).
 */
export const PARSE_LIMITS = { title: 200, tags: 32, tag: 64, tools: 50, tool: 64, cwd: 4096, created: 64 }

/** `text` on one line and at most `max` characters (a cut ends with `…`, never inside a surrogate pair). */
export function boundLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length <= max) return line
  let end = max - 1
  const code = line.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${line.slice(0, end)}…`
}

const asStringList = (value: unknown, count: number, each: number): string[] => {
  const list = Array.isArray(value)
    ? value
        .slice(0, count * 4)
        .filter((v) => v !== null && v !== undefined && typeof v !== 'object')
        .map(String)
    : typeof value === 'string' && value.trim()
      ? value
          .slice(0, count * (each + 2) * 4)
          .split(',')
          .map((s) => s.trim())
      : []
  return [...new Set(list.map((v) => boundLine(v, each)).filter(Boolean))].slice(0, count)
}

const firstHeading = (body: string): string | undefined => /^#[ \t]+(.+)$/m.exec(body)?.[1]?.trim()

/**
 * Parses a document. `fallbackId` (the file name without `.md`) and `mtimeMs` fill what a hand-written file leaves
 * out; malformed YAML or an invalid id throws {@link DocumentError} naming the file.
 */
/**
 * `firstSeen`: when the store first saw a document (its first revision), for a file without `created`: a sync or an
 * edit moves the file's mtime, and "created" must not move with it. Without it, or for an unseen id, the mtime.
 */
export function parseDocument(text: string, path: string, fallbackId: string, mtimeMs: number, firstSeen?: (id: string) => number | undefined): { meta: FrontMatter; body: string } {
  const parts = splitFrontMatter(text)
  if (!parts) throw new DocumentError(path, 'no YAML front matter (the file must start with a `---` line and close it with another)')
  let data: unknown = readSimpleFrontMatter(parts.yaml)
  if (data === undefined) {
    const doc = parseYaml(parts.yaml, { prettyErrors: true, uniqueKeys: false })
    if (doc.errors.length) throw new DocumentError(path, `malformed front matter: ${doc.errors[0].message.split('\n')[0]}`)
    data = doc.toJS({ maxAliasCount: 50 }) as unknown
  }
  if (data !== null && (typeof data !== 'object' || Array.isArray(data))) throw new DocumentError(path, 'front matter is not a mapping of keys to values')
  const raw = (data ?? {}) as Record<string, unknown>
  // Copies, not views: a string cut from the front matter keeps the whole file text alive, and the id and session
  // go into tables that live as long as the process (ids, revisions, paths; issue 24).
  const id = ownString(raw.id === undefined || raw.id === null ? fallbackId : String(raw.id))
  if (typeof raw.session === 'string') raw.session = ownString(raw.session)
  if (!isValidId(id)) throw new DocumentError(path, `invalid id ${JSON.stringify(id).slice(0, 80)} (letters, digits, '-', '_' and inner dots only)`)
  const kind = KINDS.includes(raw.kind as DocKind) ? (raw.kind as DocKind) : 'manual'
  const created =
    raw.created instanceof Date && !Number.isNaN(raw.created.getTime())
      ? raw.created.toISOString()
      : typeof raw.created === 'string' && raw.created.length <= PARSE_LIMITS.created && !Number.isNaN(Date.parse(raw.created))
        ? raw.created
        : new Date(firstSeen?.(id) ?? mtimeMs).toISOString()
  // A workspace path is a scope: cutting it would move the document to another workspace, so an impossible one is an error.
  if (typeof raw.cwd === 'string' && raw.cwd.length > PARSE_LIMITS.cwd) throw new DocumentError(path, `cwd is ${raw.cwd.length} characters long; a path has at most ${PARSE_LIMITS.cwd}`)
  const title = typeof raw.title === 'string' && raw.title.trim() ? raw.title : (firstHeading(parts.body.slice(0, 64 * 1024)) ?? id)
  const meta: FrontMatter = {
    ...raw,
    id,
    title: boundLine(title, PARSE_LIMITS.title) || id,
    kind,
    created,
    cwd: typeof raw.cwd === 'string' ? raw.cwd : '',
    tools: asStringList(raw.tools, PARSE_LIMITS.tools, PARSE_LIMITS.tool),
    tags: asStringList(raw.tags, PARSE_LIMITS.tags, PARSE_LIMITS.tag),
  }
  return { meta, body: parts.body }
}
