/**
 * `dsh-knowledge originals list|extract|add|download|retire`: the originals folder from the command line, through
 * the same operations as the tools. The person runs the command, so `add` records `person` provenance and
 * `retire` asks no approval; extracted text is redacted like the tools' output.
 * @module dsh-knowledge-sync/cli/originals
 */
import { DEFAULT_ORIGINALS_DIR, OriginalsFolder, typeOf } from '../knowledge/originals/index.js'
import { SafeFetcher } from '../net/fetcher.js'
import { countPages } from '../originals/extract/index.js'
import { DOWNLOAD_TIMEOUT_MS } from '../originals/index.js'
import { OriginalsService, listedJson } from '../originals/service.js'
import { SummaryLinks } from '../originals/summaries.js'
import { renderList } from '../originals/tools.js'
import { type Command, type Invocation, openStore, print, printJson, UsageError } from './common.js'

/** The originals folder of this invocation, as its messages name it. */
const folderOf = (invocation: Invocation): string => (invocation.values.folder ?? DEFAULT_ORIGINALS_DIR).replace(/\/+$/, '')

async function withService<T>(invocation: Invocation, run: (service: OriginalsService) => Promise<T>): Promise<T> {
  const store = await openStore(invocation)
  try {
    const folder = new OriginalsFolder({ root: store.root, folder: folderOf(invocation), countPages: (fd, path) => countPages(fd, path, typeOf(path)) }).open()
    const service = new OriginalsService(
      store,
      folder,
      () => new SafeFetcher({ timeoutMs: DOWNLOAD_TIMEOUT_MS, logger: { warn: (f, ...a) => process.stderr.write(`${[f, ...a].join(' ')}\n`), debug: () => {} } }),
      new SummaryLinks(store, folder),
    )
    return await run(service)
  } finally {
    await store.close()
  }
}

const SUBCOMMANDS: Record<string, Command> = {
  list: (invocation) =>
    withService(invocation, async (service) => {
      const items = await service.list()
      if (invocation.values.json) printJson(items.map(listedJson))
      else print(renderList(items))
      return 0
    }),
  extract: (invocation) => {
    const source = invocation.positionals[1]
    if (!source) throw new UsageError('originals extract needs a path (as `originals list` names it)')
    return withService(invocation, async (service) => {
      const got = await service.extract(source, invocation.values.from, invocation.values.to)
      if (invocation.values.json) printJson(got)
      else print(got.text)
      return 0
    })
  },
  add: (invocation) => {
    const file = invocation.positionals[1]
    if (!file || !invocation.values.as) throw new UsageError('originals add needs a file and --as <destination inside originals/>')
    return withService(invocation, async (service) => {
      const done = await service.save(file, invocation.values.as, { kind: 'person' }, { cwd: process.cwd(), replaces: invocation.values.replaces })
      if (invocation.values.json) printJson(done)
      else print(done.existing ? `already there, byte for byte: ${folderOf(invocation)}/${done.path} (nothing copied)` : `added ${folderOf(invocation)}/${done.path}`)
      return 0
    })
  },
  download: (invocation) => {
    const url = invocation.positionals[1]
    if (!url || !invocation.values.as) throw new UsageError('originals download needs a URL and --as <destination inside originals/>')
    return withService(invocation, async (service) => {
      const got = await service.download(url, invocation.values.as, invocation.values.replaces)
      if (invocation.values.json) printJson(got)
      else
        print(
          [
            got.existing
              ? `already there, byte for byte: ${folderOf(invocation)}/${got.path}`
              : `downloaded ${folderOf(invocation)}/${got.path} (${got.size} bytes, ${got.contentType || 'unknown type'})`,
            got.markdown ? `main content as Markdown: ${folderOf(invocation)}/${got.markdown.path}` : '',
            got.note ?? '',
          ]
            .filter(Boolean)
            .join('\n'),
        )
      return 0
    })
  },
  retire: (invocation) => {
    const source = invocation.positionals[1]
    if (!source || !invocation.values.why || !invocation.values.reason) throw new UsageError('originals retire needs a path, --why wrong|replaced and --reason TEXT')
    return withService(invocation, async (service) => {
      const { entry, summaries } = await service.retire(source, invocation.values.why, invocation.values.reason, invocation.values['replaced-by'])
      if (invocation.values.json) printJson({ path: entry.path, retired: entry.retired, summaries })
      else
        print(
          `${folderOf(invocation)}/${entry.path} is retired (moved to ${folderOf(invocation)}/${entry.retired?.storedAs}).${summaries.length ? ` Summaries built on it: ${summaries.join(', ')} — retire or supersede them.` : ''}`,
        )
      return 0
    })
  },
}

export const originals: Command = async (invocation) => {
  const sub = invocation.positionals[0]
  const run = sub && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined
  if (!run) throw new UsageError(`originals needs one of: ${Object.keys(SUBCOMMANDS).join(', ')}`)
  return run(invocation)
}
