/**
 * Health findings a person can act on (issue 28, item 6), in real headless Chromium against a real `dsh web` with
 * the packed bundle: after "Probe now", near-duplicates show both titles as links, one is superseded with the other
 * from the page (confirmed first; the store's supersede path), totals are the probe's counts, the findings survive
 * switching tabs and a reload, and the charts have axes with numbers and a hover value per day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { openDsh, openKnowledgePage, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
const SHOT = process.env.KS_SHOT ?? 'after'
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root = ''
const ids: Record<string, string> = {}
const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))

describe('Health findings on the page', () => {
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-health-actions-'))
    root = join(base, 'knowledge')
    const workspace = join(base, 'project')
    mkdirSync(workspace, { recursive: true })
    const finding = 'COPY package.json before the sources so the install layer is reused.'
    ids.onCi = cli('note', '--title', 'Docker layer cache misses on CI', '--finding', finding).id
    ids.inCi = cli('note', '--title', 'Docker layer cache misses in CI builds', '--finding', finding).id
    ids.old = cli('note', '--title', 'Queue drains at night', '--finding', 'The queue drains at night.').id
    ids.newer = cli('note', '--title', 'Queue drains hourly', '--finding', 'The queue drains every hour.', '--supersedes', ids.old).id
    home = await createDshHome({ profile: 'web', knowledgeRoot: root })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
  })

  it('names both documents of a pair, opens either, and supersedes one with the other after a confirmation', async () => {
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Health' }).click()
    await page.getByTestId('knowledge-health-run').click()
    await page.getByTestId('knowledge-health-figures').waitFor({ timeout: 60_000 })
    // Three active documents probed: the superseded one is left out.
    expect(await page.getByTestId('knowledge-health-figures').innerText()).toMatch(/\(3 of 3 documents probed\)/)
    expect(await page.getByTestId('knowledge-health-duplicates-total').innerText()).toBe('Near-duplicates: 1')
    const pair = page.getByTestId('knowledge-health-pair')
    expect((await pair.innerText()).replace(/\s+/g, ' ')).toMatch(/Docker layer cache misses (on CI|in CI builds) ≈ Docker layer cache misses (on CI|in CI builds) \d+% of words shared/)
    // The axes carry numbers, and every day answers on hover.
    expect(await page.getByTestId('knowledge-health-axis').textContent()).toMatch(/^\+\d+$/)
    expect(await page.locator('[data-testid=knowledge-health-growth] g[data-day] title').count()).toBe(30)
    await screenshot(page, `health-findings-${SHOT}`)

    await pair.getByTestId('knowledge-health-open-a').click()
    await poll(() => page.getByTestId('knowledge-document').count()).toBe(1)
    await page
      .getByTestId('knowledge-document')
      .getByRole('button', { name: /All documents|Back/ })
      .first()
      .click()
    await pair.waitFor()

    const a = (await pair.getAttribute('data-a'))!
    const b = (await pair.getAttribute('data-b'))!
    await pair.locator(`[data-testid=knowledge-health-supersede][data-old="${a}"]`).click()
    await page.getByTestId('knowledge-health-confirm').click()
    await poll(() => page.getByTestId('knowledge-health-pair-done').count()).toBe(1)
    expect(await page.getByTestId('knowledge-health-pair-done').innerText()).toMatch(/is now superseded by/)
    expect(cli('read', a).meta.status).toBe('superseded')
    expect(cli('read', b).meta.supersedes).toEqual([a])
  })

  it('the findings survive switching tabs, and reloading the page (the process keeps the last probe)', async () => {
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Documents' }).click()
    await page.getByTestId('knowledge-documents').waitFor()
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Health' }).click()
    await poll(() => page.getByTestId('knowledge-health-duplicates-total').count()).toBe(1)
    await openDsh(page, web.url)
    await openSettingsSection(page, /^knowledge$/i)
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Health' }).click()
    await poll(() => page.getByTestId('knowledge-health-duplicates-total').count()).toBe(1)
    expect(await page.getByTestId('knowledge-health-pair').count()).toBe(1)
  })
})
