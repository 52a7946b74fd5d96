/**
 * Capture through the real dsh agent loop (in-process), with a scripted model.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as knowledge from '../../src/knowledge/index.js'
import * as capture from '../../src/capture/index.js'
import { byPrompt, createLoop, type Loop, type LoopScript } from '../harness/loop.ts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { parseDocument } from '../../src/knowledge/documents/document.js'
import { allDocuments, ledgerEntries } from '../harness/files.ts'

const SESSION = 'session-3f2a9c1e-1111-4222-8333-444455556666'
let loop: Loop | undefined
afterEach(async () => {
  await loop?.dispose()
  loop = undefined
})

async function boot(script: LoopScript, captureConfig: Record<string, unknown> = {}) {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-capture-')), 'kb')
  loop = await createLoop(script, [
    [knowledge, { root }],
    [capture, captureConfig],
  ])
  return { root, loop }
}

const DIAGNOSIS =
  'The cause was the pnpm store path: `pnpm install` failed with ERR_PNPM_EACCES because /root/.local/share/pnpm was owned by another user. Fixed by setting `store-dir=/tmp/pnpm-store` in .npmrc; chose that over chown because CI images are read-only.'

describe('capture in the real agent loop', () => {
  it('writes one redacted document per kept round, with the documented front matter and body', async () => {
    const { root, loop } = await boot(
      byPrompt({
        'Why does pnpm install fail': [
          {
            reasoning: 'PRIVATE-CHAIN-OF-THOUGHT-7731',
            toolCalls: [{ name: 'missing_tool', arguments: { command: 'pnpm install --reporter=ndjson', token: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' } }],
          },
          { reasoning: 'MORE-PRIVATE-REASONING-9942', text: DIAGNOSIS },
        ],
      }),
    )
    await loop.ask('Why does pnpm install fail on the CI runner?', { session: SESSION, cwd: '/work/proj' })
    await loop.dispose()
    const docs = allDocuments(root)
    expect(docs).toHaveLength(1)
    const [doc] = docs
    expect(doc.path).toMatch(/^session-3f2a9c1e-1111-4222-8333-444455556666\/3f2a9c1e-t1-why-does-pnpm-install-fail-on-the-ci-runner\.md$/)
    const { meta, body } = parseDocument(doc.text, doc.path, 'x', 0)
    expect(meta).toMatchObject({ id: '3f2a9c1e-t1', kind: 'raw', session: SESSION, turn: 1, outcome: 'completed', cwd: '/work/proj', tools: ['missing_tool'] })
    expect(meta.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    expect(meta.title).toBe('Why does pnpm install fail on the CI runner?')
    expect((meta.salience as { score: number }).score).toBeGreaterThan(0)
    expect(meta.redacted).toBeGreaterThanOrEqual(1)
    expect(Array.isArray(meta.tags)).toBe(true)
    expect(body).toContain('# Why does pnpm install fail on the CI runner?')
    expect(body).toMatch(/## Question\n\nWhy does pnpm install fail on the CI runner\?/)
    expect(body).toContain(`## Answer\n\n${DIAGNOSIS}`)
    expect(body).toMatch(/## Tools\n\n- `missing_tool` \(failed\) — \{"command":"pnpm install --reporter=ndjson","token":"[^"]*\[REDACTED\][^"]*"\}/)
    expect(doc.text).not.toContain('a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8')
    expect(doc.text).not.toContain('PRIVATE-CHAIN-OF-THOUGHT')
    expect(doc.text).not.toContain('MORE-PRIVATE-REASONING')
    expect(ledgerEntries(root).filter((e) => e.type === 'kept')).toHaveLength(1)
  })

  it('writes nothing for a terse status round and counts it as dropped with its reason', async () => {
    const { root, loop } = await boot(byPrompt({ 'run the tests': [{ text: '12 passed' }] }))
    await loop.ask('run the tests', { session: SESSION })
    await loop.dispose()
    expect(allDocuments(root)).toHaveLength(0)
    const dropped = ledgerEntries(root).filter((e) => e.type === 'dropped')
    expect(dropped).toHaveLength(1)
    expect(dropped[0].reasons[0]).toMatch(/^-/)
  })

  it('keeps the terse round too when minScore is 0', async () => {
    const { root, loop } = await boot(byPrompt({ 'run the tests': [{ text: '12 passed' }] }), { salience: { minScore: 0 } })
    await loop.ask('run the tests', { session: SESSION })
    await loop.dispose()
    expect(allDocuments(root)).toHaveLength(1)
  })

  it('writes nothing for an errored round or a round with no answer text', async () => {
    const { root, loop } = await boot(
      byPrompt({
        explode: [{ status: 400 }],
        silent: [{ toolCalls: [{ name: 'missing_tool', arguments: {} }] }, { text: '' }],
      }),
    )
    await loop.ask('explode please', { session: SESSION })
    await loop.ask('silent please', { session: SESSION })
    await loop.dispose()
    expect(allDocuments(root)).toHaveLength(0)
    const outcomes = ledgerEntries(root)
      .filter((e) => e.type === 'unanswered')
      .map((e) => e.outcome)
      .sort()
    expect(outcomes).toEqual(['errored', 'no-answer'])
  })

  it('gives two sessions that share a short id different ids and never overwrites', async () => {
    const script = byPrompt({ Why: [{ text: DIAGNOSIS }] })
    const { root, loop } = await boot(script)
    await loop.ask('Why does pnpm install fail?', { session: 'session-abcdef12-0000-4000-8000-000000000001' })
    await loop.ask('Why does pnpm install fail?', { session: 'session-abcdef12-9999-4000-8000-000000000002' })
    await loop.dispose()
    const ids = allDocuments(root)
      .map((d) => parseDocument(d.text, d.path, 'x', 0).meta.id)
      .sort()
    expect(ids).toEqual(['abcdef12-t1', 'abcdef129999-t1'])
  })

  it('does not capture subagent child sessions separately unless captureSubagents is on', async () => {
    const script = byPrompt({ Why: [{ text: DIAGNOSIS }] })
    const off = await boot(script)
    await off.loop.ask('Why does pnpm install fail?', { session: 'session-c0c0c0c0-0000-4000-8000-000000000001', subagentOf: SESSION })
    await off.loop.dispose()
    expect(allDocuments(off.root)).toHaveLength(0)
    const on = await boot(script, { captureSubagents: true })
    await on.loop.ask('Why does pnpm install fail?', { session: 'session-c0c0c0c0-0000-4000-8000-000000000001', subagentOf: SESSION })
    await on.loop.dispose()
    expect(allDocuments(on.root)).toHaveLength(1)
  })

  it('stops capturing when the row is disabled and leaves the agent loop working', async () => {
    const { root, loop } = await boot(byPrompt({ Why: [{ text: DIAGNOSIS }] }), { enabled: false })
    await loop.ask('Why does pnpm install fail?', { session: SESSION })
    await loop.dispose()
    expect(existsSync(root) ? readdirSync(root).filter((n) => !n.startsWith('.')) : []).toEqual([])
    expect(loop.adapter.requests.length).toBe(1)
  })

  it('survives hostile rounds: a 10 MB argument, binary, {{, YAML breakers and front-matter delimiters', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024)
    const hostile = 'Root cause: the parser broke because of `---` lines.\n---\nid: evil\ntitle: "x\n---\n{{ system }} \u0000\u0001\ud800 ::: - [ ] & * ! | > %'
    const { root, loop } = await boot(
      byPrompt({
        hostile: [{ toolCalls: [{ name: 'missing_tool', arguments: { blob: huge, bin: '\u0000\u00ff\ufffd' } }] }, { text: hostile }],
      }),
      { salience: { minScore: 0 } },
    )
    await loop.ask('hostile: ---\nkind: note\n{{x}}', { session: SESSION })
    await loop.dispose()
    const docs = allDocuments(root)
    expect(docs).toHaveLength(1)
    const { meta, body } = parseDocument(docs[0].text, docs[0].path, 'x', 0)
    expect(meta.id).toBe('3f2a9c1e-t1')
    expect(meta.kind).toBe('raw')
    expect(body).toContain('{{ system }}')
    expect(docs[0].text.length).toBeLessThan(200_000)
    expect(docs[0].text).not.toContain('\u0000')
  })
})

describe('capture off the hot path', () => {
  it('awaits queued rounds when the row is disposed', async () => {
    const { root, loop } = await boot(byPrompt({ Why: [{ text: DIAGNOSIS }] }))
    await loop.ask('Why does pnpm install fail?', { session: SESSION })
    // No wait here: disposal itself must flush the queue.
    await loop.dispose()
    expect(allDocuments(root)).toHaveLength(1)
    expect(readFileSync(join(root, allDocuments(root)[0].path), 'utf8')).toContain(DIAGNOSIS)
  })
})
