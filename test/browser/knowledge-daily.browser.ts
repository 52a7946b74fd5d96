/**
 * The Knowledge page as a daily tool (issue 16) in real headless Chromium against a real `dsh web` with the packed
 * bundle: 120 rounds that all mention ERR_PNPM_FETCH_404 (and a few terse ones the bar drops) are captured into the
 * root through the built capture path before dsh starts; one more is captured by another process while the page is
 * open. Items: 1 honest counts and paging, 3 keeping the place and the keyboard, 4 live, 5 identifiers in snippets,
 * 6 rows on screen at 1024×640, 7 vocabulary, 8 unsaved edits, 9 tag badges filter, 10 what the bar does,
 * 11 copy id/path and sort.
 *
 * Screenshots land in test/artifacts/knowledge-daily-*.png (see docs/page.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { chooseWorkspace, closeSettings, launchBrowser, openDsh, openSettingsSection, screenshot, sendPrompt, type BrowserSession } from '../harness/browser.ts'

const MANY = 120
const SEED = join(PROJECT_ROOT, 'test/harness/seed-rounds.ts')
/**
 * dsh web 0.1.0-rc.8 does not always reopen the current session on a reload: it may land on a new, empty one, with the
 * session in the sidebar. There a person clicks it; so does the test (the model server titles it "Scripted session").
 * Either way the chat is rebuilt from the session's log, which is what the reload checks are about.
 */
async function reopenSession(page: Page, url: string, row: string): Promise<void> {
  if (await page.locator(row).count()) return
  if (page.url() !== url) await page.goto(url, { waitUntil: 'networkidle' })
  if (await page.locator(row).count()) return
  await page.getByText('Scripted session', { exact: true }).first().click()
  await page.locator(row).first().waitFor()
}
const poll = <T>(read: () => T | Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 100 })

const session = (k: number) => `session-${(0x10000000 + k).toString(16)}-0000-4000-8000-000000000000`
const day = (k: number) => new Date(Date.UTC(2026, 8, 1) + k * 3_600_000).toISOString()

function round(k: number, over: Record<string, unknown> = {}) {
  return {
    session: session(k),
    turn: 1,
    cwd: k % 2 ? '/work/projects/webapp' : '/work/projects/api',
    created: day(k),
    outcome: 'completed',
    question: `Why does pnpm install fail with ERR_PNPM_FETCH_404 for @acme/pkg${k}?`,
    answer: `The cause was the registry URL in .npmrc for @acme/pkg${k}. Workaround: set @acme:registry=https://npm.acme.internal/ and pin pnpm@9.12.${k % 10}.`,
    tools: [{ name: 'bash', arguments: JSON.stringify({ command: `pnpm add @acme/pkg${k}` }) }],
    ...over,
  }
}

const TOKEN_ROUND = round(500, {
  question: 'How do I authenticate pnpm against the private registry in CI?',
  answer:
    'The fix: add `//npm.acme.internal/:_authToken=${NPM_TOKEN}` to .npmrc and export NPM_TOKEN in the CI job; my old token npm_Xq7Rk2Lm9Vt4Bn8Wc3Yd6Hf1Js5Pz0Ga2Ue4 was revoked. Pin pnpm@9.12.1.',
  tools: [{ name: 'bash', arguments: '{"command":"pnpm install --frozen-lockfile"}', isError: true, result: 'ERR_PNPM_FETCH_401' }],
  created: '2026-11-20T10:00:00Z',
})
const TERSE = [0, 1, 2].map((k) => round(900 + k, { question: `run the tests (${k})`, answer: 'All 12 tests passed.', tools: [], created: `2026-11-2${k}T12:00:00Z` }))
const LIVE = round(700, { question: 'Why does the live round show up on the open page?', created: '2026-11-30T09:00:00Z' })

let server: ModelServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let root: string
let workspace: string
const CARD_PROMPT = 'look up zebracard'
const READ_PROMPT = 'open the zebracard note'
/** The chat card round's document id (its session's first 8 hex digits, turn 1). */
const CARD_ID = `${(0x10000000 + 800).toString(16)}-t1`

function seed(rounds: unknown[]): { kept: number; dropped: number } {
  const spec = join(mkdtempSync(join(tmpdir(), 'dsh-ks-daily-spec-')), 'spec.json')
  writeFileSync(spec, JSON.stringify({ rounds }))
  return JSON.parse(execFileSync(process.execPath, [SEED, root, spec], { encoding: 'utf8' }).trim().split('\n').pop()!)
}

