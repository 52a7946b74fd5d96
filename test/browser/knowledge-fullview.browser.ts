/**
 * The full-size documents view (issue 16.6) in real headless Chromium against a real `dsh web` with the packed bundle,
 * at 1024×640: the Knowledge section's "Open full size" draws the same Documents list over the whole window (dsh web
 * rc.8's `shell.overlay` slot), with more rows on screen than the Settings dialog shows; Escape goes back one level
 * (a document to the list, then the view closes back to Settings, still open on Knowledge); the sidebar's foot
 * action (`sidebar.footer.action`) opens it too, and focus stays inside while it is open.
 *
 * Screenshots: test/artifacts/knowledge-full-{dialog,open,document,sidebar}.png (see docs/page.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { closeSettings, launchBrowser, openDsh, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'

const MANY = 60
const SEED = join(PROJECT_ROOT, 'test/harness/seed-rounds.ts')
const poll = <T>(read: () => T | Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 100 })

function round(k: number) {
  return {
    session: `session-${(0x20000000 + k).toString(16)}-0000-4000-8000-000000000000`,
    turn: 1,
    cwd: '/work/projects/webapp',
    created: new Date(Date.UTC(2026, 9, 1) + k * 3_600_000).toISOString(),
    outcome: 'completed',
    question: `Why does the build fail with ERR_MODULE_NOT_FOUND for @acme/mod${k}?`,
    answer: `The cause was a missing exports entry in @acme/mod${k}/package.json. Fix: add "./client" to exports and rebuild with pnpm@9.12.${k % 10}.`,
    tools: [{ name: 'bash', arguments: JSON.stringify({ command: `pnpm build --filter @acme/mod${k}` }) }],
  }
}

let server: ModelServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page

const settingsDialog = () => page.getByRole('dialog').filter({ has: page.getByRole('navigation') })
const full = () => page.getByTestId('knowledge-full')

/** Rows of `rows` wholly on screen inside `frame` (and the window), with nothing scrolled. */
async function rowsOnScreen(rows: Locator, frame: Locator): Promise<number> {
  const box = (await frame.boundingBox())!
  return rows.evaluateAll(
    (els, f) =>
      els.filter((r) => {
        const b = r.getBoundingClientRect()
        return b.height > 0 && b.top >= f.y && b.bottom <= Math.min(window.innerHeight, f.y + f.height)
      }).length,
    box,
  )
}

describe('the full-size documents view', () => {
  beforeAll(async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-full-')), 'knowledge')
    mkdirSync(root, { recursive: true })
    const spec = join(mkdtempSync(join(tmpdir(), 'dsh-ks-full-spec-')), 'spec.json')
    writeFileSync(spec, JSON.stringify({ rounds: Array.from({ length: MANY }, (_, k) => round(k)) }))
    const seeded = JSON.parse(execFileSync(process.execPath, [SEED, root, spec], { encoding: 'utf8' }).trim().split('\n').pop()!)
    expect(seeded).toEqual({ kept: MANY, dropped: 0 })
    server = await startModelServer(byPrompt({}))
    home = await createDshHome({ profile: 'web', modelUrl: server.url, knowledgeRoot: root })
    web = await home.web()
    browser = await launchBrowser({ viewport: { width: 1024, height: 640 } })
    page = browser.page
    page.setDefaultTimeout(60_000)
    await openDsh(page, web.url)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('opens from the section over the whole window with more rows than the dialog; Escape goes back one level, to Settings on Knowledge', async () => {
    await openSettingsSection(page, /^knowledge$/i)
    const section = page.getByTestId('knowledge-page')
    await poll(() => section.getByTestId('knowledge-doc').count()).toBe(50)
    const inDialog = await rowsOnScreen(section.getByTestId('knowledge-doc'), settingsDialog())
    const dialogWidth = Math.round((await section.getByTestId('knowledge-doc').first().boundingBox())!.width)
    await screenshot(page, 'knowledge-full-dialog')

    const opener = section.getByTestId('knowledge-open-full')
    await opener.click()
    await full().waitFor()
    await poll(() => full().getByTestId('knowledge-doc').count()).toBe(50)
    const inFull = await rowsOnScreen(full().getByTestId('knowledge-doc'), full().getByTestId('knowledge-full-body'))
    const width = async (list: Locator) => Math.round((await list.getByTestId('knowledge-doc').first().boundingBox())!.width)
    console.log(`[item 6] rows wholly on screen at 1024×640: Settings dialog ${inDialog}, full-size view ${inFull}; row width ${dialogWidth} px → ${await width(full())} px`)
    expect(inFull).toBeGreaterThan(inDialog)
    expect(await full().getByTestId('knowledge-count').innerText()).toBe('50 of 60')
    // Settings stays open underneath; its list lets go while the view has it.
    expect(await settingsDialog().count()).toBe(1)
    expect(await section.getByTestId('knowledge-full-shown').count()).toBe(1)
    expect(await section.getByTestId('knowledge-documents').count()).toBe(0)
    await screenshot(page, 'knowledge-full-open')

    // Keyboard inside the view: j moves to the first row, Enter opens it, Escape back to the list, Escape closes.
    await page.keyboard.press('j')
    await page.keyboard.press('Enter')
    await full().getByTestId('knowledge-document').waitFor()
    await screenshot(page, 'knowledge-full-document')
    await page.keyboard.press('Escape')
    await full().getByTestId('knowledge-documents').waitFor()
    expect(await full().count()).toBe(1)
    await page.keyboard.press('Escape')
    await full().waitFor({ state: 'detached' })
    expect(await settingsDialog().count()).toBe(1) // Escape did not close Settings underneath
    await section.getByTestId('knowledge-documents').waitFor()
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('knowledge-open-full')
    await poll(() => section.getByTestId('knowledge-doc').count()).toBe(50)
  })

  it('opens from the sidebar foot too; Tab stays inside; Escape closes it back to the sidebar', async () => {
    await closeSettings(page)
    const action = page.getByTestId('knowledge-sidebar-open')
    expect(await action.getAttribute('aria-label')).toBe('Knowledge documents, full size')
    await action.click()
    await full().waitFor()
    await poll(() => full().getByTestId('knowledge-doc').count()).toBe(50)
    for (let k = 0; k < 12; k++) await page.keyboard.press('Tab')
    expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid=knowledge-full]'))).toBe(true)
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search')
    await screenshot(page, 'knowledge-full-sidebar')
    await page.keyboard.press('Escape')
    await full().waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('knowledge-sidebar-open')
  })
})
