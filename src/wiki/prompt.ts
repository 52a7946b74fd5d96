/**
 * The wiki's system-prompt section: how to work with the pages, and what each page type is for. Built once from
 * the row's types when the row starts, so it is byte for byte the same for the whole session (and every session of
 * this configuration): the prompt's prefix cache keeps it. Nothing volatile (counts, titles) is in it.
 * @module dsh-knowledge-sync/wiki/prompt
 */
import type { PageType } from '../knowledge/wiki/page-types.js'

/** Tool guidance sections use orders 100–199; the wiki sits before the recall pointer (190). */
export const WIKI_PROMPT_ORDER = 180

/** The section's text for `types` (no `{{`: the prompt renderer would take it for a variable). */
export function wikiPromptText(types: readonly PageType[]): string {
  return [
    '## Knowledge wiki',
    'Besides captured rounds and notes, the knowledge base holds a wiki of linked pages that you keep up to date.',
    '- Start with knowledge_search or knowledge_index; read only the pages the task needs (knowledge_read).',
    '- Link pages and rounds by id in the text: [payments service](entity/payments-service), [the failing deploy](3f2a9c1e-t4).',
    '- Change pages by fragments (knowledge_edit); rewrite a whole page (knowledge_rewrite) only when most of it changes.',
    '- Never delete or rename a page: supersede (knowledge_supersede) or retire it.',
    '- When an operation (ingest, query, lint, update) is done, record it with knowledge_log.',
    '- Every claim must be traceable to a summary, a round, an original, or clearly labelled web content.',
    '- When sources disagree, keep both claims with their attribution; do not overwrite one with the other.',
    "- Write pages in the conversation's language.",
    'Page types:',
    ...types.map((t) => `- ${t.type}: ${t.description.replaceAll('{{', '{ {')}`),
  ].join('\n')
}
