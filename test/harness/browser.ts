/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for page tests against a real `dsh web`.
 * Launch flags follow the machine notes: no sandbox (root), no GPU, no background networking (the closed network
 * refuses it), a fresh profile dir per launch. Also the dsh web boot steps every page test repeats: dismiss the
 * first-run dialogs, open Settings, open a section.
 *
 * Plain TypeScript that Node 22 runs with type stripping: no enums, no parameter properties.
 * @module dsh-knowledge-sync/test/harness/browser
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { PROJECT_ROOT } from './dsh.ts'

/** Where page tests keep screenshots (gitignored). */
export const ARTIFACTS = join(PROJECT_ROOT, 'test/artifacts')

export const CHROMIUM = process.env.DSH_TEST_CHROMIUM ?? '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
]

export interface BrowserSession {
  context: BrowserContext
  page: Page
  /** Console messages and page errors seen so far (for failure messages). */
  console: string[]
  close(): Promise<void>
}

/** Launches Chromium with a fresh user-data dir and opens one page. */
export async function launchBrowser(options: { locale?: string; viewport?: { width: number; height: number } } = {}): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'dsh-ks-chromium-'))
  // playwright owns --user-data-dir: a persistent context is how a fresh, throw-away profile dir is passed.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    locale: options.locale ?? 'en-US',
    viewport: options.viewport ?? { width: 1280, height: 900 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  const log: string[] = []
  page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`))
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`))
  return {
    context,
    page,
    console: log,
    async close() {
      await context.close().catch(() => {})
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** Saves a full-page screenshot under test/artifacts/ and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const file = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/** Clicks away the first-run dialogs ("Internal Testing Notice", "Add an API key") while any is showing. */
export async function dismissDialogs(page: Page, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  // Only the first-run buttons: a broader pattern would also hit the Settings dialog's own Close.
  const button = page
    .locator('[role=dialog] button')
    .filter({ hasText: /^(continue|configure later)$/i })
    .first()
  let quiet = 0
  while (Date.now() < deadline && quiet < 3) {
    if (await button.count()) {
      await button.click().catch(() => {})
      quiet = 0
    } else {
      quiet++ // the boot dialogs may open a moment after the shell: look a few times before calling it done
    }
    await page.waitForTimeout(300)
  }
}

/** Loads dsh web and waits for the shell (the Settings trigger) to be on screen; boot failures throw with page text. */
export async function openDsh(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle' })
  const trigger = page.getByRole('button', { name: /^(settings|设置)$/i })
  try {
    await trigger.first().waitFor({ state: 'visible', timeout: 60_000 })
  } catch (error) {
    const text = await page
      .locator('body')
      .innerText()
      .catch(() => '')
    throw new Error(`dsh web did not boot: ${(error as Error).message}\npage text:\n${text.slice(0, 2000)}`)
  }
  await dismissDialogs(page)
}

/** Opens Settings and the named section in its navigation. */
export async function openSettingsSection(page: Page, section: RegExp): Promise<void> {
  await dismissDialogs(page, 1500)
  const dialog = page.getByRole('dialog')
  if (!(await dialog.filter({ has: page.getByRole('navigation') }).count())) {
    await page
      .getByRole('button', { name: /^(settings|设置)$/i })
      .first()
      .click()
  }
  await dialog.getByRole('button', { name: section }).first().click()
}

/**
 * The boot most page specs share: Chromium launched, dsh web at `url` open, Settings → Knowledge shown and its page
 * drawn. The browser is closed again if any step fails (the spec never got it to close).
 */
export async function openKnowledgePage(url: string, options: Parameters<typeof launchBrowser>[0] = {}): Promise<BrowserSession> {
  const browser = await launchBrowser(options)
  try {
    await openDsh(browser.page, url)
    await openSettingsSection(browser.page, /^knowledge$/i)
    await browser.page.getByTestId('knowledge-page').waitFor()
    return browser
  } catch (error) {
    await browser.close()
    throw error
  }
}

/** Closes the Settings dialog if it is open. */
export async function closeSettings(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog').filter({ has: page.getByRole('navigation') })
  if (await dialog.count()) {
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached', timeout: 60_000 })
  }
}

/**
 * Picks `dir` as the workspace of the new-session composer through dsh web's directory browser ("Choose workspace"
 * → edit path → Enter → Open).
 */
export async function chooseWorkspace(page: Page, dir: string): Promise<void> {
  await page
    .getByText(/^choose workspace$/i)
    .first()
    .click()
  const dialog = page.getByRole('dialog').filter({ hasText: /select workspace directory/i })
  await dialog
    .getByRole('button', { name: /edit path/i })
    .first()
    .click()
  const input = dialog.getByRole('textbox').first()
  await input.fill(dir)
  await input.press('Enter')
  await dialog.getByRole('button', { name: /^open$/i }).click()
  await dialog.waitFor({ state: 'detached', timeout: 60_000 })
}

/** Types a prompt into the chat composer and sends it with Enter; resolves when `expectReply` is on screen. */
export async function sendPrompt(page: Page, prompt: string, expectReply: string | RegExp, timeoutMs = 60_000): Promise<void> {
  const composer = page.locator('textarea').first()
  await composer.click()
  await composer.fill(prompt)
  await composer.press('Enter')
  await page.getByText(expectReply).first().waitFor({ state: 'visible', timeout: timeoutMs })
}
