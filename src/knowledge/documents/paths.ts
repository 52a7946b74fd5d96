/**
 * Where documents live: `<root>/<session>/<id>-<slug>.md`. Every name that reaches the file system passes through
 * here, so no input (session id, title, note title) can carry a path separator, a dot segment or a NUL.
 * @module dsh-knowledge-sync/knowledge/documents/paths
 */
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { createHash } from 'node:crypto'

/** Environment variable that overrides the default root. */
export const ROOT_ENV = 'DSH_KNOWLEDGE_ROOT'
/** Default root, relative to where dsh (or the CLI) was launched. */
export const DEFAULT_ROOT = './knowledge'
export const MAX_SLUG_LENGTH = 48

/** Resolves the store's root: an explicit value, else `DSH_KNOWLEDGE_ROOT`, else `./knowledge` beside `cwd`. */
export function resolveRoot(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const chosen = explicit?.trim() || env[ROOT_ENV]?.trim() || DEFAULT_ROOT
  return resolve(cwd, chosen)
}

/**
 * The short id of a session: the first 8 characters of its uuid (`session-<uuid>` → `<uuid>`), lowercased and
 * reduced to `[a-z0-9]`. A session id with no usable characters gets a stable hash instead.
 */
export function sessionShortId(sessionId: string, length = 8): string {
  const bare = sessionId
    .replace(/^session-/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
  const source = bare.length >= length ? bare : bare + createHash('sha256').update(sessionId).digest('hex')
  return source.slice(0, length)
}

/** A session id as a folder name: safe characters only, bounded, never `.`/`..`. */
export function sessionFolder(sessionId: string): string {
  const safe = sessionId
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/^[_-]+/, '')
    .slice(0, 80)
  return safe || `session-${createHash('sha256').update(sessionId).digest('hex').slice(0, 12)}`
}

/**
 * A file-name slug from a title: lowercase ASCII words joined by `-`, at most {@link MAX_SLUG_LENGTH} characters.
 * Titles with no ASCII letters or digits (Chinese, emoji) get `round-<hash>` so the slug is never empty.
 */
export function slugify(title: string, fallbackPrefix = 'round'): string {
  const ascii = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
  const words = ascii.match(/[a-z0-9]+/g) ?? []
  let slug = ''
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word
    if (next.length > MAX_SLUG_LENGTH) {
      if (!slug) slug = word.slice(0, MAX_SLUG_LENGTH)
      break
    }
    slug = next
  }
  return slug || `${fallbackPrefix}-${createHash('sha256').update(title).digest('hex').slice(0, 8)}`
}

/** The path of a document relative to the root, with `/` separators. */
export function documentPath(sessionDir: string, id: string, slug: string): string {
  return `${sessionDir}/${id}-${slug}.md`
}

/** Resolves a root-relative path and proves it stays inside the root; throws otherwise. */
export function insideRoot(root: string, relativePath: string): string {
  if (relativePath.includes('\0')) throw new Error('path contains NUL')
  const full = resolve(root, relativePath)
  const rel = relative(root, full)
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) throw new Error(`path escapes the knowledge root: ${relativePath}`)
  return full
}

/** Root-relative path with `/` separators, for front matter, hits and routes. */
export function toRelative(root: string, full: string): string {
  return relative(root, full).split(sep).join('/')
}
