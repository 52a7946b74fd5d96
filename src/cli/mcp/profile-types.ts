/**
 * The wiki page types a dsh profile declares, for `dsh-knowledge mcp --profile <name>`. Inside dsh the wiki row gets
 * them as its row config (`knowledge-wiki` → `config.types`), composed from the bundle, then
 * `$DSH_HOME/profiles/<profile>/cordis.patch.yml`, then `$DSH_HOME/cordis.patch.yml`; the bundle declares none
 * (`types: []`), so the two files a person edits are read here in the same order, and the last one that sets the
 * row's config wins (a patch's `config` replaces the whole object, as dsh applies it). `--patch` files given to one
 * dsh launch are not seen. The types are checked as the row checks them (resolveTypes): a bad one stops the server
 * with the reason, at start. The originals row's `folder` is read the same way (profileOriginalsFolder).
 * @module dsh-knowledge-sync/cli/mcp/profile-types
 */
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { type DeclaredType, resolveTypes } from '../../knowledge/wiki/page-types.js'

/** The wiki row's id in the bundle's cordis.patch.yml, and its package name. */
export const WIKI_ROW_ID = 'knowledge-wiki'
export const WIKI_ROW_NAME = 'dsh-knowledge-sync/wiki'
/** The originals row's id and package name (its `folder`: `dsh-knowledge index|mcp --profile` marks stale summaries there). */
export const ORIGINALS_ROW_ID = 'knowledge-originals'
export const ORIGINALS_ROW_NAME = 'dsh-knowledge-sync/originals'
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

/** The config object one patch file sets for a row (undefined: it does not set the row's config; null: `config: null`). */
function rowConfigInPatch(text: string, where: string, id: string, name: string): Record<string, unknown> | null | undefined {
  const entries: unknown = parseYaml(text, { maxAliasCount: 100 })
  if (entries === null || entries === undefined) return undefined
  if (!Array.isArray(entries)) throw new Error(`${where}: a cordis patch is a list of entries`)
  let found: Record<string, unknown> | null | undefined
  const take = (row: Record<string, unknown>) => {
    if (row.id !== id && row.name !== name) return
    if (!('config' in row)) return
    const config = row.config
    found = config && typeof config === 'object' && !Array.isArray(config) ? (config as Record<string, unknown>) : null
  }
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue
    const e = entry as Record<string, unknown>
    if (Array.isArray(e.insert)) for (const row of e.insert) if (row && typeof row === 'object') take(row as Record<string, unknown>)
    take(e)
  }
  return found
}

/** The `types` a wiki row's config gives (checked to be a list), from a patch file `where`. */
function typesOf(config: Record<string, unknown> | null, where: string): DeclaredType[] {
  const types = config?.types
  if (types !== undefined && !Array.isArray(types)) throw new Error(`${where}: ${WIKI_ROW_ID}'s config.types must be a list`)
  return (types as DeclaredType[] | undefined) ?? []
}

/** The `types` one patch file sets for the wiki row (undefined: it does not set the row's config). */
export function typesInPatch(text: string, where: string): DeclaredType[] | undefined {
  const config = rowConfigInPatch(text, where, WIKI_ROW_ID, WIKI_ROW_NAME)
  return config === undefined ? undefined : typesOf(config, where)
}

/**
 * The config each of `profile`'s two patch files under `home` sets for a row, in the order dsh applies them (the
 * profile's, then the home's; files that do not set it left out), each with its file. A file that is not a patch
 * throws, named.
 */
function* profileRowConfigs(home: string, profile: string, id: string, name: string): Generator<{ file: string; config: Record<string, unknown> | null }> {
  if (!PROFILE.test(profile)) throw new Error(`--profile: ${JSON.stringify(profile.slice(0, 80))} is not a profile name (letters, digits, ".", "_", "-")`)
  for (const file of [join(home, 'profiles', profile, 'cordis.patch.yml'), join(home, 'cordis.patch.yml')]) {
    const text = readPatch(file)
    if (text === undefined) continue
    let config: Record<string, unknown> | null | undefined
    try {
      config = rowConfigInPatch(text, file, id, name)
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message.replace(`${file}: `, '')}`)
    }
    if (config !== undefined) yield { file, config }
  }
}

/** The types `profile` declares under `home` ($DSH_HOME), checked; [] when neither file sets them. */
export function profileTypes(home: string, profile: string): DeclaredType[] {
  let declared: DeclaredType[] = []
  // Every file's types are checked, also those a later file replaces.
  for (const { file, config } of profileRowConfigs(home, profile, WIKI_ROW_ID, WIKI_ROW_NAME)) declared = typesOf(config, file)
  try {
    resolveTypes(declared)
  } catch (error) {
    throw new Error(`the wiki types of profile ${profile}: ${(error as Error).message}`)
  }
  return declared
}

/**
 * The originals folder `profile` sets for the originals row (`knowledge-originals` → `config.folder`), the last file
 * that sets the row's config winning as for the types; undefined when neither sets it (the row's default then).
 */
export function profileOriginalsFolder(home: string, profile: string): string | undefined {
  let folder: string | undefined
  for (const { file, config } of profileRowConfigs(home, profile, ORIGINALS_ROW_ID, ORIGINALS_ROW_NAME)) {
    const value = config?.folder
    if (value !== undefined && typeof value !== 'string') throw new Error(`${file}: ${ORIGINALS_ROW_ID}'s config.folder must be a string`)
    folder = value
  }
  return folder
}
