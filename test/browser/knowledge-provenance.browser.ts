/**
 * Where a document comes from and where it goes (issue 28 items 5, 19, 20), in real headless Chromium against a real
 * `dsh web` with the packed bundle:
 * - workspaces: rounds seeded in two git repositories whose subfolders are both `packages/core`, and in a folder
 *   outside git; the filter lists one entry per repository (the subfolder folded in, counted), named by repository and
 *   place, and the rows read `alpha/packages/core` and `beta/packages/core` (the old label was "…/packages/core");
 * - provenance: a round captured from this dsh web's chat links to its session (following it leaves Settings for the
 *   chat); a seeded round's session, unknown to this dsh web, stays text;
 * - the file: "Copy full path" is absolute, and "Open in default app" goes through dsh's own opener (`host.openPath`),
 *   enabled by the api-gateway row's `nativeOpen` (the headless machine has no desktop): the opener dsh runs is a
 *   recording `xdg-open` first on PATH, which writes down the path it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { chooseWorkspace, closeSettings, launchBrowser, openDsh, openSettingsSection, screenshot, sendPrompt, type BrowserSession } from '../harness/browser.ts'

const SEED = join(PROJECT_ROOT, 'test/harness/seed-rounds.ts')
const SHOT = process.env.KS_SHOT ?? 'after'
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 200 })
const PROMPT = 'Why does the zebra build fail with ERR_ZEBRA_42?'
const TERSE = 'thanks'
const ANSWER = 'The cause was a stale cache key in .zebra/config. Workaround: delete .zebra/cache and pin zebra@2.1.0, then rebuild.'

let server: ModelServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let base = ''
let root = ''
let opened = ''

const session = (k: number) => `session-${(0x20000000 + k).toString(16)}-0000-4000-8000-000000000000`
function round(k: number, cwd: string) {
  return {
    session: session(k),
    turn: 1,
    cwd,
    created: new Date(Date.UTC(2026, 9, 1) + k * 3_600_000).toISOString(),
    outcome: 'completed',
    question: `Why does pnpm install fail with ERR_PNPM_FETCH_404 for @acme/pkg${k}?`,
    answer: `The cause was the registry URL in .npmrc for @acme/pkg${k}. Workaround: set @acme:registry=https://npm.acme.internal/ and pin pnpm@9.12.${k % 10}.`,
    tools: [{ name: 'bash', arguments: JSON.stringify({ command: `pnpm add @acme/pkg${k}` }) }],
  }
}

async function json<T>(path: string): Promise<T> {
  return (await fetch(new URL(path, web.url))).json() as Promise<T>
}

async function openDocument(id: string): Promise<void> {
  await openSettingsSection(page, /^knowledge$/i)
  await page.getByTestId('knowledge-page').waitFor()
  if (await page.getByTestId('knowledge-document').count())
    await page
      .getByTestId('knowledge-document')
      .getByRole('button', { name: /All documents/ })
      .click()
  await page.getByTestId('knowledge-filter-workspace').selectOption('')
  await page.locator(`[data-testid="knowledge-doc"][data-id="${id}"] [data-testid="knowledge-doc-open"]`).click()
  await page.getByTestId('knowledge-front-matter').waitFor()
}

describe('where a document comes from and where it goes', () => {
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'dsh-ks-provenance-'))
    root = join(base, 'knowledge')
    mkdirSync(root, { recursive: true })
    const alpha = join(base, 'src', 'alpha')
    const beta = join(base, 'work', 'beta')
    const scratch = join(base, 'scratch')
    for (const dir of [join(alpha, 'packages', 'core'), join(beta, 'packages', 'core'), scratch]) mkdirSync(dir, { recursive: true })
    for (const repo of [alpha, beta]) expect(spawnSync('git', ['init', '-q'], { cwd: repo }).status).toBe(0)
    const rounds = [round(1, join(alpha, 'packages', 'core')), round(2, join(alpha, 'packages', 'core')), round(3, alpha), round(4, join(beta, 'packages', 'core')), round(5, scratch)]
    const spec = join(base, 'seed.json')
    writeFileSync(spec, JSON.stringify({ rounds }))
    expect(JSON.parse(execFileSync(process.execPath, [SEED, root, spec], { encoding: 'utf8' }).trim().split('\n').pop()!)).toEqual({ kept: 5, dropped: 0 })

    // The desktop dsh hands files to: a recording opener first on PATH (dsh runs it without a shell).
    const bin = join(base, 'bin')
    opened = join(base, 'opened.txt')
    mkdirSync(bin)
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
    process.env.PATH = `${bin}:${process.env.PATH}`

    server = await startModelServer(byPrompt({ [PROMPT]: [{ text: ANSWER }], [TERSE]: [{ text: 'Glad it helped.' }] }, { title: 'Zebra build' }))
    home = await createDshHome({ profile: 'web', knowledgeRoot: root, modelUrl: server.url, profilePatch: '- id: api-gateway\n  config:\n    nativeOpen: true\n' })
    const workspace = join(base, 'project')
    mkdirSync(workspace)
    web = await home.web({ cwd: workspace })
    browser = await launchBrowser()
    page = browser.page
    await openDsh(page, web.url)
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('lists one workspace per repository, named by repository and place, and rows that read apart', async () => {
    await openSettingsSection(page, /^knowledge$/i)
    await page.getByTestId('knowledge-page').waitFor()
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(5)
    const select = page.getByTestId('knowledge-filter-workspace')
    const options = await select.locator('option').allInnerTexts()
    // "All workspaces", then alpha (3: its own round and packages/core's two), beta (1), scratch (1): no packages/core entry.
    expect(options).toHaveLength(4)
    expect(options[1]).toMatch(/^alpha — \/.*alpha \(3\)$/)
    expect(options.slice(2).sort()).toEqual([expect.stringMatching(/^beta — \/.*beta \(1\)$/), expect.stringMatching(/^scratch — \/.*scratch \(1\)$/)])
    expect(options.join('\n')).not.toMatch(/…\/packages\/core|^core/m)
    expect(await select.locator('option').nth(1).getAttribute('title')).toMatch(/a git repository: its subfolders count as part of it\nincludes 1 subfolder\(s\): packages\/core$/)
    const labels = await page.getByTestId('knowledge-workspace').allInnerTexts()
    expect(labels.filter((l) => l.endsWith('packages/core')).sort()).toEqual(['alpha/packages/core', 'alpha/packages/core', 'beta/packages/core'])
    // Selecting alpha lists what its count said.
    await select.selectOption({ index: 1 })
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(3)
    await screenshot(page, `provenance-workspaces-${SHOT}`)
  })

  it("a seeded round's session (unknown to this dsh web) stays text; the path copied is absolute", async () => {
    const seeded = `${(0x20000000 + 4).toString(16)}-t1`
    await openDocument(seeded)
    const cell = page.getByTestId('knowledge-session')
    expect(await cell.getAttribute('data-linked')).toBe('false')
    expect(await page.getByTestId('knowledge-session-open').count()).toBe(0)
    const doc = await json<{ file: string; path: string }>(`/knowledge/documents/${seeded}`)
    expect(doc.file).toBe(join(root, doc.path))
    expect(await page.getByTestId('knowledge-copy-path').getAttribute('title')).toBe(doc.file)
  })

  it('opens the file with the default app through dsh, with its absolute path', async () => {
    const seeded = `${(0x20000000 + 4).toString(16)}-t1`
    const doc = await json<{ file: string }>(`/knowledge/documents/${seeded}`)
    const button = page.getByTestId('knowledge-open-file')
    await button.waitFor()
    expect(await button.innerText()).toBe('Open in default app')
    await button.click()
    await poll(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : '')).toBe(`${doc.file}\n`)
    await poll(() => button.innerText()).toBe('Opened')
    expect(await page.getByTestId('knowledge-open-file-error').count()).toBe(0)
  })

  it("a round captured from this dsh web's chat links to its session, and following it leaves Settings for the chat", async () => {
    if (await page.getByTestId('knowledge-document').count())
      await page
        .getByTestId('knowledge-document')
        .getByRole('button', { name: /All documents/ })
        .click()
    await closeSettings(page)
    await chooseWorkspace(page, join(base, 'project'))
    await sendPrompt(page, PROMPT, 'The cause was a stale cache key')
    let id = ''
    await poll(async () => {
      // The one document not seeded: the chat's round (its id starts with its dsh session's first 8 hex digits).
      const list = await json<{ items: Array<{ id: string; title: string }> }>('/knowledge/documents?limit=50')
      id = list.items.find((item) => !item.id.startsWith('2000000'))?.id ?? ''
      return id
    }).not.toBe('')
    await openDocument(id)
    const cell = page.getByTestId('knowledge-session')
    await poll(() => cell.getAttribute('data-linked')).toBe('true')
    await screenshot(page, `provenance-session-${SHOT}`)
    await page.getByTestId('knowledge-session-open').click()
    await page
      .getByRole('dialog')
      .filter({ has: page.getByRole('navigation') })
      .waitFor({ state: 'detached', timeout: 60_000 })
    await page.getByText(ANSWER.slice(0, 30)).first().waitFor()
    // Under the answer, the round's marker: kept, and it opens the document it became (the ledger's verdict by turn).
    const kept = page.locator('[data-testid=knowledge-round-marker][data-kept=true]')
    await kept.first().waitFor()
    expect(await kept.first().getAttribute('title')).toContain(id)
    await screenshot(page, `provenance-marker-${SHOT}`)
    await kept.first().click()
    const full = page.getByTestId('knowledge-full')
    await poll(() => full.getByTestId('knowledge-document').getAttribute('data-id')).toBe(id)
    await full.getByTestId('knowledge-full-close').click()
    await full.waitFor({ state: 'detached' })
    // A terse round is not kept, and its marker says why; the kept one keeps its own.
    await sendPrompt(page, TERSE, 'Glad it helped.')
    const dropped = page.locator('[data-testid=knowledge-round-marker][data-kept=false]')
    await dropped.first().waitFor()
    expect(await dropped.first().innerText()).toMatch(/^Not kept/)
    expect(await kept.count()).toBe(1)
  })
})
