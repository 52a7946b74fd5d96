/**
 * `dsh-knowledge read`: one document as it is on disk, with the same checks as `knowledge_read`; `--section NAME`
 * picks one `## ` section the way the tool does (exact name or a unique prefix), under the file's front matter.
 * `read overview` is the wiki's overview (a document), `read log` its operation log (generated, not a document).
 * @module dsh-knowledge-sync/cli/read
 */
import { bodyWithIds, relationsView } from '../knowledge/corrections/correct.js'
import { parseDocumentId } from '../knowledge/query.js'
import { findSection, splitSections } from '../recall/sections.js'
import { isVisible } from '../search/scope.js'
import { readLogTail, renderLog } from '../knowledge/wiki/op-log.js'
import { LOG_ID } from '../recall/read-tool.js'
import { type Command, openStore, print, printJson, scopeOf, UsageError } from './common.js'
import { styled, terminalMarkdown } from './terminal.js'

/** The file's front matter block (delimiters included) and what follows it. */
const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/

export const read: Command = async (invocation) => {
  const raw = invocation.positionals[0]
  if (!raw) throw new UsageError('read needs a document id')
  const wanted = invocation.values.section?.trim()
  if (invocation.values.section !== undefined && !wanted) throw new UsageError('--section needs a section name, e.g. --section Finding')
  const id = parseDocumentId(raw)
  const store = await openStore(invocation, { write: false, trustWatcher: true })
  try {
    const scope = scopeOf(store, invocation)
    // `read log`: the wiki's last ten operations, newest first.
    if (id === LOG_ID && !store.get(LOG_ID)) {
      const entries = readLogTail(store.root)
      if (invocation.values.json) printJson(entries)
      else print(renderLog(entries))
      return 0
    }
    const meta = store.get(id)
    // Said here rather than by the store, whose message is written for the model's tools.
    if (!meta || !isVisible(meta.cwd, scope)) throw new Error(`no document ${id}${scope ? ` is visible in ${scope}` : ''}; find ids with \`dsh-knowledge search <words>\` or \`dsh-knowledge list\``)
    // The file's own text, read with the store's checks (no link followed, the index's size bound).
    const { doc, text } = await store.readText(id, scope)
    const head = FRONT_MATTER.exec(text)?.[0] ?? ''
    const { sections } = splitSections(text.slice(head.length))
    const section = wanted ? findSection(sections, wanted) : undefined
    if (wanted && !section)
      throw new Error(`document ${doc.id} has no section ${JSON.stringify(wanted.slice(0, 80))}; its sections: ${sections.map((s) => s.name).join(' · ') || '(none: read it whole)'}`)
    if (invocation.values.json)
      printJson({
        id: doc.id,
        version: doc.version ?? store.versionOf(doc.id),
        path: doc.path,
        meta: doc.meta,
        body: doc.body,
        sections: sections.map((s) => s.name),
        ...(section ? { section: section.name, text: section.text } : {}),
        ...relationsView(store, doc.id, scope),
      })
    else if (section) print(`${head}\n${section.text}\n`)
    // On a terminal, the document reads like a document: links as ids (not ../paths), the status notice without its
    // marker comment, bold as bold. Piped or with NO_COLOR, the file exactly as it is on disk.
    else if (!styled()) print(text)
    else print(`${text.endsWith(doc.body) ? text.slice(0, text.length - doc.body.length) : `${head}\n`}${terminalMarkdown(bodyWithIds(store, doc))}`)
    return 0
  } finally {
    await store.close()
  }
}
