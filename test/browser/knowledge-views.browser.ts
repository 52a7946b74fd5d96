/**
 * The Wiki and Originals tabs and the in-place editor (issues 26, 27; 28.16), in real headless Chromium against a
 * real `dsh web` (0.1.0-rc.8) with the packed bundle, on a root made with the real CLI: the tabs follow the tab
 * pattern; the wiki's index groups pages by type with its overview and log; a note and a wiki page are edited in
 * place (masked on disk, a concurrent change refused and kept); the Originals tab lists each original's manifest
 * entry, the summary built from it (stale), its extraction state, opens its text masked and downloads it as an
 * attachment; an error reads in people's words; every text meets WCAG AA in Light and Dark; the Chinese page
 * translates the new views.
 *
 * Screenshots: test/artifacts/knowledge-wiki.png, knowledge-originals.png, knowledge-original-text.png,
 * knowledge-editor.png, knowledge-wiki-dark.png, knowledge-originals-zh.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { launchBrowser, openDsh, openKnowledgePage, openSettingsSection, screenshot, type BrowserSession } from '../harness/browser.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')
const SECRET = 'ghp_R3alLooking0Token1234567890abcdefABCD'
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let base = ''
let root = ''
let workspace = ''
let noteId = ''
let notePath = ''

const cli = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args, '--root', root], { encoding: 'utf8' })
const cliJson = (...args: string[]) => JSON.parse(cli(...args, '--json'))
const content = (name: string, text: string) => {
  const file = join(base, name)
  writeFileSync(file, text)
  return file
}
const focused = () => page.evaluate(() => ({ text: document.activeElement?.textContent ?? '', testid: document.activeElement?.getAttribute('data-testid') ?? '' }))
const knowledge = () => page.getByTestId('knowledge-page')
const tab = (name: string) => knowledge().getByRole('tab', { name })

/** The lowest WCAG contrast ratio among the page's texts, with the texts under 4.5:1. */
async function lowContrast(): Promise<string[]> {
  return knowledge().evaluate((rootEl) => {
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
    const low: string[] = []
    for (const el of Array.from(rootEl.querySelectorAll('*'))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === 3 && n.textContent!.trim())
        .map((n) => n.textContent!.trim())
      if (!own.length || !(el as HTMLElement).offsetParent || el.closest('svg, [hidden], option')) continue
      const bg = background(el)
      const fg = over(parse(getComputedStyle(el).color), bg)
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x)
      const ratio = (a + 0.05) / (b + 0.05)
      if (ratio < 4.5) low.push(`${own.join(' ').slice(0, 40)} (${ratio.toFixed(2)})`)
    }
    return low
  })
}

async function setAppearance(mode: 'dark' | 'light'): Promise<void> {
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /^general$/i })
    .click()
  await page.getByRole('button', { name: new RegExp(`^${mode}$`, 'i') }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).click()
  await knowledge().waitFor()
}

