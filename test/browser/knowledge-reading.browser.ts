/**
 * The Knowledge page reads like a document, not like its source (issue 28), in real headless Chromium against a real
 * `dsh web` with the packed bundle: snippets are plain text with highlight spans (no link targets, comments, notice
 * or glob turned italic); links by id open the document in the page; a synced section hides its markers, says where
 * and when it synced and sits its upstream's headings below the document's own; Escape goes back one level at a time
 * and focus is never dropped to the body; "Copy full path" copies the absolute path.
 *
 * Screenshots go to test/artifacts/ with the suffix in KS_SHOT (default "after"); docs/page.md describes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
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
let oldId = ''
let newId = ''
let linkerId = ''

const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))
const activeLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? document.activeElement?.tagName)
const openDoc = async (id: string) => {
  await page.locator(`[data-testid="knowledge-doc"][data-id="${id}"] [data-testid="knowledge-doc-open"]`).click()
  await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(id)
  await page.getByTestId('knowledge-markdown').waitFor()
}
const backToList = async () => {
  await page
    .getByTestId('knowledge-document')
    .getByRole('button', { name: /All documents/ })
    .click()
  await page.getByTestId('knowledge-documents').waitFor()
}

describe('the Knowledge page reads like a document', () => {
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-reading-'))
    root = join(base, 'knowledge')
    const workspace = join(base, 'project')
    mkdirSync(join(workspace, '.git'), { recursive: true })
    oldId = cli('note', '--cwd', workspace, '--title', 'CI cache key', '--finding', 'The CI cache key must include the lockfile hash; misses show in /var/log/app/*.log as cache-miss lines.').id
    newId = cli('note', '--cwd', workspace, '--title', 'CI cache key for pnpm', '--finding', 'The CI cache key is the pnpm store path plus the lockfile hash.', '--supersedes', oldId).id
    linkerId = cli('note', '--cwd', workspace, '--title', 'Release checklist', '--finding', 'Check the cache before tagging a release.', '--link', newId).id
    // A synced document: sync writes the section from a local source (the provenance line, then the text).
    writeFileSync(join(base, 'deploy-guide.md'), '# Deploy guide\n\n## Steps\n\n- run `make deploy`\n- tail /var/log/app/*.log\n')
    writeFileSync(
      join(root, 'runbook.md'),
      '---\nid: runbook\ntitle: Runbook\nkind: manual\n---\n# Runbook\n\n## Deploy\n\n<!-- upstream:start name="deploy" -->\n<!-- upstream:end -->\n\n## Our notes\n\nPage the on-call first.\n',
    )
    writeFileSync(join(root, 'sources.yml'), 'sources:\n  - { name: deploy, type: local, path: deploy-guide.md, target: { file: runbook.md, section: deploy } }\n')
    // The local source sits beside the root, outside any work tree: the person allows its folder (issue 23's rule).
    execFileSync(process.execPath, [CLI, 'sync', '--root', root, '--allow-local', base], { encoding: 'utf8' })
    server = await startModelServer(byPrompt({}, { title: 'ok' }))
    home = await createDshHome({ profile: 'web', knowledgeRoot: root, modelUrl: server.url })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'])
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('search snippets are plain text with highlight spans: no link target, comment, notice or italic glob', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('ci cache log')
    const row = page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"]`)
    await poll(() => row.getByTestId('knowledge-snippet').count()).toBe(1)
    await screenshot(page, `reading-snippets-${SHOT}`)
    const snippet = row.getByTestId('knowledge-snippet')
    const textOf = await snippet.innerText()
    expect(textOf).not.toMatch(/\]\(|\.md\b|<!--|knowledge:status|\*\*|Superseded/)
    expect(textOf).toContain('/var/log/app/*.log')
    expect(await snippet.locator('em, strong, a').count()).toBe(0)
    const marks = await snippet.locator('mark').allInnerTexts()
    expect(marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['ci', 'cache', 'log']))
    await page.getByRole('searchbox', { name: 'Search' }).fill('')
  })

  it('links by id open the linked document inside the page; the status notice is not repeated in the body', async () => {
    await openDoc(linkerId)
    const link = page.getByTestId('knowledge-markdown').getByTestId('knowledge-doc-link')
    await poll(() => link.count()).toBe(1)
    expect(await page.getByTestId('knowledge-markdown').innerText()).not.toMatch(/\]\(/)
    await screenshot(page, `reading-links-${SHOT}`)
    // Every state the page passes through (a MutationObserver sees each commit): the linked document's id never
    // stands over the linking document's text, whose actions would then act on the wrong file.
    await page.evaluate(() => {
      const w = window as unknown as { __docStates: string[]; __docObserver: MutationObserver }
      w.__docStates = []
      w.__docObserver = new MutationObserver(() => {
        const article = document.querySelector('[data-testid=knowledge-document]')
        const title = article?.querySelector('[data-testid=knowledge-document-title]')?.textContent
        if (article && title) w.__docStates.push(`${article.getAttribute('data-id')} ${title}`)
      })
      w.__docObserver.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
    })
    const states = () => page.evaluate(() => (window as unknown as { __docStates: string[] }).__docStates)
    await link.click()
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(newId)
    await poll(states).toContain(`${newId} CI cache key for pnpm`)
    await page.evaluate(() => (window as unknown as { __docObserver: MutationObserver }).__docObserver.disconnect())
    expect(await states()).not.toContain(`${newId} Release checklist`)
    await page.getByTestId('knowledge-supersedesLabel').getByRole('button').click()
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(oldId)
    await page.getByTestId('knowledge-markdown').waitFor()
    // The header says "Superseded by" (a link); the body's notice line would say it again, with Markdown in it.
    expect(await page.getByTestId('knowledge-supersededBy').innerText()).toContain('CI cache key for pnpm')
    expect(await page.getByTestId('knowledge-markdown').innerText()).not.toMatch(/Superseded|\]\(|<!--/)
    await backToList()
  })

  it('a synced section hides its markers, says where and when it synced, and demotes the upstream headings', async () => {
    await openDoc('runbook')
    const body = page.getByTestId('knowledge-markdown')
    await screenshot(page, `reading-synced-${SHOT}`)
    expect(await body.innerText()).not.toMatch(/<!--|upstream:|-->/)
    const badge = body.getByTestId('knowledge-synced-badge')
    // The date comes from the Sources route, read after the document itself: the badge shows without it until then.
    await poll(() => badge.innerText()).toMatch(/Synced from .*deploy-guide\.md, \w{3} \d{1,2}, \d{4}/)
    const section = body.getByTestId('knowledge-synced')
    expect(await section.locator('h1, h2').count()).toBe(0)
    const size = (sel: string) =>
      body
        .locator(sel)
        .first()
        .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))
    const own = await size('h2')
    expect(await section.getByRole('heading', { name: 'Deploy guide' }).evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))).toBeLessThan(own)
    // The list items are items, not glued to a marker.
    expect(await section.locator('li').allInnerTexts()).toEqual(['run make deploy', 'tail /var/log/app/*.log'])
  })

  it('"Copy full path" copies the absolute path of the file', async () => {
    await page.getByTestId('knowledge-copy-path').click()
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(join(root, 'runbook.md'))
    await backToList()
  })

  it('Escape goes back one level at a time, and focus never falls to the page body', async () => {
    const search = page.getByRole('searchbox', { name: 'Search' })
    await search.fill('cache')
    await search.press('Escape')
    // The query is cleared; the page (and Settings) stay open.
    expect(await search.inputValue()).toBe('')
    expect(await page.getByTestId('knowledge-page').isVisible()).toBe(true)

    await openDoc(linkerId)
    const view = page.getByTestId('knowledge-document')
    await view.getByRole('button', { name: 'Retire…' }).click()
    const reason = view.getByRole('textbox', { name: 'Why is this document wrong?' })
    expect(await activeLabel()).toBe('Why is this document wrong?')
    await reason.fill('not sure')
    await page.keyboard.press('Escape')
    expect(await reason.inputValue()).toBe('')
    expect(await view.isVisible()).toBe(true)
    await page.keyboard.press('Escape')
    await poll(() => reason.count()).toBe(0)
    expect(await activeLabel()).toBe('Retire…')
    await page.keyboard.press('Escape')
    await page.getByTestId('knowledge-documents').waitFor()

    // Clear leaves the page: focus goes to the search box.
    await search.fill('cache')
    const clear = page.getByRole('button', { name: 'Clear', exact: true }).first()
    await clear.click()
    expect(await activeLabel()).toBe('Search')
  })
})
