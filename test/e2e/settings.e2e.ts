/**
 * Configuration with the real dsh CLI: the `knowledge` settings namespace in `$DSH_HOME/settings.yaml` overrides the
 * rows' config; `redact.enabled: false` is honored and warned about; a bad pattern is a clear configuration error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDshHome } from '../harness/dsh.ts'
import { allDocuments } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

const TOKEN = 'ghp_' + 'Settings0Test1Token2Abc3Def4Ghi5Jkl6M'
let server: ModelServer

beforeAll(async () => {
  server = await startModelServer(
    byPrompt(
      {
        'run the tests': [{ text: '12 passed' }],
        'rotate the token': [{ text: `The cause was an expired token; rotated it to ${TOKEN} because the old one leaked in CI logs.` }],
      },
      { title: 'Scripted title' },
    ),
  )
})
afterAll(async () => {
  await server?.close()
})

describe('settings with the real dsh CLI', () => {
  it('applies a minScore override from the knowledge namespace in settings.yaml', async () => {
    const home = await createDshHome({ modelUrl: server.url })
    const before = await home.run('run the tests')
    expect(before.code, before.log).toBe(0)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(0)
    writeFileSync(join(home.home, 'settings.yaml'), 'knowledge:\n  capture:\n    salience:\n      minScore: 0\n')
    const after = await home.run('run the tests')
    expect(after.code, after.log).toBe(0)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(1)
  }, 180_000)

  it("keeps working on the rows' own config when the stored settings are invalid, and says why", async () => {
    const home = await createDshHome({ modelUrl: server.url })
    writeFileSync(join(home.home, 'settings.yaml'), 'knowledge:\n  redact:\n    patterns: ["(unclosed"]\n')
    const run = await home.run('rotate the token now')
    expect(run.code, run.log).toBe(0)
    const docs = allDocuments(home.knowledgeRoot)
    expect(docs).toHaveLength(1)
    expect(docs[0].text).not.toContain(TOKEN.slice(4))
    expect(run.log).toMatch(/unclosed/)
  }, 180_000)

  it('honors redact.enabled: false and logs it as a warning', async () => {
    const home = await createDshHome({ modelUrl: server.url, profilePatch: "- id: knowledge\n  config: { root: '', redact: { enabled: false, mask: '[REDACTED]', patterns: [] } }\n" })
    const run = await home.run('rotate the token now')
    expect(run.code, run.log).toBe(0)
    expect(run.log).toMatch(/warn \[knowledge\] redaction is DISABLED/)
    expect(allDocuments(home.knowledgeRoot)[0].text).toContain(TOKEN)
  }, 180_000)

  it('refuses a bad redact pattern in the row config with a clear error naming it', async () => {
    const home = await createDshHome({
      modelUrl: server.url,
      profilePatch: "- id: knowledge\n  config: { root: '', redact: { enabled: true, mask: '[REDACTED]', patterns: ['ok-[0-9]+', '(unclosed'] } }\n",
    })
    const run = await home.run('rotate the token now')
    expect(`${run.stderr}\n${run.log}`).toMatch(/redact\.patterns\[1\].*\(unclosed/)
    expect(allDocuments(home.knowledgeRoot)).toHaveLength(0)
  }, 180_000)
})