async function json<T>(path: string): Promise<T> {
  return (await fetch(new URL(path, web.url))).json() as Promise<T>
}

const docRows = () => page.getByTestId('knowledge-doc')
const count = () => page.getByTestId('knowledge-count').innerText()
const search = () => page.getByRole('searchbox', { name: 'Search' })

/** The Documents list on screen, whatever an earlier (possibly failed) test left open. */
async function onList(): Promise<void> {
  if (!(await page.getByTestId('knowledge-page').count())) await openKnowledge()
  await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Documents' }).click()
  if (await page.getByTestId('knowledge-document').count())
    await page
      .getByTestId('knowledge-document')
      .getByRole('button', { name: /All documents/ })
      .click()
  await page.getByTestId('knowledge-documents').waitFor()
}

async function openKnowledge(tab: 'Documents' | 'Config' = 'Documents'): Promise<void> {
  await openSettingsSection(page, /^knowledge$/i)
  await page.getByTestId('knowledge-page').waitFor()
  await page.getByTestId('knowledge-page').getByRole('tab', { name: tab }).click()
}

/** The scrolling pane the list sits in (dsh's settings content column). */
const scrollTop = () =>
  page.getByTestId('knowledge-documents').evaluate((el) => {
    for (let p = el.parentElement; p; p = p.parentElement) if (/(auto|scroll)/.test(getComputedStyle(p).overflowY) && p.scrollHeight > p.clientHeight) return p.scrollTop
    return -1
  })