describe('the Wiki and Originals views', () => {
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'dsh-ks-views-'))
    root = join(base, 'knowledge')
    workspace = join(base, 'project')
    mkdirSync(join(workspace, '.git'), { recursive: true })
    const note = cliJson('note', '--cwd', workspace, '--title', 'Cache key', '--finding', 'The CI cache key includes the lockfile hash.', '--tags', 'ci')
    noteId = note.id
    notePath = join(root, note.path)
    // An original copied in by hand, registered, summarised, then changed: its summary is stale.
    mkdirSync(join(root, 'originals', 'course'), { recursive: true })
    writeFileSync(join(root, 'originals', 'course', 'syllabus.md'), `# Syllabus\n\nWeek 1: tides. The lab key is ${SECRET}.\n`)
    cli('originals', 'list')
    cli('create', 'summary', 'syllabus', '--cwd', workspace, '--title', 'Syllabus summary', '--content-file', content('s.md', 'Week 1 is about tides.'), '--field', 'file=course/syllabus.md')
    cli('create', 'concept', 'spring-tides', '--cwd', workspace, '--title', 'Spring tides', '--content-file', content('c.md', 'High tides at new and full moon. See [the summary](summary/syllabus).'))
    cli('create', 'entity', 'tide-gauge', '--cwd', workspace, '--title', 'Tide gauge', '--content-file', content('e.md', 'The harbour gauge that records the tides.'), '--field', 'kind=system')
    cli('rewrite', 'overview', '--cwd', workspace, '--content-file', content('o.md', 'This wiki covers the tides course.'))
    cli('log', '--cwd', workspace, '--operation', 'ingest', '--what', 'Ingested the syllabus', '--page', 'summary/syllabus')
    writeFileSync(join(root, 'originals', 'course', 'syllabus.md'), `# Syllabus\n\nWeek 1: tides. Week 2: currents. The lab key is ${SECRET}.\n`)
    cli('originals', 'list')
    home = await createDshHome({ profile: 'web', knowledgeRoot: root })
    web = await home.web({ cwd: workspace })
    browser = await openKnowledgePage(web.url)
    page = browser.page
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
  })

  it('the new tabs follow the tab pattern: arrows move focus and selection', async () => {
    await tab('Documents').focus()
    await page.keyboard.press('ArrowRight')
    expect((await focused()).text).toBe('Wiki')
    expect(await knowledge().getByRole('tab', { selected: true }).innerText()).toBe('Wiki')
    await page.keyboard.press('ArrowRight')
    expect((await focused()).text).toBe('Originals')
    expect(await knowledge().getByRole('tab', { selected: true }).innerText()).toBe('Originals')
    await page.keyboard.press('ArrowLeft')
    expect((await focused()).text).toBe('Wiki')
  })

  it('the Wiki tab shows the index grouped by type, the overview and the log', async () => {
    await tab('Wiki').click()
    const wiki = page.getByTestId('knowledge-wiki')
    await wiki.waitFor()
    expect(await wiki.getByTestId('knowledge-wiki-section').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(['summary', 'concept', 'entity'])
    expect(await wiki.getByRole('heading', { level: 3 }).allInnerTexts()).toEqual(['Overview', 'Summaries\n1', 'Concepts\n1', 'Entities\n1', 'Recent operations'])
    expect(await page.getByTestId('knowledge-wiki-overview').innerText()).toContain('This wiki covers the tides course.')
    const entity = wiki.locator('[data-testid="knowledge-wiki-entry"][data-id="entity/tide-gauge"]')
    expect(await entity.innerText()).toMatch(/Tide gauge[\s\S]*The harbour gauge that records the tides\.[\s\S]*kind: system/)
    // The summary's original changed after it was written (the wiki index's stale mark, from the originals row).
    expect(await wiki.locator('[data-testid="knowledge-wiki-entry"][data-id="summary/syllabus"]').getByTestId('knowledge-wiki-stale').innerText()).toBe('stale')
    expect(await page.getByTestId('knowledge-wiki-log-entry').first().innerText()).toMatch(/ingest[\s\S]*Ingested the syllabus[\s\S]*summary\/syllabus/)
    await screenshot(page, 'knowledge-wiki')
  })

  it('edits a wiki page in place: masked on disk, a new revision, focus kept', async () => {
    await page.locator('[data-testid="knowledge-wiki-entry"][data-id="concept/spring-tides"] button').click()
    await page.getByTestId('knowledge-document').waitFor()
    await page.getByTestId('knowledge-edit').click()
    const editor = page.getByTestId('knowledge-editor')
    await editor.waitFor()
    // The editor opens once its text is fetched; the title takes the focus in an effect after that render.
    await poll(async () => (await focused()).text).toBe('')
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('knowledge-edit-title')
    const text = page.getByTestId('knowledge-edit-content')
    expect(await text.inputValue()).toContain('[the summary](summary/syllabus)')
    await text.fill(`High tides at new and full moon, and at perigee. Key ${SECRET}. See [the summary](summary/syllabus).`)
    await screenshot(page, 'knowledge-editor')
    await page.getByTestId('knowledge-edit-save').click()
    await poll(() => page.getByTestId('knowledge-markdown').innerText()).toContain('and at perigee')
    const file = readFileSync(join(root, 'concepts', 'spring-tides.md'), 'utf8')
    expect(file).toContain('and at perigee. Key [REDACTED].')
    expect(file).toContain('](../summaries/syllabus.md)')
    expect(file).not.toContain(SECRET)
    await poll(() => page.getByTestId('knowledge-doc-version').innerText()).toBe(' · v:2')
    // Focus goes back onto Edit in an effect of the re-read document's render, not with it.
    await poll(async () => (await focused()).testid).toBe('knowledge-edit')
    // Escape goes back to the index, onto the page that was open.
    await page.keyboard.press('Escape')
    await page.getByTestId('knowledge-wiki').waitFor()
    await poll(async () => (await focused()).text).toBe('Spring tides')
  })

  it('refuses an edit of a note made on an older revision and keeps both texts', async () => {
    await tab('Documents').click()
    await page.locator(`[data-testid="knowledge-doc"][data-id="${noteId}"] [data-testid="knowledge-doc-open"]`).click()
    await page.getByTestId('knowledge-edit').click()
    await page.getByTestId('knowledge-edit-content').fill('Edited on the page.')
    // Meanwhile someone changes the note's file in an editor (no need to wait for the watcher: the save reads it again).
    const path = notePath
    writeFileSync(path, readFileSync(path, 'utf8').replace('lockfile hash', 'lockfile hash and the Node version'))
    await page.getByTestId('knowledge-edit-save').click()
    const failure = page.getByTestId('knowledge-edit-failure')
    await poll(() => failure.innerText()).toMatch(/^This document changed since you opened it/)
    expect(readFileSync(path, 'utf8')).toContain('and the Node version')
    expect(readFileSync(path, 'utf8')).not.toContain('Edited on the page.')
    await page.getByTestId('knowledge-edit-reload').click()
    await poll(() => page.getByTestId('knowledge-edit-content').inputValue()).toContain('and the Node version')
    expect(await page.getByTestId('knowledge-edit-mine').innerText()).toContain('Edited on the page.')
    await page.getByTestId('knowledge-edit-content').fill('The CI cache key includes the lockfile hash and the Node version.')
    await page.getByTestId('knowledge-edit-save').click()
    await poll(() => readFileSync(path, 'utf8')).toContain('The CI cache key includes the lockfile hash and the Node version.')
    await page.keyboard.press('Escape')
  })

  it('the Originals tab lists the manifest entry, the stale summary and the extraction state', async () => {
    await tab('Originals').click()
    const row = page.locator('[data-testid="knowledge-original"][data-path="course/syllabus.md"]')
    await row.waitFor()
    expect(await row.getByTestId('knowledge-original-status').innerText()).toBe('present')
    expect(await row.getByTestId('knowledge-original-obtained').innerText()).toMatch(/^Copied in by hand\s*· obtained .+\s*· content changed .+/)
    expect(await row.getByTestId('knowledge-original-built').innerText()).toMatch(/Built into:\s*Syllabus summary\s*stale/)
    expect(await row.getByTestId('knowledge-original-extraction').innerText()).toBe('Text can be opened')
    expect(await row.innerText()).toMatch(/\d+ B/)
    const href = await row.getByTestId('knowledge-original-download').getAttribute('href')
    const download = await page.evaluate(async (url) => {
      const r = await fetch(url!)
      return { type: r.headers.get('content-type'), disposition: r.headers.get('content-disposition'), text: await r.text() }
    }, href)
    expect(download.type).toBe('application/octet-stream')
    expect(download.disposition).toMatch(/^attachment; filename="syllabus\.md"/)
    await screenshot(page, 'knowledge-originals')
  })

  it("opens an original's extracted text masked; Escape goes back onto its button", async () => {
    const row = page.locator('[data-testid="knowledge-original"][data-path="course/syllabus.md"]')
    await row.getByTestId('knowledge-original-open').click()
    const view = page.getByTestId('knowledge-original-text')
    await view.waitFor()
    await poll(() => view.innerText()).toContain('Week 2: currents.')
    expect(await view.innerText()).toContain('[REDACTED]')
    expect(await view.innerText()).not.toContain(SECRET)
    expect(await view.innerText()).not.toMatch(/extract_text|knowledge_/)
    await screenshot(page, 'knowledge-original-text')
    await page.keyboard.press('Escape')
    await poll(async () => (await focused()).testid).toBe('knowledge-original-open')
  })

  it("an error on the page is in people's words", async () => {
    await tab('Wiki').click()
    await page.getByTestId('knowledge-wiki').waitFor()
    // The page disappears from disk after the index was shown: opening it fails.
    rmSync(join(root, 'entities', 'tide-gauge.md'))
    await page.locator('[data-testid="knowledge-wiki-entry"][data-id="entity/tide-gauge"] button').click()
    const alert = page.getByTestId('knowledge-document').getByRole('alert')
    await poll(() => alert.innerText()).toMatch(/entity\/tide-gauge/)
    expect(await alert.innerText()).not.toMatch(/knowledge_search|knowledge_read|find ids/)
    await page.keyboard.press('Escape')
  })

  it('every text of the new views meets WCAG AA in Light and in Dark', async () => {
    await tab('Wiki').click()
    await page.getByTestId('knowledge-wiki').waitFor()
    expect(await lowContrast(), 'wiki, light').toEqual([])
    await tab('Originals').click()
    await page.getByTestId('knowledge-originals').waitFor()
    expect(await lowContrast(), 'originals, light').toEqual([])
    await setAppearance('dark')
    await tab('Wiki').click()
    await page.getByTestId('knowledge-wiki').waitFor()
    await screenshot(page, 'knowledge-wiki-dark')
    expect(await lowContrast(), 'wiki, dark').toEqual([])
    await tab('Originals').click()
    await page.getByTestId('knowledge-originals').waitFor()
    expect(await lowContrast(), 'originals, dark').toEqual([])
    await setAppearance('light')
  })

  it('the Chinese page translates the new views', async () => {
    const zh = await launchBrowser({ locale: 'zh-CN' })
    try {
      await openDsh(zh.page, web.url)
      await openSettingsSection(zh.page, /^(knowledge|知识库)$/i)
      const section = zh.page.getByTestId('knowledge-page')
      await section.waitFor()
      await section.getByRole('tab', { name: '原件' }).click()
      const row = zh.page.locator('[data-testid="knowledge-original"][data-path="course/syllabus.md"]')
      await row.waitFor()
      expect(await row.getByTestId('knowledge-original-obtained').innerText()).toMatch(/^手动复制进来\s*· 获取于 \d{4}年\d{1,2}月\d{1,2}日/)
      expect(await row.getByTestId('knowledge-original-extraction').innerText()).toBe('可以打开文本')
      await screenshot(zh.page, 'knowledge-originals-zh')
      await section.getByRole('tab', { name: '维基' }).click()
      await zh.page.getByTestId('knowledge-wiki').waitFor()
      expect(await zh.page.getByTestId('knowledge-wiki').getByRole('heading', { level: 3 }).allInnerTexts()).toEqual(['概览', '摘要\n1', '概念\n1', '最近的操作'])
    } finally {
      await zh.close()
    }
  })
})
