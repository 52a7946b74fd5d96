/**
 * The output declaration shared by this bundle's tools: each returns an object with a `text` field for the model
 * (and structured fields for presentation), rendered as one text block.
 * @module dsh-knowledge-sync/tool-output
 */
export const TEXT_OUTPUT = {
  schema: { type: 'object' as const },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: String((value as { text?: unknown } | null)?.text ?? '') }],
}
