/**
 * The wiki page types a dsh profile declares, for `dsh-knowledge mcp --profile <name>`. Inside dsh the wiki row gets
 * them as its row config (`knowledge-wiki` → `config.types`), composed from the bundle, then
 * `$DSH_HOME/profiles/<profile>/cordis.patch.yml`, then `$DSH_HOME/cordis.patch.yml`; the bundle declares none
 * (`types: []`), so the two files a person edits are read here in the same order, and the last one that sets the
 * row's config wins (a patch's `config` replaces the whole object, as dsh applies it). `--patch` files given to one
 * dsh launch are not seen. The types are checked as the row checks them (resolveTypes): a bad one stops the server
 * with the reason, at start.
 * @module dsh-knowledge-sync/cli/mcp/profile-types
 */
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { type DeclaredType, resolveTypes } from '../../knowledge/wiki/page-types.js'

/** The wiki row's id in the bundle's cordis.patch.yml, and its package name. */
export const WIKI_ROW_ID = 'knowledge-wiki'
export const WIKI_ROW_NAME = 'dsh-knowledge-sync/wiki'
/** A patch file larger than this is not a configuration a person wrote. */
const MAX_PATCH_BYTES = 1024 * 1024
const PROFILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** A regular file's text, at most MAX_PATCH_BYTES, not through a symbolic link; undefined when absent. */
function readPatch(path: string): string | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new Error(`${path}: not a regular file`)
    if (stat.size > MAX_PATCH_BYTES) throw new Error(`${path}: ${stat.size} bytes, more than a configuration (${MAX_PATCH_BYTES})`)
    const buffer = Buffer.alloc(stat.size)
    let read = 0
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** The `types` one patch file sets for the wiki row (undefined: it does not set the row's config). */
export function typesInPatch(text: string, where: string): DeclaredType[] | undefined {
  const entries: unknown = parseYaml(text, { maxAliasCount: 100 })
  if (entries === null || entries === undefined) return undefined
  if (!Array.isArray(entries)) throw new Error(`${where}: a cordis patch is a list of entries`)
  let found: DeclaredType[] | undefined
  const take = (row: Record<string, unknown>) => {
    if (row.id !== WIKI_ROW_ID && row.name !== WIKI_ROW_NAME) return
    if (!('config' in row)) return
    const config = row.config as Record<string, unknown> | null
    const types = config && typeof config === 'object' ? config.types : undefined
    if (types !== undefined && !Array.isArray(types)) throw new Error(`${where}: ${WIKI_ROW_ID}'s config.types must be a list`)
    found = (types as DeclaredType[] | undefined) ?? []
  }
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue
    const e = entry as Record<string, unknown>
    if (Array.isArray(e.insert)) for (const row of e.insert) if (row && typeof row === 'object') take(row as Record<string, unknown>)
    take(e)
  }
  return found
}

/** The types `profile` declares under `home` ($DSH_HOME), checked; [] when neither file sets them. */
export function profileTypes(home: string, profile: string): DeclaredType[] {
  if (!PROFILE.test(profile)) throw new Error(`--profile: ${JSON.stringify(profile.slice(0, 80))} is not a profile name (letters, digits, ".", "_", "-")`)
  let declared: DeclaredType[] = []
  for (const file of [join(home, 'profiles', profile, 'cordis.patch.yml'), join(home, 'cordis.patch.yml')]) {
    const text = readPatch(file)
    if (text === undefined) continue
    let types: DeclaredType[] | undefined
    try {
      types = typesInPatch(text, file)
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message.replace(`${file}: `, '')}`)
    }
    if (types) declared = types
  }
  try {
    resolveTypes(declared)
  } catch (error) {
    throw new Error(`the wiki types of profile ${profile}: ${(error as Error).message}`)
  }
  return declared
}
