/**
 * Correcting knowledge from the page, in real headless Chromium against a real `dsh web` with the packed bundle:
 * status badges in the list, "Superseded by" / "Supersedes" / "Linked from" as links inside the page, retire with a
 * reason and restore from the document view (POST with the per-page token), and the ledger naming the page. Then the
 * agent's `knowledge_retire` in a chat: dsh web's own approval panel asks the person, who allows it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { chooseWorkspace, closeSettings, openKnowledgePage, screenshot, type BrowserSession } from '../harness/browser.ts'
import { allDocuments, ledgerEntries } from '../harness/files.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let server: ModelServer
let workspace = ''
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root = ''
let oldId = '',
  newId = ''

const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))

describe('correcting knowledge on the Knowledge page', () => {
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-relpage-'))
    root = join(base, 'knowledge')
    workspace = join(base, 'project')
    mkdirSync(join(workspace, '.git'), { recursive: true })
    oldId = cli('note', '--cwd', workspace, '--title', 'Builds need Node 18', '--finding', 'The build only works on Node 18 because of the native sqlite addon.').id
    newId = cli('note', '--cwd', workspace, '--title', 'Builds need Node 22', '--finding', 'The build needs Node 22: it uses node:sqlite, so no native addon is built.', '--supersedes', oldId).id
    server = await startModelServer(
      byPrompt(
        {
          'Retire the Node 18 note': [
            { toolCalls: [{ name: 'knowledge_retire', arguments: { id: oldId, reason: 'Node 18 was never required; the addon was removed long ago.' } }] },
            { text: 'Retired the Node 18 note.' },
          ],
        },
        { title: 'Retire a note' },
      ),
    )
    home = await createDshHome({ profile: 'web', knowledgeRoot: root, modelUrl: server.url })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
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

  it("retires a document with a reason and restores it; both are recorded as the page's doing", async () => {
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
    // The list before the filter also has one row (the superseded note) until the retired list arrives: wait for that one.
    await poll(() => retiredRow.count()).toBe(1)
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(1)
    expect(await retiredRow.getByTestId('knowledge-status').innerText()).toBe('retired')
    await retiredRow.getByRole('button', { name: 'Builds need Node 22' }).click()
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(newId)
    await page.getByTestId('knowledge-document').getByRole('button', { name: 'Restore' }).click()
    // While the restored document is re-read there is no badge either: wait for it (it offers Retire… again), then look.
    await poll(() => page.getByTestId('knowledge-document').getByRole('button', { name: 'Retire…' }).count()).toBe(1)
    await poll(() => page.getByTestId('knowledge-document').getByTestId('knowledge-status').count()).toBe(0)
    expect(ledgerEntries(root).filter((e) => e.type === 'status' && e.actor === 'page')).toMatchObject([
      { id: newId, status: 'retired', reason: 'We moved to Bun; Node is no longer used.' },
      { id: newId, status: 'active' },
    ])
    await page.getByRole('button', { name: /All documents/ }).click()
    await page.getByRole('combobox', { name: 'Status' }).selectOption('')
    await poll(() => page.getByTestId('knowledge-doc').count()).toBe(2)
  })

  it("the agent's knowledge_retire waits for dsh web's approval panel; allowed once, the document is retired", async () => {
    await closeSettings(page)
    await chooseWorkspace(page, workspace)
    const composer = page.locator('textarea').first()
    await composer.click()
    await composer.fill('Retire the Node 18 note, it is wrong.')
    await composer.press('Enter')
    const reason = page.getByText(new RegExp(`Retire knowledge document ${oldId} \\(it leaves search; it stays on disk and can be restored\\): Node 18 was never required`))
    await reason.first().waitFor({ state: 'visible', timeout: 60_000 })
    // Nothing happened yet: the tool waits for the person.
    expect(readFileSync(join(root, allDocuments(root).find((d) => d.text.includes(`id: ${oldId}`))!.path), 'utf8')).not.toContain('status: retired')
    await screenshot(page, 'relations-retire-approval')
    await page.getByRole('button', { name: 'Allow once' }).click()
    await page.getByText('Retired the Node 18 note.').first().waitFor({ state: 'visible', timeout: 60_000 })
    const chat = server.requests.filter((r) => r.kind === 'chat')
    expect((chat[0].body.tools ?? []).map((t) => t.function.name)).toContain('knowledge_retire')
    expect(allDocuments(root).find((d) => d.text.includes(`id: ${oldId}`))!.text).toMatch(/^status: retired$/m)
    expect(
      ledgerEntries(root)
        .filter((e) => e.type === 'status')
        .at(-1),
    ).toMatchObject({ id: oldId, status: 'retired', actor: 'tool' })
  })
})
