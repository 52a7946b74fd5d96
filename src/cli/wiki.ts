/**
 * The wiki from the command line, on the same code as the tools (the wiki room): `index`, `create`, `edit`,
 * `rewrite`, `log`. The CLI knows the built-in page types, and with `--profile NAME` the types that dsh profile
 * declares (read as `dsh-knowledge mcp --profile` reads them); pages of any type on disk are listed, edited and
 * rewritten alike.
 * @module dsh-knowledge-sync/cli/wiki
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseFieldChanges } from '../knowledge/wiki/page-fields.js'
import { readLogTail, renderLog } from '../knowledge/wiki/op-log.js'
import { templateText, Wiki } from '../knowledge/wiki/wiki.js'
import { markStaleSummaries } from '../originals/summaries.js'
import { type DeclaredType, resolveTypes } from '../knowledge/wiki/page-types.js'
import { dshHome } from './dsh-sessions.js'
import { profileOriginalsFolder, profileTypes } from './mcp/profile-types.js'
import type { KnowledgeStore } from '../knowledge/store.js'
import { type Command, type Invocation, openStore, print, printJson, readStdin, UsageError } from './common.js'

const MAX_CONTENT_FILE = 4 * 1024 * 1024

/** `--field name=value` (repeatable) as field changes; `name=` removes the field. */
function fieldsOf(invocation: Invocation) {
  return parseFieldChanges(
    (invocation.values.field ?? []).map((spec) => {
      const at = spec.indexOf('=')
      if (at < 1) throw new UsageError(`--field ${JSON.stringify(spec)}: write it as name=value (name= removes the field)`)
      const value = spec.slice(at + 1)
      return { name: spec.slice(0, at), value: value === '' ? null : value }
    }),
  )
}

/** The text of `--content-file F` (`-`: standard input). */
async function contentOf(invocation: Invocation, required: boolean): Promise<string | undefined> {
  const file = invocation.values['content-file']
  if (file === undefined) {
    if (required) throw new UsageError('this command needs --content-file F (or - for standard input)')
    return undefined
  }
  const text = file === '-' ? await readStdin() : readFileSync(resolve(file), 'utf8')
  if (Buffer.byteLength(text) > MAX_CONTENT_FILE) throw new UsageError(`--content-file: at most ${MAX_CONTENT_FILE} bytes`)
  return text
}

/** The page types of `--profile NAME` (none without it: the built-ins only). */
function declaredTypes(invocation: Invocation): DeclaredType[] {
  const profile = invocation.values.profile
  return profile ? profileTypes(dshHome(invocation.values['dsh-home']), profile) : []
}

/** The originals folder whose summaries are marked stale: `--folder`, else the one `--profile NAME` sets, else the default. */
export function originalsFolderOf(invocation: Invocation): string | undefined {
  const profile = invocation.values.profile
  return invocation.values.folder ?? (profile ? profileOriginalsFolder(dshHome(invocation.values['dsh-home']), profile) : undefined)
}

/** `create`: the command may write the first document of a new base (create, rewrite of the overview, log). */
async function withWiki<T>(invocation: Invocation, write: boolean, run: (wiki: Wiki, store: KnowledgeStore, scope: string | undefined) => Promise<T>, create = false): Promise<T> {
  const store = await openStore(invocation, { write, create })
  const wiki = new Wiki(store, declaredTypes(invocation))
  try {
    const cwd = invocation.values.cwd
    return await run(wiki, store, cwd ? store.visibleScope(resolve(cwd), true) : undefined)
  } finally {
    wiki.close()
    await store.close()
  }
}

export const index: Command = (invocation) =>
  withWiki(invocation, false, async (wiki, store, scope) => {
    markStaleSummaries(store, originalsFolderOf(invocation))
    if (invocation.values.json) printJson(await wiki.catalogue(scope))
    else print(await wiki.indexText(scope, Number.POSITIVE_INFINITY))
    return 0
  })

export const create: Command = async (invocation) => {
  const [type, slug] = invocation.positionals
  if (!type || !slug) throw new UsageError('create needs <type> <slug> --title T')
  if (!invocation.values.title) throw new UsageError('create needs --title T')
  const content = await contentOf(invocation, false)
  const fields = fieldsOf(invocation)
  // The template needs no knowledge base.
  if (content === undefined) {
    print(templateText(resolveTypes(declaredTypes(invocation)), type))
    return 0
  }
  return withWiki(
    invocation,
    true,
    async (wiki, _store, scope) => {
      const [page] = await wiki.create([{ type, slug, title: invocation.values.title!, content, fields }], { actor: 'cli', scope })
      if (invocation.values.json) printJson({ id: page.id, path: page.path, type: page.type, version: page.version })
      else print(`Created ${page.id} (v:${page.version}) at ${page.path}${page.redacted ? ` (${page.redacted} secret-like value(s) masked)` : ''}`)
      return 0
    },
    true,
  )
}

export const edit: Command = async (invocation) => {
  const [id] = invocation.positionals
  const { old: oldText, new: newText } = invocation.values
  if (!id || oldText === undefined || newText === undefined) throw new UsageError('edit needs <id> --old TEXT --new TEXT')
  const fields = fieldsOf(invocation)
  return withWiki(invocation, true, async (wiki, _store, scope) => {
    const page = await wiki.edit(id, oldText, newText, fields, { actor: 'cli', scope })
    if (invocation.values.json) printJson({ id: page.id, path: page.path, type: page.type, version: page.version })
    else print(`Edited ${page.id} (v:${page.version})`)
    return 0
  })
}

export const rewrite: Command = async (invocation) => {
  const [id] = invocation.positionals
  if (!id) throw new UsageError('rewrite needs <id> --content-file F|-')
  const content = await contentOf(invocation, true)
  const fields = fieldsOf(invocation)
  return withWiki(
    invocation,
    true,
    async (wiki, _store, scope) => {
      const page = await wiki.rewrite(id, content, fields, { actor: 'cli', scope })
      if (invocation.values.json) printJson({ id: page.id, path: page.path, type: page.type, version: page.version })
      else print(`Rewrote ${page.id} (v:${page.version})`)
      return 0
    },
    true,
  )
}

export const log: Command = async (invocation) => {
  const { operation, what, page } = invocation.values
  if (operation === undefined && what === undefined && page === undefined) {
    const store = await openStore(invocation, { index: false, write: false })
    try {
      const entries = readLogTail(store.root)
      if (invocation.values.json) printJson(entries)
      else print(renderLog(entries))
      return 0
    } finally {
      await store.close()
    }
  }
  if (!operation || !what) throw new UsageError('log needs --operation OP --what TEXT [--page ID]... (no flags: print the last ten)')
  return withWiki(
    invocation,
    true,
    async (wiki, _store, scope) => {
      const entry = await wiki.log(operation, what, page ?? [], { actor: 'cli', scope })
      if (invocation.values.json) printJson(entry)
      else print(`Logged ${entry.at} ${entry.operation}: ${entry.what}`)
      return 0
    },
    true,
  )
}