describe('the Knowledge page as a daily tool', () => {
  beforeAll(async () => {
    root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-daily-')), 'knowledge')
    mkdirSync(root, { recursive: true })
    server = await startModelServer(
      byPrompt({
        [CARD_PROMPT]: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'zebracard' } }] }, { text: 'Found the zebracard note.' }],
        [READ_PROMPT]: [{ toolCalls: [{ name: 'knowledge_read', arguments: { id: CARD_ID } }] }, { text: 'Read the zebracard note.' }],
      }),
    )
    home = await createDshHome({ profile: 'web', modelUrl: server.url, knowledgeRoot: root })
    workspace = join(home.home, 'project')
    mkdirSync(workspace)
    // One round in the chat's workspace (search is scoped to it), for the chat card.
    const card = round(800, { cwd: workspace, question: 'Why does the zebracard build fail with **bold** marks in the log?', created: '2026-08-01T00:00:00Z' })
    const seeded = seed([...Array.from({ length: MANY }, (_, k) => round(k)), TOKEN_ROUND, ...TERSE, card])
    expect(seeded).toEqual({ kept: MANY + 2, dropped: 3 })
    web = await home.web({ cwd: workspace })
    browser = await launchBrowser()
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(web.url).origin })
    page = browser.page
    page.setDefaultTimeout(60_000)
    await openDsh(page, web.url)
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('1: says "50 of <true total>" for a long search and pages through every hit to an exact count', async () => {
    await openKnowledge()
    await search().fill('ERR_PNPM_FETCH_404')
    // The unfiltered list also reads "50 of 122" (every document), so wait for the search's own count: the matching
    // rounds, exact or an honest lower bound, never the number the route fetched.
    await poll(count).toMatch(new RegExp(`^50 of (${MANY}|100\\+)$`))
    expect(await page.getByTestId('knowledge-documents').locator('ul[aria-busy=true]').count()).toBe(0)
    await screenshot(page, 'knowledge-daily-counts')
    const more = page.getByRole('button', { name: 'Load more' })
    await more.click()
    await poll(() => docRows().count()).toBe(100)
    await more.click()
    await poll(() => docRows().count()).toBe(MANY)
    await poll(count).toBe(`${MANY} of ${MANY}`)
    expect(await more.count()).toBe(0)
    const ids = await docRows().evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))
    expect(new Set(ids).size).toBe(MANY) // every hit once: pages do not overlap
    await screenshot(page, 'knowledge-daily-paged')
  })

  it('3: Escape from a document goes back to the list with its pages, scroll and focus; Settings stays open', async () => {
    // The list of 120 from the previous test, scrolled well down.
    const row = docRows().nth(90)
    await row.scrollIntoViewIfNeeded()
    const before = await scrollTop()
    expect(before).toBeGreaterThan(500)
    const id = await row.getAttribute('data-id')
    await row.getByTestId('knowledge-doc-open').click()
    await page.getByTestId('knowledge-document').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('knowledge-documents').waitFor()
    expect(
      await page
        .getByRole('dialog')
        .filter({ has: page.getByRole('navigation') })
        .count(),
    ).toBe(1) // Settings still open
    expect(await docRows().count()).toBe(MANY) // the pages are kept
    expect(Math.abs((await scrollTop()) - before)).toBeLessThan(40) // and the scroll
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid=knowledge-doc]')?.getAttribute('data-id'))).toBe(id) // and focus
    await screenshot(page, 'knowledge-daily-back')
  })

  it('3: keyboard: / focuses search, j/k move, Enter opens; focus stays in the dialog', async () => {
    await onList()
    await page.getByTestId('knowledge-page').locator('h2').click()
    await page.keyboard.press('/')
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('search')
    await search().fill('')
    await poll(() => docRows().count()).toBe(50)
    await page.getByTestId('knowledge-page').locator('h2').click()
    await page.keyboard.press('j')
    await page.keyboard.press('j')
    await page.keyboard.press('k')
    const focused = await page.evaluate(() => document.activeElement?.closest('[data-testid=knowledge-doc]')?.getAttribute('data-id'))
    expect(focused).toBe(await docRows().nth(0).getAttribute('data-id'))
    await page.keyboard.press('j')
    const second = await docRows().nth(1).getAttribute('data-id')
    await page.keyboard.press('Enter')
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(second)
    // Focus stays inside the dialog: it starts on Back.
    expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    await screenshot(page, 'knowledge-daily-keyboard')
    await page.keyboard.press('Escape')
    await page.getByTestId('knowledge-documents').waitFor()
  })

  it('4: a round captured by another process appears on the open page without a reload, without moving the reader', async () => {
    await onList()
    await search().fill('')
    await poll(() => docRows().count()).toBe(50)
    const stats = page.getByTestId('knowledge-stats')
    await poll(() => stats.innerText()).toMatch(new RegExp(`^${MANY + 2} documents`))
    await docRows().nth(20).scrollIntoViewIfNeeded()
    const before = await scrollTop()
    const started = Date.now()
    seed([LIVE])
    const wrote = Date.now()
    // Seen without a reload; how soon is reported, not asserted (a busy machine stretches it).
    await poll(() => docRows().first().getByTestId('knowledge-doc-open').innerText(), 60_000).toBe(LIVE.question)
    const seen = Date.now() - wrote
    console.log(`[item 4] new document on screen ${seen} ms after the writing process exited (${wrote - started} ms to write)`)
    await poll(() => stats.innerText()).toMatch(new RegExp(`^${MANY + 3} documents`))
    expect(await page.getByTestId('knowledge-fresh').innerText()).toMatch(/1 new/)
    // The reader did not jump to the top (one row was added above: the position moves by at most a row or two).
    expect(Math.abs((await scrollTop()) - before)).toBeLessThan(120)
    await screenshot(page, 'knowledge-daily-live')
  })

  it('5: a snippet and the document show `:_authToken=${NPM_TOKEN}` exactly, not as italics', async () => {
    await onList()
    await search().fill('authToken')
    await poll(() => docRows().count()).toBe(1)
    const hit = docRows().first()
    expect(await hit.innerText()).toContain('_authToken=${NPM_TOKEN}')
    expect(await hit.locator('em, i').count()).toBe(0)
    await screenshot(page, 'knowledge-daily-snippet')
  })

  it('3: after a reload, Settings → Knowledge comes back to the open document and the search (no deep link at rc.8)', async () => {
    await docRows().first().getByTestId('knowledge-doc-open').click()
    const id = await page.getByTestId('knowledge-document').getAttribute('data-id')
    await openDsh(page, web.url) // a reload: dsh web reopens without Settings
    await openSettingsSection(page, /^knowledge$/i)
    await poll(() => page.getByTestId('knowledge-document').getAttribute('data-id')).toBe(id)
    await screenshot(page, 'knowledge-daily-reload')
    await page
      .getByTestId('knowledge-document')
      .getByRole('button', { name: /All documents/ })
      .click()
    expect(await search().inputValue()).toBe('authToken')
    await poll(() => docRows().count()).toBe(1)
  })

  it('7/11: the document says "1 value masked", marks the failed call, explains kinds on hover; Copy id and Copy path copy', async () => {
    await docRows().first().getByTestId('knowledge-doc-open').click()
    const doc = page.getByTestId('knowledge-document')
    await doc.getByTestId('knowledge-markdown').waitFor()
    expect(await doc.getByTestId('knowledge-redacted').innerText()).toBe('1 value masked')
    const body = doc.getByTestId('knowledge-markdown')
    expect(await body.locator('h1').count()).toBe(0) // the title is shown once, above the front matter
    expect(await body.innerText()).toMatch(/bash\s*\(failed\)/)
    expect(await body.innerText()).toContain(':_authToken=${NPM_TOKEN}')
    expect(await body.innerText()).not.toContain('npm_Xq7Rk2Lm9Vt4Bn8Wc3Yd6Hf1Js5Pz0Ga2Ue4')
    const id = await doc.getAttribute('data-id')
    await doc.getByTestId('knowledge-copy-id').click()
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(id)
    await doc.getByTestId('knowledge-copy-path').click()
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(new RegExp(`/${id}[^/]*\\.md$`))
    await screenshot(page, 'knowledge-daily-document')
    await page.keyboard.press('Escape')
  })

  it('9: a tag badge filters the list by its tag; the kind filter offers only kinds with documents', async () => {
    await onList()
    await search().fill('')
    await poll(() => docRows().count()).toBe(50)
    await docRows().first().getByTestId('knowledge-tag').filter({ hasText: 'pnpm' }).click()
    await poll(() => page.getByRole('combobox', { name: 'Tag' }).inputValue()).toBe('pnpm')
    for (const tags of await docRows().evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('[data-testid=knowledge-tag]')).map((t) => t.textContent)))) {
      expect(tags).toContain('pnpm')
    }
    const kinds = await page
      .getByRole('combobox', { name: 'Kind' })
      .locator('option')
      .evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value))
    expect(kinds).toEqual(['', 'raw'])
    await screenshot(page, 'knowledge-daily-tags')
    await page.getByRole('button', { name: 'Clear' }).click()
  })

  it('11: a search sorts by relevance or by date', async () => {
    await onList()
    await search().fill('pnpm registry')
    await poll(() => docRows().count()).toBeGreaterThan(10)
    await page.getByRole('combobox', { name: 'Sort hits' }).selectOption('created')
    await poll(async () => {
      const dates = await docRows().evaluateAll((rows) =>
        rows.map(
          (r) =>
            Array.from(r.querySelectorAll('[title]'))
              .map((e) => e.getAttribute('title') ?? '')
              .find((v) => /^\d{4}-\d\d-\d\dT/.test(v)) ?? '',
        ),
      )
      return dates.slice(0, 10).every((d, k, all) => k === 0 || all[k - 1] >= d)
    }).toBe(true)
    await search().fill('')
  })

  it('6: at 1024×640 the dense list shows several rows under the chrome', async () => {
    await onList()
    await page.setViewportSize({ width: 1024, height: 640 })
    // Settings reopened at this size, as a person on a small laptop would see it, scrolled to the top.
    await page.getByTestId('knowledge-page').locator('h2').click()
    await page.keyboard.press('Escape')
    await page
      .getByRole('dialog')
      .filter({ has: page.getByRole('navigation') })
      .waitFor({ state: 'detached' })
    await openKnowledge()
    await poll(() => docRows().count()).toBeGreaterThan(10)
    expect(await page.getByTestId('knowledge-filters-toggle').getAttribute('aria-expanded')).toBe('false')
    const visible = await docRows().evaluateAll((rows) => {
      const dialog = document.querySelector('[role=dialog]')!.getBoundingClientRect()
      const bottom = Math.min(window.innerHeight, dialog.bottom)
      return rows.filter((r) => {
        const b = r.getBoundingClientRect()
        return b.top >= dialog.top && b.bottom <= bottom
      }).length
    })
    console.log(`[item 6] rows fully visible at 1024×640 with nothing scrolled: ${visible}`)
    await screenshot(page, 'knowledge-daily-1024x640')
    expect(visible).toBeGreaterThanOrEqual(4)
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it('8/10: the Config tab draws recent scores with the bar, tries a new bar locally, lists dropped rounds; edits are marked Unsaved', async () => {
    await onList()
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Config' }).click()
    const chart = page.getByTestId('knowledge-rounds')
    await chart.getByTestId('knowledge-rounds-chart').waitFor()
    const data = await json<{ minScore: number; rounds: Array<{ kept: boolean; score: number; title: string; reason?: string }> }>('/knowledge/rounds')
    expect(data.rounds.length).toBe(MANY + 6)
    expect(await chart.getByTestId('knowledge-round-dot').count()).toBe(data.rounds.length)
    expect(await chart.locator('[data-testid=knowledge-round-dot][data-kept=false]').count()).toBe(3)
    expect(Number(await chart.getByTestId('knowledge-rounds-bar').getAttribute('data-value'))).toBe(data.minScore)
    // Try a bar above some of the kept scores: the count is the ledger's, computed in the page, nothing saved.
    const scores = data.rounds.map((r) => r.score).sort((a, b) => a - b)
    const bar = scores[Math.floor(scores.length / 2)]
    const expected = data.rounds.filter((r) => r.score >= bar).length
    await chart.getByTestId('knowledge-rounds-try').fill(String(bar))
    await poll(() => chart.getByTestId('knowledge-rounds-would').innerText()).toBe(
      `At ${bar}: ${expected} of ${data.rounds.length} would be kept (now ${MANY + 3}). Nothing is saved until you save minScore above.`,
    )
    expect(await chart.getByTestId('knowledge-rounds-trial').count()).toBe(1)
    await chart.getByTestId('knowledge-rounds-dropped').locator('summary').click()
    const dropped = await chart.getByTestId('knowledge-dropped-round').allInnerTexts()
    expect(dropped).toHaveLength(3)
    for (const line of dropped) expect(line).toMatch(/^run the tests \(\d\).*score -?[\d.]+.*terse status/)
    expect(await json<{ sections: { capture: { effective: { salience: { minScore: number } } } } }>('/knowledge/config').then((c) => c.sections.capture.effective.salience.minScore)).toBe(
      data.minScore,
    )
    await chart.scrollIntoViewIfNeeded()
    await screenshot(page, 'knowledge-daily-bar')

    // Item 8: a draft is visibly unsaved until saved; Reset sits in the same place.
    const minScore = page.getByTestId('knowledge-field-capture-salience-minScore')
    await minScore.getByRole('spinbutton').fill(String(bar))
    await minScore.getByTestId('knowledge-unsaved').waitFor()
    expect(await minScore.getByTestId('knowledge-unsaved').innerText()).toBe('Unsaved')
    await minScore.scrollIntoViewIfNeeded()
    await screenshot(page, 'knowledge-daily-unsaved')
  })
  it('11: in the chat, knowledge_search is one line, Searched "<q>": <n> hit(s), and opens to dsh\'s search card with `id (v:N) — title` lines, not the raw text with ** marks', async () => {
    await closeSettings(page)
    await chooseWorkspace(page, workspace)
    await sendPrompt(page, CARD_PROMPT, 'Found the zebracard note.')
    // The row's one line is the card's title (the raw row said "knowledge_search · zebracard").
    const row = page.getByText('Searched "zebracard": 1 hit', { exact: true })
    await row.first().waitFor()
    await row.first().click() // expands the row: the card's lines, not the model's text
    const chat = page.locator('body')
    await poll(() => chat.innerText()).toMatch(/[0-9a-f]{8}-t1 \(v:1\) — Why does the zebracard build fail with \*\*bold\*\* marks/)
    // The model's text (with its "document(s) match" head and ** snippet marks) is not what the row shows.
    expect(await chat.innerText()).not.toContain('document(s) match')
    expect(await chat.innerText()).not.toContain('**zebracard**')
    await screenshot(page, 'knowledge-daily-chat-card')
  }, 180_000)

  it("11: in the chat, knowledge_read opens to dsh's read card (title line, id, a few numbered lines), not the document's raw text", async () => {
    if (!(await page.getByText('Found the zebracard note.').count())) {
      await closeSettings(page)
      await chooseWorkspace(page, workspace)
    }
    await sendPrompt(page, READ_PROMPT, 'Read the zebracard note.')
    const row = page.locator('[data-tool=knowledge_read]').last()
    await row.waitFor()
    // dsh web's row line for a plugin tool is `Tool call · <tool> · <first argument>` (ui-tool toolRowModel); the card is its body.
    expect(await row.innerText()).toContain(`knowledge_read · ${CARD_ID}`)
    expect(await row.locator('[data-read]').count()).toBe(0) // collapsed, as dsh draws every card
    await row.getByText(`knowledge_read · ${CARD_ID}`).click()
    const card = row.locator('[data-read]')
    await card.waitFor()
    const text = await card.innerText()
    expect(text).toContain(`Read ${CARD_ID} (v:1)`)
    expect(text).toContain('— Why does the zebracard build fail with **bold** marks in the log?')
    expect(text).toMatch(/显示 [1-8] \/ \d+ 行/) // dsh's own "showing N of M lines"
    const numbers = (await card.locator('[aria-hidden=true]').allInnerTexts()).map(Number).filter((n) => n > 0)
    expect(numbers.length).toBeGreaterThan(2)
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
    // Not the raw text: no tag line, no front matter, no "Sections:" line, no OUT block.
    const rowText = await row.innerText()
    expect(rowText).not.toContain(`${CARD_ID} (v:1) "Why does`)
    expect(rowText).not.toMatch(/^(kind: raw|Sections: )/m)
    expect(rowText).not.toMatch(/^OUT$/m)
    await screenshot(page, 'knowledge-daily-chat-read-card')
    // A reload replays the session log: the card is rebuilt from the persisted meta (dsh's history path).
    const url = page.url()
    await page.reload({ waitUntil: 'networkidle' })
    await reopenSession(page, url, '[data-tool=knowledge_read]')
    const replayed = page.locator('[data-tool=knowledge_read]').last()
    await replayed.getByText(`knowledge_read · ${CARD_ID}`).click()
    expect(await replayed.locator('[data-read]').innerText()).toBe(text)
  }, 180_000)
  it('11: a knowledge_search hit in the chat opens that document in the full-size Knowledge view; the row is rebuilt after a reload', async () => {
    if (!(await page.locator('[data-tool=knowledge_search]').count())) {
      await closeSettings(page)
      await chooseWorkspace(page, workspace)
      await sendPrompt(page, CARD_PROMPT, 'Found the zebracard note.')
    }
    const expectLine = new RegExp(`^${CARD_ID} \\(v:1\\) — Why does the zebracard build fail with \\*\\*bold\\*\\* marks in the log\\?$`)
    const openHit = async (): Promise<void> => {
      const row = page.locator('[data-tool=knowledge_search]').first()
      await row.waitFor()
      expect(await row.getByTestId('knowledge-search-hit').count()).toBe(0) // collapsed, as dsh draws its rows
      await row.getByText('Searched "zebracard": 1 hit', { exact: true }).click()
      const hit = row.getByTestId('knowledge-search-hit')
      expect(await hit.count()).toBe(1)
      expect(await hit.innerText()).toMatch(expectLine)
      await screenshot(page, 'knowledge-daily-chat-hit-row')
      await hit.click()
      const full = page.getByTestId('knowledge-full')
      await full.waitFor()
      const doc = full.getByTestId('knowledge-document')
      await poll(() => doc.getAttribute('data-id')).toBe(CARD_ID)
      expect(await doc.getByTestId('knowledge-document-title').innerText()).toBe('Why does the zebracard build fail with **bold** marks in the log?')
      await screenshot(page, 'knowledge-daily-chat-hit-open')
      // Back goes to the list of the search the model made, with the hit in it.
      await doc.getByRole('button', { name: /All documents/ }).click()
      expect(await full.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('zebracard')
      await poll(() => full.getByTestId('knowledge-doc').first().getAttribute('data-id')).toBe(CARD_ID)
      await full.getByTestId('knowledge-full-close').click()
      await full.waitFor({ state: 'detached' })
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('knowledge-search-hit') // focus back on the hit
    }
    await openHit()
    // A reload replays the session log: the row and its hit come back from the persisted meta.
    const url = page.url()
    await page.reload({ waitUntil: 'networkidle' })
    await reopenSession(page, url, '[data-tool=knowledge_search]')
    await openHit()
  }, 180_000)
})
