/**
 * The Sources tab in real headless Chromium against a real `dsh web` with the packed bundle (the knowledge-sync row
 * on by default, its timers off): each source with its last status and cache state, "Preview changes" shows the
 * diff and writes nothing, "Sync now" (a guarded POST with the page token) writes the section.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { launchBrowser, openDsh, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'
import { startWebServer, text, type WebServer } from '../harness/web-server.ts'

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })
const ORIGINAL =
  '---\nid: vendor\ntitle: Vendor notes\n---\nOur own notes stay.\n<!-- upstream:start name="limits" -->\nold limits\n<!-- upstream:end -->\n<!-- upstream:start name="adr" -->\n<!-- upstream:end -->\n'

let model: ModelServer
let upstream: WebServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root = ''

describe('the Sources tab in dsh web', () => {
  beforeAll(async () => {
    upstream = await startWebServer({ '/limits': text('<html><body><main><h1>Limits</h1><p>100 requests per minute.</p></main></body></html>', 'text/html') })
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-srcpage-'))
    root = join(base, 'knowledge')
    mkdirSync(root)
    execFileSync('git', ['init', '-q', base])
    writeFileSync(join(base, 'adr.md'), 'Decision: retries stay at 3.\n')
    writeFileSync(join(root, 'vendor.md'), ORIGINAL)
    writeFileSync(
      join(root, 'sources.yml'),
      `sources:
  - { name: limits, type: http, url: "${upstream.url}/limits", selector: main, target: { file: vendor.md, section: limits } }
  - { name: adr, type: local, path: adr.md, target: { file: vendor.md, section: adr } }
  - { name: broken, type: https, url: "${upstream.url}/x", target: { file: vendor.md, section: limits } }
`,
    )
    model = await startModelServer(byPrompt({}, { title: 'ok' }))
    home = await createDshHome({ profile: 'web', modelUrl: model.url, knowledgeRoot: root, env: { DSH_KNOWLEDGE_SYNC_ALLOW_HOSTS: '127.0.0.1' } })
    const workspace = join(home.home, 'project')
    mkdirSync(workspace)
    web = await home.web({ cwd: workspace })
    browser = await launchBrowser()
    page = browser.page
    await openDsh(page, web.url)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await model?.close()
    await upstream?.close()
  })

  it('lists every source, previews the diff without writing, then syncs now', async () => {
    await openSettingsSection(page, /^knowledge$/i)
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Upstream' }).click()
    const rows = page.getByTestId('knowledge-source')
    await poll(() => rows.count()).toBe(3)
    expect(await rows.nth(0).innerText()).toMatch(/limits[\s\S]*never synced[\s\S]*not cached/)
    expect(await rows.nth(2).innerText()).toMatch(/broken[\s\S]*invalid-target[\s\S]*does not match type https/)
    expect(upstream.seen).toHaveLength(0)

    await page.getByTestId('knowledge-sources-dry-run').click()
    const diff = page.getByTestId('knowledge-source-diff')
    await poll(() => diff.count()).toBe(2)
    expect(await diff.first().innerText()).toMatch(/\+# Limits/)
    expect(await diff.first().innerText()).toMatch(/-old limits/)
    expect(readFileSync(join(root, 'vendor.md'), 'utf8')).toBe(ORIGINAL)
    await screenshot(page, 'knowledge-sources-preview')

    await page.getByTestId('knowledge-sources-sync').click()
    await poll(() => rows.nth(0).getAttribute('data-status')).toBe('changed')
    await poll(() => rows.nth(1).getAttribute('data-status')).toBe('changed')
    expect(await rows.nth(0).innerText()).toMatch(/fresh, fetched/)
    const after = readFileSync(join(root, 'vendor.md'), 'utf8')
    expect(after).toContain('100 requests per minute.')
    expect(after).toContain('Decision: retries stay at 3.')
    expect(after.startsWith('---\nid: vendor\ntitle: Vendor notes\n---\nOur own notes stay.\n')).toBe(true)
    await screenshot(page, 'knowledge-sources-synced')
  })
})
