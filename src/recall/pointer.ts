/**
 * The two-sentence system-prompt pointer: names the count and the workspace, says the documents are not included,
 * and says when to search and read. Byte-stable for a whole session: the text is fixed at the session's first
 * request, so documents captured during the session never invalidate the prompt-cache prefix.
 * @module dsh-knowledge-sync/recall/pointer
 */

/** Neutralizes anything the prompt renderer would read as a `{{variable}}`, and keeps the text on one line. */
export function promptSafe(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\{\{/g, '{ {')
    .replace(/\}\}/g, '} }')
}

/** The pointer text for `count` visible documents of `workspace`; '' when there is nothing to point at. */
export function pointerText(count: number, workspace: string | undefined): string {
  if (count <= 0) return ''
  const where = workspace ? `workspace ${promptSafe(workspace)}` : 'this knowledge base'
  const docs = count === 1 ? '1 document' : `${count} documents`
  return (
    `Knowledge base: earlier sessions recorded ${docs} for ${where} (their contents are NOT included here); ` +
    "call `knowledge_search` with a few keywords or an identifier before investigating an error, a decision or a setup step that may already have been worked out, and `knowledge_read` with a hit's id to read one in full. " +
    'Prefer checking there over repeating work, but trust your own judgement and what you observe now over a document that looks stale.'
  )
}

/** Per-session memo of the pointer text, bounded so long-lived web servers do not grow without end. */
export class PointerMemo {
  private readonly texts = new Map<string, string>()
  constructor(private readonly max = 2000) {}

  /** The session's pointer, computed once by `compute` at its first request. */
  get(sessionId: string, compute: () => string): string {
    let text = this.texts.get(sessionId)
    if (text === undefined) {
      text = compute()
      if (this.texts.size >= this.max) this.texts.delete(this.texts.keys().next().value as string)
      this.texts.set(sessionId, text)
    }
    return text
  }
}
