/**
 * The distill request is a way out of the machine like the disk (issue 10, item 1): with the real dsh agent loop
 * in-process, a round whose question and tool calls carry a GitHub token, an AWS key pair, a URL password and a
 * `\u`-escaped token is distilled, and the model request body carries none of them (no part of any), while the
 * distilled document is clean too and keeps the raw round at one heading level inside its appendix.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { createLoop, byPrompt, type Loop, type LoopRequest, type Reply } from '../harness/loop.ts'
import { allDocuments, allFiles, ledgerEntries } from '../harness/files.ts'

const SESSION = 'session-3f2a9c1e-1111-4222-8333-444455556666'
// Fake credentials of real shapes, assembled so no scanner flags this file itself.
const GH = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
const GH2 = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'
const AKIA = 'AKIA' + 'QYLPMN5HFIQR7XZT'
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYzQ4v8Hk2Lm9T'
const DB_PASSWORD = 'yfE7kQ2pLm9xTr4v'
const SECRETS = [GH, GH2, AKIA, AWS_SECRET, DB_PASSWORD]

const QUESTION = `Why does git push fail with my token ${GH}?`
const ANSWER =
  'The cause was an expired credential: git push failed with HTTP 403 because the token had been revoked. Fixed by creating a new token with the repo scope and storing it in the credential helper; chose that over an env var because the CI image is shared.'
const REPLY: Reply = { text: '## Summary\nAsked why git push fails; the token had been revoked.\n\n## Finding\nCreate a new token with the repo scope and store it in the credential helper.' }

let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})
const isDistill = (r: LoopRequest) => /dsh-knowledge-sync distiller/.test(r.system)
const until = async (check: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The first 6-character piece of any secret that `text` holds. */
function leaked(text: string): string | undefined {
  for (const s of SECRETS) for (let i = 0; i + 6 <= s.length; i++) if (text.includes(s.slice(i, i + 6))) return `${s.slice(i, i + 6)} of ${s.slice(0, 8)}…`
  return undefined
}

describe('the distill request', () => {
  it('carries no secret of the round: question, tool arguments (escaped or not) and answer are redacted before sending', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-distill-redact-')), 'kb')
    const chat = byPrompt({
      'git push': [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: `git remote set-url origin https://x-access-token:${GH}@github.com/acme/app.git && git push` } },
            {
              name: 'bash',
              arguments: { command: `AWS_ACCESS_KEY_ID=${AKIA} AWS_SECRET_ACCESS_KEY=${AWS_SECRET} aws s3 ls`, env: { DATABASE_URL: `postgres://admin:${DB_PASSWORD}@db.internal:5432/app` } },
            },
            // As a model may send it: JSON with \u escapes, which the request would otherwise show decoded.
            { name: 'bash', arguments: `{"command":"curl -H 'Authorization: token ${GH2.replace('g', '\\u0067').replace('h', '\\u0068')}' https://api.github.com/user"}` },
            { name: 'bash', arguments: { command: `psql ${DB_PASSWORD}` } },
          ],
        },
        { text: ANSWER },
      ],
    })
    loop = await createLoop(
      (r) => (isDistill(r) ? REPLY : chat(r)),
      [
        [knowledge, { root }],
        [capture, { distill: { enabled: true } }],
      ],
    )
    ;(loop.adapter as any).resolveModel = async (provider: string, model: string) => ({
      provider,
      id: model,
      name: model,
      reasoning: {
        efforts: [
          { id: 'off', name: 'Off' },
          { id: 'high', name: 'High' },
        ],
        defaultEffort: 'high',
      },
    })
    await loop.ask(QUESTION, { session: SESSION, cwd: '/work/proj' })
    await until(() => ledgerEntries(root).some((e) => e.type === 'distilled' || e.type === 'distill-failed'))
    await loop.dispose()

    // The conversation itself saw the secrets (the round really carries them) …
    const chatBody = JSON.stringify(loop.adapter.requests.filter((r) => !isDistill(r)).map((r) => r.options.messages))
    expect(chatBody).toContain(GH)
    expect(chatBody).toContain(AWS_SECRET)
    // … the distill request does not, in any part.
    const requests = loop.adapter.requests.filter(isDistill)
    expect(requests).toHaveLength(1)
    const body = JSON.stringify({ system: requests[0].system, messages: requests[0].options.messages })
    expect(leaked(body)).toBeUndefined()
    expect(body).toContain('[REDACTED]')
    expect(body).toContain('git push') // the round is still there, only its secrets are not

    // The document and everything else on disk are clean as well.
    for (const file of allFiles(root)) expect(leaked(file.text), file.path).toBeUndefined()
    const [doc] = allDocuments(root)
    const { meta, body: markdown } = parseDocument(doc.text, doc.path, 'x', 0)
    expect(meta.kind).toBe('distilled')
    // The raw round sits one level below the appendix heading: Question, Answer and Tools alike.
    const appendix = markdown.slice(markdown.indexOf('## Appendix: the raw round'))
    expect(appendix.match(/^#{1,6} .*$/gm)).toEqual(['## Appendix: the raw round', '### Question', '### Answer', '### Tools'])
    expect(markdown.match(/^## .*$/gm)).toEqual(['## Summary', '## Finding', '## Appendix: the raw round'])
  })
})
