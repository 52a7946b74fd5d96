/**
 * Where documents live: `<root>/<session>/<id>-<slug>.md`. Every name that reaches the file system passes through
 * here, so no input (session id, title, note title) can carry a path separator, a dot segment or a NUL.
 * @module dsh-knowledge-sync/knowledge/documents/paths
 */
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path'
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

/** `person-<name>-<machine>`: where notes a person writes from the command line go (no dsh session holds them). */
const PERSON_SESSION = /^person-([a-z0-9]{1,16})-[a-f0-9]{8}$/

/**
 * The session of the notes `user` writes on `host`: their name (lowercase ASCII letters and digits, at most 16; `me`
 * when none is left) and a hash of user and machine, so two machines sharing a root through git never write the same
 * ids. Its documents are `<name>-n1`, `<name>-n2`, …
 */
export function personSession(user: string, host: string): string {
  const name =
    user
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 16) || 'me'
  return `person-${name}-${createHash('sha256').update(`${user}@${host}`).digest('hex').slice(0, 8)}`
}

/**
 * The short id of a session: the first 8 characters of its uuid (`session-<uuid>` → `<uuid>`), lowercased and
 * reduced to `[a-z0-9]`. A session id with no usable characters gets a stable hash instead.
 */
export function sessionShortId(sessionId: string, length = 8): string {
  // A person's own notes (`person-<name>-<machine>`, see personSession): the name reads better than a hash, and a
  // longer prefix (another session already holds the name) adds the hash of the whole session.
  const person = PERSON_SESSION.exec(sessionId)
  if (person)
    return length <= 8
      ? person[1]
      : person[1] +
          createHash('sha256')
            .update(sessionId)
            .digest('hex')
            .slice(0, length - 8)
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

/**
 * Files the wiki generates at the root (the catalogue and the operation log): never documents, never indexed. Their
 * first line says they are generated; `overview.md` is a document (the model writes it).
 */
export const GENERATED_FILES: readonly string[] = ['index.md', 'log.md']

/** True for a root-relative path the wiki generates (see {@link GENERATED_FILES}). */
export const isGeneratedFile = (rel: string): boolean => GENERATED_FILES.includes(rel)

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

/**
 * The one rule for a path a document is written to besides the store's own naming (sync targets, in-use decisions,
 * splices): relative to the root, no `..`, no hidden component (`.git/hooks`, `.knowledge/`), a `.md` file. Returns
 * the normalized `/` path, or a reason it is refused.
 */
export function checkDocumentPath(root: string, file: string): { rel: string } | { reason: string } {
  if (isAbsolute(file) || /^[A-Za-z]:/.test(file) || file.includes('\0')) return { reason: `${JSON.stringify(file)} must be relative to the knowledge root` }
  const rel = normalize(file).split(sep).join('/')
  if (rel === '..' || rel.startsWith('../') || rel.split('/').some((part) => part.startsWith('.'))) return { reason: `${JSON.stringify(file)} leaves the knowledge root or names a hidden path` }
  if (!rel.endsWith('.md')) return { reason: `${JSON.stringify(file)} must be a .md document` }
  if (!resolve(root, rel).startsWith(resolve(root) + sep)) return { reason: `${JSON.stringify(file)} leaves the knowledge root` }
  return { rel }
}
