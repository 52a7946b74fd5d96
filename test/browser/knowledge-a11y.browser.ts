/**
 * Keyboard and reading on the Knowledge page (issue 28, items 9, 12–15), in real headless Chromium against a real
 * `dsh web` with the packed bundle: the tabs and each row's tags are one tab stop each with arrow keys inside
 * (WAI-ARIA APG roving tabindex); every text on the Documents tab and in an open document meets WCAG AA (4.5:1,
 * computed here from the rendered colours) in dsh's Light and Dark appearances; status badges do not look like tags;
 * the Chinese page translates kind badges and Sources statuses and writes Sources dates like Documents dates.
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

const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--root', root, '--json'], { encoding: 'utf8' }))
const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? '')

/** Every element with its own visible text inside the page, with its WCAG contrast ratio against what is behind it. */
async function contrasts(): Promise<Array<{ text: string; ratio: number }>> {
  return page.getByTestId('knowledge-page').evaluate((rootEl) => {
    const parse = (c: string): [number, number, number, number] => {
      const srgb = /color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.]+))?\)/.exec(c)
      if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, srgb[4] === undefined ? 1 : Number(srgb[4])]
      const n = (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number)
      return [n[0], n[1], n[2], n[3] ?? 1]
    }
    const over = (top: [number, number, number, number], under: [number, number, number]): [number, number, number] =>
      [0, 1, 2].map((k) => top[k] * top[3] + under[k] * (1 - top[3])) as [number, number, number]
    const background = (el: Element | null): [number, number, number] => {
      const layers: Array<[number, number, number, number]> = []
      for (let e = el; e; e = e.parentElement) {
        const bg = parse(getComputedStyle(e).backgroundColor)
        if (bg[3] > 0) layers.push(bg)
        if (bg[3] >= 1) break
      }
      let rgb: [number, number, number] = layers.at(-1)?.[3] === 1 ? (layers.pop()!.slice(0, 3) as [number, number, number]) : [255, 255, 255]
      while (layers.length) rgb = over(layers.pop()!, rgb)
      return rgb
    }
    const lum = ([r, g, b]: [number, number, number]) => {
      const f = (v: number) => {
        const c = v / 255
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
      }
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
    }
    const out: Array<{ text: string; ratio: number }> = []
    for (const el of Array.from(rootEl.querySelectorAll('*'))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === 3 && n.textContent!.trim())
        .map((n) => n.textContent!.trim())
      if (!own.length || !(el as HTMLElement).offsetParent || el.closest('svg, [hidden], option')) continue
      const bg = background(el)
      const fg = over(parse(getComputedStyle(el).color), bg)
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x)
      out.push({ text: own.join(' ').slice(0, 40), ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 })
    }
    return out
  })
}

