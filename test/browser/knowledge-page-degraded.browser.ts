/**
 * The Knowledge page when dsh web runs without a settings service (the `settings` row disabled): the browser's
 * settings scope then stays `loading` for ever. The page must still boot with dsh, say that live settings are
 * unavailable, and show the rows' own config read-only, while the Documents tab works as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type WebProcess } from '../harness/dsh.ts'
import { launchBrowser, openDsh, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'

/** The page answers asynchronously (debounced search, fetches, a busy 2-core machine): wait up to 15 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let web: WebProcess
let browser: BrowserSession
let page: Page

describe('the Knowledge page without a settings service', () => {
  beforeAll(async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-page-')), 'knowledge')
    execFileSync(process.execPath, [join(PROJECT_ROOT, 'lib/cli/bin.js'), 'capture', '--root', root], {
      input: JSON.stringify({
        session: 'sess-eeee5555',
        turn: 1,
        cwd: '/work/projects/cli',
        created: '2026-10-09T10:00:00Z',
        question: 'Why does the release script exit with code 127?',
        answer: 'Because `pnpm` is not on PATH inside the release container, so the shell exits 127. Install pnpm@10 in the image.',
        outcome: 'completed',
        tools: [{ name: 'bash', arguments: { command: './release.sh' } }],
      }),
    })
    const home = await createDshHome({ profile: 'web', knowledgeRoot: root, profilePatch: '- id: settings\n  disabled: true\n' })
    web = await home.web()
    browser = await launchBrowser()
    page = browser.page
    await openDsh(page, web.url)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
  })

  it('says live settings are unavailable and shows the effective config read-only', async () => {
    await openSettingsSection(page, /^knowledge$/i)
    const knowledge = page.getByTestId('knowledge-page')
    await knowledge.getByRole('tab', { name: 'Config' }).click()
    const config = page.getByTestId('knowledge-config')
    // The scope never answers: after the page's timeout the tab gives up waiting.
    await poll(() => config.getAttribute('data-phase')).toBe('unavailable')
    expect(await page.getByTestId('knowledge-settings-notice').innerText()).toMatch(/^Live settings are unavailable/)
    const minScore = page.getByTestId('knowledge-field-capture-salience-minScore')
    await poll(() => minScore.getByTestId('knowledge-value').innerText()).toMatch(/^\d+$/)
    // Nothing is editable once the values are in: no inputs, no Save or Reset, only values.
    // (The bar chart's "Try a bar" input saves nothing: it only counts, in the page, what a bar would keep.)
    expect(await config.locator('input:not([data-testid=knowledge-rounds-try]), textarea').count()).toBe(0)
    expect(await config.getByRole('button').count()).toBe(0)
    expect(await page.getByTestId('knowledge-field-recall-searchLimit').getByTestId('knowledge-value').innerText()).toBe('8')
    await screenshot(page, 'knowledge-config-unavailable')

    await knowledge.getByRole('tab', { name: 'Documents' }).click()
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(1)
    expect(await page.getByTestId('knowledge-doc').first().innerText()).toContain('exit with code 127')
  })
})
