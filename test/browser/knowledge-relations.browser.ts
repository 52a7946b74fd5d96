/**
 * Correcting knowledge from the page, in real headless Chromium against a real `dsh web` with the packed bundle:
 * status badges in the list, "Superseded by" / "Supersedes" / "Linked from" as links inside the page, retire with a
 * reason and restore from the document view (POST with the per-page token), and the ledger naming the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { launchBrowser, openDsh, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'
import { ledgerEntries } from '../harness/files.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 })

let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root = ''
let oldId = '', newId = ''

const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))

describe('correcting knowledge on the Knowledge page', () => {
  beforeAll(async () => {
    root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-relpage-')), 'knowledge')
    oldId = cli('note', '--cwd', '/work/app', '--title', 'Builds need Node 18', '--finding', 'The build only works on Node 18 because of the native sqlite addon.').id
    newId = cli('note', '--cwd', '/work/app', '--title', 'Builds need Node 22', '--finding', 'The build needs Node 22: it uses node:sqlite, so no native addon is built.', '--supersedes', oldId).id
    home = await createDshHome({ profile: 'web', knowledgeRoot: root })
    web = await home.web()
    browser = await launchBrowser()
    page = browser.page
    await openDsh(page, web.url)
    await openSettingsSection(page, /^knowledge$/i)
    await page.getByTestId('knowledge-page').waitFor()
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
  })

  it('shows a status badge in the list and the successor as a link inside the page', async () => {
    const oldRow = page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"]`)
    await poll(() => oldRow.getByTestId('knowledge-status').innerText()).toBe('superseded')
    expect(await page.locator(`[data-testid="knowledge-doc"][data-id="${newId}"]`).getByTestId('knowledge-status').count()).toBe(0)
    await oldRow.getByRole('button', { name: 'Builds need Node 18' }).click()
    const superseded = page.getByTestId('knowledge-supersededBy')
    await poll(() => superseded.innerText()).toContain('Builds need Node 22')
    await screenshot(page, 'relations-superseded')
    await superseded.getByRole('button', { name: 'Builds need Node 22' }).click()
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(newId)
    await poll(() => page.getByTestId('knowledge-supersedesLabel').innerText()).toContain('Builds need Node 18 (superseded)')
  })

  it('retires a document with a reason and restores it; both are recorded as the page\'s doing', async () => {
    const view = page.getByTestId('knowledge-document')
    await view.getByRole('button', { name: 'Retire…' }).click()
    const confirm = view.getByRole('button', { name: 'Retire', exact: true })
    expect(await confirm.isDisabled()).toBe(true)
    await view.getByRole('textbox', { name: 'Why is this document wrong?' }).fill('We moved to Bun; Node is no longer used.')
    await confirm.click()
    await poll(() => view.getByTestId('knowledge-status').innerText()).toBe('retired')
    await poll(() => view.getByRole('status').innerText()).toContain('We moved to Bun; Node is no longer used.')
    await screenshot(page, 'relations-retired')
    // Back in the list, the retired document is gone (it stays on disk).
    await page.getByRole('button', { name: /All documents/ }).click()
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(1)
    // The Status filter shows retired documents on purpose; restore from there.
    await page.getByRole('combobox', { name: 'Status' }).selectOption('retired')
    const retiredRow = page.locator(`[data-testid="knowledge-doc"][data-id="${newId}"]`)
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(1)
    expect(await retiredRow.getByTestId('knowledge-status').innerText()).toBe('retired')
    await retiredRow.getByRole('button', { name: 'Builds need Node 22' }).click()
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(newId)
    await page.getByTestId('knowledge-document').getByRole('button', { name: 'Restore' }).click()
    await poll(() => page.getByTestId('knowledge-document').getByTestId('knowledge-status').count()).toBe(0)
    expect(ledgerEntries(root).filter((e) => e.type === 'status' && e.actor === 'page')).toMatchObject([
      { id: newId, status: 'retired', reason: 'We moved to Bun; Node is no longer used.' },
      { id: newId, status: 'active' },
    ])
    await page.getByRole('button', { name: /All documents/ }).click()
    await page.getByRole('combobox', { name: 'Status' }).selectOption('')
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(2)
  })
})