describe('keyboard and reading on the Knowledge page', () => {
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-ks-a11y-'))
    root = join(base, 'knowledge')
    const workspace = join(base, 'project')
    mkdirSync(join(workspace, '.git'), { recursive: true })
    oldId = cli('note', '--cwd', workspace, '--title', 'Redis timeouts', '--finding', 'Raise the client timeout to 5 s.', '--tags', 'redis,timeout,ops,cache').id
    cli('note', '--cwd', workspace, '--title', 'Redis timeouts, again', '--finding', 'Use a pool; 5 s was not enough.', '--tags', 'redis,pool,ops', '--supersedes', oldId)
    writeFileSync(join(base, 'limits.md'), '# Limits\n\n100 requests a minute.\n')
    writeFileSync(join(root, 'vendor.md'), '---\nid: vendor\ntitle: Vendor limits\nkind: manual\n---\n<!-- upstream:start name="limits" -->\n<!-- upstream:end -->\n')
    writeFileSync(join(root, 'sources.yml'), 'sources:\n  - { name: limits, type: local, path: limits.md, target: { file: vendor.md, section: limits } }\n')
    // The local source sits beside the root, outside any work tree: the person allows its folder (issue 23's rule).
    execFileSync(process.execPath, [CLI, 'sync', '--root', root, '--allow-local', base], { encoding: 'utf8' })
    server = await startModelServer(byPrompt({}, { title: 'ok' }))
    home = await createDshHome({ profile: 'web', knowledgeRoot: root, modelUrl: server.url })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
    await page.getByTestId('knowledge-doc').nth(2).waitFor()
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('tabs: arrow keys and End move the focus and the selection (one tab stop)', async () => {
    const tabs = page.getByTestId('knowledge-page').getByRole('tab')
    await tabs.first().focus()
    await page.keyboard.press('ArrowRight')
    expect(await focusedText()).toBe('Wiki')
    await page.keyboard.press('ArrowRight')
    expect(await focusedText()).toBe('Originals')
    expect(await page.getByRole('tab', { selected: true }).innerText()).toBe('Originals')
    await page.keyboard.press('End')
    expect(await focusedText()).toBe('Config')
    await page.keyboard.press('Home')
    expect(await focusedText()).toBe('Documents')
    expect(await tabs.evaluateAll((els) => els.filter((e) => (e as HTMLElement).tabIndex === 0).length)).toBe(1)
  })

  it("tags: one tab stop per row, arrow keys inside the row's list", async () => {
    const row = page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"]`)
    const tags = row.getByTestId('knowledge-tag')
    expect(await tags.count()).toBe(4)
    expect(await tags.evaluateAll((els) => els.map((e) => (e as HTMLElement).tabIndex))).toEqual([0, -1, -1, -1])
    await tags.first().focus()
    await page.keyboard.press('ArrowRight')
    expect(await focusedText()).toBe('timeout')
    await page.keyboard.press('End')
    expect(await focusedText()).toBe('cache')
    // Tab leaves the row's tags at once (the next stop is outside the list).
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).not.toBe('knowledge-tag')
  })

  it('status badges do not look like tags', async () => {
    const row = page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"]`)
    const style = (sel: string) =>
      row
        .getByTestId(sel)
        .first()
        .evaluate((el) => `${getComputedStyle(el).borderTopStyle} ${getComputedStyle(el).fontWeight}`)
    expect(await style('knowledge-status')).not.toBe(await style('knowledge-tag'))
  })

  it('every text meets WCAG AA (4.5:1) in Light and in Dark, in the list and in a document', async () => {
    const check = async (label: string) => {
      const low = (await contrasts()).filter((c) => c.ratio < 4.5)
      expect(low, label).toEqual([])
    }
    await screenshot(page, `a11y-list-light-${SHOT}`)
    await check('list, light')
    await page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"] [data-testid="knowledge-doc-open"]`).click()
    await page.getByTestId('knowledge-markdown').waitFor()
    await check('document, light')
    await page.getByRole('button', { name: /All documents/ }).click()
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^dark$/i }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).click()
    await page.getByTestId('knowledge-doc').first().waitFor()
    await screenshot(page, `a11y-list-dark-${SHOT}`)
    await check('list, dark')
    await page.locator(`[data-testid="knowledge-doc"][data-id="${oldId}"] [data-testid="knowledge-doc-open"]`).click()
    await page.getByTestId('knowledge-markdown').waitFor()
    await check('document, dark')
    await page.getByRole('button', { name: /All documents/ }).click()
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^light$/i }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).click()
  })

  it('Chinese: kind badges and Sources statuses are translated; Sources dates read like Documents dates', async () => {
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^English/ }).click()
    await page.getByText('中文', { exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: '知识库' }).click()
    await page.getByTestId('knowledge-doc').first().waitFor()
    const kinds = await page.getByTestId('knowledge-kind').allInnerTexts()
    expect(new Set(kinds)).toEqual(new Set(['笔记', '手写']))
    const docDate = await page.getByTestId('knowledge-doc').first().locator('span[title]').first().innerText()
    expect(docDate).toMatch(/^\d{4}年\d{1,2}月\d{1,2}日/)
    await page.getByTestId('knowledge-page').getByRole('tab', { name: '上游' }).click()
    const source = page.getByTestId('knowledge-source')
    await poll(() => source.count()).toBe(1)
    await screenshot(page, `a11y-sources-zh-${SHOT}`)
    const text = await source.innerText()
    expect(text).toContain('已更新')
    expect(text).not.toMatch(/\bchanged\b/)
    expect(text).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/)
  })
})
