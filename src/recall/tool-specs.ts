/**
 * What the model is told about `knowledge_search` and `knowledge_read`: their descriptions and argument schemas,
 * declared once for every surface that offers them (this row's dsh tools and the MCP server of `dsh-knowledge mcp`),
 * so an agent reached either way reads the same words and the same budgets.
 * @module dsh-knowledge-sync/recall/tool-specs
 */
import { MAX_LIMIT, STATUS_FILTERS } from '../knowledge/query.js'
import { OUTPUT_BUDGET } from '../tool-output.js'
import { DOC_KINDS } from '../wire.js'

export const SEARCH_DESCRIPTION =
  'Search the knowledge base of earlier sessions (questions, answers, notes, tool calls) with BM25. ' +
  'Use a few keywords, an error code or an identifier. Returns ids with their revision (v:N), titles, dates and snippets; read one with knowledge_read. ' +
  'Documents may be in English or Chinese; words are matched across the two and through common synonyms, but weakly: ' +
  'when nothing fits, search once more with synonyms or in the other language.' +
  ` Output: at most ${OUTPUT_BUDGET.knowledge_search} characters.`

/** The JSON Schema of `knowledge_search`'s arguments. */
export const SEARCH_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Keywords, an error message, an identifier or a question.' },
    kind: { type: 'string', enum: [...DOC_KINDS], description: 'Only documents of this kind.' },
    tag: { type: 'string', description: 'Only documents with this tag.' },
    tool: { type: 'string', description: 'Only rounds that used a tool matching this glob, e.g. "bash*".' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: 'How many hits (default: the configured search limit).' },
    status: { type: 'string', enum: [...STATUS_FILTERS], description: 'Default: active and superseded documents (retired ones are left out). "retired" or "all" shows them on purpose.' },
  },
  required: ['query'],
  additionalProperties: false,
}

export const READ_DESCRIPTION =
  'Read one knowledge document by the id knowledge_search returned: whole, or one section ("Finding", ' +
  '"Answer", "Tools", …). Returns its revision (v:N) and the list of its sections. Links to other documents appear ' +
  'as ids; a successor is named first ("Superseded by"), the documents that link here last ("Linked from").' +
  ` Output: at most ${OUTPUT_BUDGET.knowledge_read} characters; a longer answer ends with the offset to continue from.`
