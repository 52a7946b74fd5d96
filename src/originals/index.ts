/**
 * Row `knowledge-originals`: the files a knowledge base is built from, kept as obtained in `<root>/originals/` with
 * a manifest, and the tools that keep them (`list_sources`, `extract_text`, `save_to_sources`,
 * `download_to_sources`; `request_file` and `retire_source` where a person can answer). The agent's own file tools
 * may read and search the folder but not write it (a `tools/pre-execute` listener denies that). A watcher picks up
 * files copied in by hand. Imports no other row.
 * @module dsh-knowledge-sync/originals
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import type {} from '@deepseek-ai/dsh-agent'
import type { PreToolDecision } from '@deepseek-ai/dsh-tools'
import type {} from '../knowledge/index.js'
import { TreeWatcher } from '../knowledge/disk/tree-watch.js'
import { DEFAULT_ORIGINALS_DIR, OriginalsFolder, typeOf } from '../knowledge/originals/index.js'
import { provideStaleSummaries } from '../knowledge/wiki/wiki.js'
import { SafeFetcher } from '../net/fetcher.js'
import { sessionOf } from '../tool-output.js'
import { registerAskTools } from './ask-tools.js'
import { countPages } from './extract/index.js'
import { DENY_REASON, writeIntoFolder } from './guard.js'
import { OriginalsService } from './service.js'
import { SummaryLinks } from './summaries.js'
import { registerTools } from './tools.js'

declare module '@deepseek-ai/cordis' {
  interface Context {
    knowledgeOriginals: OriginalsService
  }
}

export const name = 'knowledge-originals'
export const inject = ['knowledge', 'tools']

/** How long the watcher waits after the last change before it rescans (a copy arrives in many writes). */
export const RESCAN_DEBOUNCE_MS = 300
/** A download may take this long in all. */
export const DOWNLOAD_TIMEOUT_MS = 120_000

export interface Config {
  /** The folder of originals, relative to the knowledge root. */
  folder: string
  /** Deny the agent's file tools (write, edit, shell redirections) writing into the folder. */
  guard: boolean
  /** Watch the folder for files copied in by hand. */
  watch: boolean
}

export const Config: z<Config> = z.object({
  folder: z.string().default(DEFAULT_ORIGINALS_DIR).description('The folder of originals, relative to the knowledge root.'),
  guard: z.boolean().default(true).description("Deny the agent's file tools (write, edit, shell redirections) writing into the folder."),
  watch: z.boolean().default(true).description('Watch the folder for files copied in by hand.'),
}) as z<Config>

/** Watches the folder and rescans after changes settle; `onScanned` hears each rescan. Returns the disposer. */
export function watchFolder(folder: OriginalsFolder, onScanned: (result: { added: string[]; changed: string[] }) => void, onError: (error: Error) => void): () => void {
  let timer: NodeJS.Timeout | undefined
  const watcher = new TreeWatcher(
    folder.dir,
    () => {
      clearTimeout(timer)
      timer = setTimeout(() => folder.scan().then(onScanned, onError), RESCAN_DEBOUNCE_MS)
    },
    onError,
  )
  watcher.start()
  return () => {
    clearTimeout(timer)
    watcher.close()
  }
}

export function apply(ctx: Context, config: Config): void {
  const store = ctx.knowledge
  const logger = ctx.logger('knowledge-originals')
  const folder = new OriginalsFolder({ root: store.root, folder: config.folder, logger, countPages: (fd, path) => countPages(fd, path, typeOf(path)) }).open()
  const summaries = new SummaryLinks(store, folder)
  const service = new OriginalsService(store, folder, () => new SafeFetcher({ logger, timeoutMs: DOWNLOAD_TIMEOUT_MS }), summaries)
  ctx.effect(() => summaries.follow(), 'originals summary links')
  ctx.effect(() => provideStaleSummaries(store, () => summaries.staleIds()), 'originals stale summaries for the wiki index')
  // The page's Originals view reads through the same service (rows never import each other: it is a service).
  ctx.provide('knowledgeOriginals', service)
  registerTools(ctx, service)
  registerAskTools(ctx, service)

  if (config.guard) {
    const spellings = [...new Set([folder.dir, `${store.root}/${config.folder}`.replace(/\/+$/, '')])]
    const folderName = config.folder.replace(/\/+$/, '').split('/').pop() ?? DEFAULT_ORIGINALS_DIR
    ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
      const cwd = sessionOf(exec.agent)?.header?.cwd || process.cwd()
      const target = writeIntoFolder(exec.name, exec.arguments, cwd, spellings, folderName)
      if (target !== undefined) {
        logger.debug('denied %s writing into the originals folder: %s', exec.name, target)
        return { kind: 'deny', reason: DENY_REASON(target) }
      }
      return next()
    })
  }
  if (config.watch) {
    ctx.effect(
      () =>
        watchFolder(
          folder,
          (r) => (r.added.length || r.changed.length) && logger.debug('originals: %d new, %d changed', r.added.length, r.changed.length),
          (e) => logger.warn('originals: %s', e.message),
        ),
      'originals watcher',
    )
  }
  void folder.scan().catch((error: Error) => logger.warn('originals: %s', error.message))
}
