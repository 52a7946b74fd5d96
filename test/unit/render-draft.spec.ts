/**
 * renderDraft's two page-facing rules (issue 16, item 7): a note leaves out an empty section instead of showing
 * "Scope (empty)", and a failed tool call is marked "(failed)" on its `## Tools` line whether or not its result is kept.
 */
import { describe, expect, it } from 'vitest'
import { redactDraft, renderDraft, type DocumentDraft } from '../../src/knowledge/documents/draft.js'
import { createRedactor } from '../../src/redact/redactor.js'

const redactor = () => createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })

async function render(draft: DocumentDraft): Promise<string> {
  return renderDraft(draft, await redactDraft(draft, redactor()), 'x-1').body
}

describe('renderDraft', () => {
  it('leaves an empty section out of a note, keeps the filled ones in order', async () => {
    const body = await render({
      kind: 'note',
      title: 'Pin pnpm',
      cwd: '/w',
      sections: [
        { heading: 'Finding', text: 'Pin pnpm@9.12.1.' },
        { heading: 'Scope', text: '  \n ' },
        { heading: 'Evidence', text: 'CI log' },
      ],
    })
    expect(body).not.toMatch(/Scope|_\(empty\)_/)
    expect(body.indexOf('## Finding')).toBeLessThan(body.indexOf('## Evidence'))
  })

  it("keeps a round's fixed shape: an empty answer still shows as (empty)", async () => {
    const body = await render({
      kind: 'raw',
      title: 'q',
      cwd: '/w',
      sections: [
        { heading: 'Question', text: 'q' },
        { heading: 'Answer', text: '' },
      ],
    })
    expect(body).toContain('## Answer\n\n_(empty)_')
  })

  it('marks a failed tool call, with or without its kept result, and not a successful one', async () => {
    const tools = [
      { name: 'bash', arguments: '{"command":"pnpm test"}', isError: true, result: 'exit 1' },
      { name: 'read_file', arguments: '{"path":"a.ts"}' },
    ]
    const plain = await render({ kind: 'raw', title: 'q', cwd: '/w', sections: [], tools })
    expect(plain).toMatch(/^- `bash` \(failed\) — /m)
    expect(plain).toMatch(/^- `read_file` — /m)
    const kept = await render({ kind: 'raw', title: 'q', cwd: '/w', sections: [], tools, keepFailedResults: true })
    expect(kept).toMatch(/^- `bash` \(failed\) — .*\n {2}- failed: exit 1/m)
  })
})
