/**
 * The Knowledge page in real headless Chromium against a real `dsh web` (0.1.0-rc.8) with the packed bundle installed
 * in a scratch DSH_HOME, a scripted model server, and a knowledge root seeded through the CLI. One dsh web process
 * serves every test here, in order: the Config change made in one test is what the chat round of the same running
 * process obeys, which is the "takes effect without a restart" claim.
 *
 * Screenshots land in test/artifacts/ (see docs/page.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, existsSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createDshHome, PROJECT_ROOT, type DshHome, type WebProcess } from '../harness/dsh.ts'
import { byPrompt, startModelServer, type ModelServer } from '../harness/model-server.ts'
import { chooseWorkspace, closeSettings, launchBrowser, openDsh, openSettingsSection, screenshot, sendPrompt, type BrowserSession } from '../harness/browser.ts'

const CLI = join(PROJECT_ROOT, 'lib/cli/bin.js')

/** Rounds seeded through `dsh-knowledge capture` (the last one is terse status: dropped). */
const SEEDED = [
  {
    session: 'sess-aaaa1111',
    turn: 1,
    cwd: '/work/projects/webapp',
    created: '2026-10-02T09:15:00Z',
    question: 'Why does pnpm install fail with ERR_PNPM_FETCH_404 in CI?',
    answer:
      'The cause was the registry URL in `.npmrc`: CI used the public registry, not the private one, so the scoped package 404s.\n\nWorkaround: pin `pnpm@9.12.1` and set `@acme:registry=https://npm.acme.internal/` in `.npmrc`.\n\n```bash\npnpm config set @acme:registry https://npm.acme.internal/\n```',
    outcome: 'completed',
    tools: [{ name: 'bash', arguments: { command: 'pnpm install --frozen-lockfile' } }],
  },
  {
    session: 'sess-bbbb2222',
    turn: 3,
    cwd: '/work/projects/api',
    created: '2026-10-05T14:02:00Z',
    question: 'Should we keep Postgres 15 or move to 16 for the API?',
    answer: 'We decided to stay on postgres 15.6 for now because the `pg_partman` extension is not yet packaged for 16 on our base image. Revisit after the image moves to debian 13.',
    outcome: 'completed',
    tools: [{ name: 'read_file', arguments: { path: 'docker/db/Dockerfile' } }],
  },
  {
    session: 'sess-cccc3333',
    turn: 2,
    cwd: '/work/projects/webapp',
    created: '2026-10-07T11:30:00Z',
    question: 'How do I show user-supplied HTML in the preview pane without XSS?',
    answer:
      'The preview broke because it used innerHTML on raw input, so a payload like <script>window.__knowledgeXss = 1</script> or <img src=x onerror="window.__knowledgeXss = 2"> runs.\n\nFix: render text nodes only, never `dangerouslySetInnerHTML`. See [MDN on innerHTML](https://developer.mozilla.org/en-US/docs/Web/API/Element/innerHTML) and do not click [this link](javascript:window.__knowledgeXss=3).\n\n- **Rule**: escape on output\n- _Never_ trust `<iframe srcdoc>`',
    outcome: 'completed',
    tools: [{ name: 'edit_file', arguments: { path: 'src/preview.tsx' } }],
  },
  {
    session: 'sess-dddd4444',
    turn: 1,
    cwd: '/work/projects/webapp',
    created: '2026-10-08T08:00:00Z',
    question: 'run the tests',
    answer: 'All 12 tests passed.',
    outcome: 'completed',
    tools: [{ name: 'bash', arguments: { command: 'pnpm test' } }],
  },
]

/** The scripted model's answer to both chat prompts: a finding worth keeping (cause, workaround, config, version). */
const FINDING =
  'The login test was flaky because the fixture clock is frozen at 2024-01-01 while jsonwebtoken checks exp against the real clock, so every token looked expired. Workaround: set FAKE_NOW=2026-01-01T00:00:00Z in .env.test and pin jsonwebtoken@9.0.2.'
const PROMPT_DROPPED = 'Why is the login test flaky on CI? (first try)'
const PROMPT_KEPT = 'Why did the login test start failing after the clock change?'

/** The page answers asynchronously (debounced search, fetches, a busy 2-core machine): wait up to 15 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 })

let server: ModelServer
let home: DshHome
let web: WebProcess
let browser: BrowserSession
let page: Page
let workspace: string

interface StatsBody {
  documents: number
  rounds: { kept: number; dropped: number }
}

/** GET a route of the running dsh web from node, with the given Host header. */
function httpGet(path: string, host?: string): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(path, web.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', headers: host ? { host } : {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function stats(): Promise<StatsBody> {
  const res = await httpGet('/knowledge/stats')
  return JSON.parse(res.body) as StatsBody
}

/** Polls the stats route until `done` holds (capture writes off the agent loop, shortly after the turn ends). */
async function waitForStats(done: (s: StatsBody) => boolean, timeoutMs = 60_000): Promise<StatsBody> {
  const deadline = Date.now() + timeoutMs
  let last = await stats()
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`stats never matched: ${JSON.stringify(last)}`)
    await new Promise((r) => setTimeout(r, 300))
    last = await stats()
  }
  return last
}

async function openKnowledge(tab: 'Documents' | 'Config' = 'Documents'): Promise<void> {
  await openSettingsSection(page, /^knowledge$/i)
  await page.getByTestId('knowledge-page').waitFor()
  await page.getByTestId('knowledge-page').getByRole('tab', { name: tab }).click()
}

const docRows = () => page.getByTestId('knowledge-doc')

/** Back to the unfiltered list, whatever an earlier (possibly failed) test left open. */
async function resetDocuments(): Promise<void> {
  const back = page.getByRole('button', { name: /All documents/ })
  if (await back.count()) await back.click()
  const clear = page.getByTestId('knowledge-documents').getByRole('button', { name: 'Clear' })
  if (await clear.count()) await clear.click()
  await poll(() => docRows().count()).toBeGreaterThan(0)
}
const field = (key: string) => page.getByTestId(`knowledge-field-${key.replace(/\./g, '-')}`)

describe('the Knowledge page in dsh web', () => {
  beforeAll(async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-page-')), 'knowledge')
    for (const round of SEEDED) execFileSync(process.execPath, [CLI, 'capture', '--root', root], { input: JSON.stringify(round) })
    server = await startModelServer(byPrompt({ 'login test': [{ text: FINDING }] }, { title: 'Flaky login' }))
    home = await createDshHome({ profile: 'web', modelUrl: server.url, knowledgeRoot: root })
    workspace = join(home.home, 'project')
    mkdirSync(workspace)
    web = await home.web({ cwd: workspace })
    browser = await launchBrowser()
    page = browser.page
    await openDsh(page, web.url)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await server?.close()
  })

  it('lists the documents with kind and tag badges, dates, workspaces, the stats line and the read-only hint', async () => {
    await openKnowledge('Documents')
    await poll(() => docRows().count()).toBe(3)
    // Newest first.
    const titles = await docRows().getByTestId('knowledge-doc-open').allInnerTexts()
    expect(titles).toEqual([SEEDED[2].question, SEEDED[1].question, SEEDED[0].question])
    const pnpm = docRows().filter({ hasText: 'ERR_PNPM_FETCH_404' })
    await poll(() => pnpm.getByTestId('knowledge-kind').innerText()).toBe('raw') // the files' word (item 16.7)
    expect(await pnpm.getByTestId('knowledge-version').innerText()).toBe('v:1')
    expect(await pnpm.getByTestId('knowledge-tag').allInnerTexts()).toContain('pnpm')
    expect(await pnpm.getByTestId('knowledge-tool').allInnerTexts()).toEqual(['bash'])
    expect(await pnpm.innerText()).toMatch(/Oct 2, 2026/)
    // The folder by its name (not a git repository, so its own workspace); the whole path on hover (issue 28 item 5).
    expect(await pnpm.getByTestId('knowledge-workspace').innerText()).toBe('webapp')
    expect(await pnpm.getByTestId('knowledge-workspace').getAttribute('title')).toBe('/work/projects/webapp')
    const line = page.getByTestId('knowledge-stats')
    await poll(() => line.innerText()).toMatch(/^3 documents · 3 rounds kept · 1 dropped \(mostly terse status\)/)
    // The read-only hint sits folded under "About this list" (collapsible chrome, item 16.6).
    expect(await page.getByTestId('knowledge-documents').locator('details').textContent()).toMatch(/retire a wrong document \(with a reason\) and restore it; nothing is deleted/)
    await screenshot(page, 'knowledge-documents')
  })

  it('searches, and filters by kind, tag, tool and workspace', async () => {
    await resetDocuments()
    const search = page.getByRole('searchbox', { name: 'Search' })
    await search.fill('postgres')
    await poll(() => docRows().count()).toBe(1)
    expect(await docRows().first().innerText()).toContain('Should we keep Postgres 15')
    // The snippet marks the match in bold.
    expect(await docRows().first().locator('mark').first().innerText()).toMatch(/postgres/i)
    await search.fill('')
    await poll(() => docRows().count()).toBe(3)

    await page.getByRole('combobox', { name: 'Tool' }).selectOption('bash')
    await poll(() => docRows().count()).toBe(1)
    expect(await docRows().first().innerText()).toContain('ERR_PNPM_FETCH_404')
    await page.getByRole('combobox', { name: 'Tool' }).selectOption('')

    await page.getByRole('combobox', { name: 'Workspace' }).selectOption('/work/projects/api')
    await poll(() => docRows().count()).toBe(1)
    expect(await docRows().first().innerText()).toContain('Postgres')
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption('')

    await page.getByRole('combobox', { name: 'Tag' }).selectOption('pnpm')
    await poll(() => docRows().count()).toBe(1)
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('raw')
    await poll(() => docRows().count()).toBe(1)
    // Only kinds with documents under the other filters are offered (item 16.9): no zero-count `note`.
    expect(
      await page
        .getByRole('combobox', { name: 'Kind' })
        .locator('option')
        .evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value)),
    ).toEqual(['', 'raw'])
    await page.getByRole('button', { name: 'Clear' }).click()
    await poll(() => docRows().count()).toBe(3)
  })

  it('opens a document: front matter as a header, the body rendered as Markdown', async () => {
    await resetDocuments()
    await docRows().filter({ hasText: 'ERR_PNPM_FETCH_404' }).getByTestId('knowledge-doc-open').click()
    const doc = page.getByTestId('knowledge-document')
    await doc.getByTestId('knowledge-markdown').waitFor()
    const header = doc.getByTestId('knowledge-front-matter')
    const headerText = await header.innerText()
    expect(headerText).toMatch(/Kind\s+raw/)
    expect(headerText).toContain('/work/projects/webapp')
    expect(headerText).toMatch(/Tools\s+bash/)
    expect(headerText).toMatch(/Session\s+sess-aaaa1111 · turn 1/)
    expect((await doc.getByTestId('knowledge-doc-version').innerText()).trim()).toBe('· v:1') // the store-assigned revision
    expect(await doc.getByTestId('knowledge-salience').innerText()).toMatch(/^score \d+(\.\d+)?/)
    expect(await doc.getByTestId('knowledge-reason').allInnerTexts()).toContain('+cause')
    expect(await doc.getByTestId('knowledge-reason').evaluateAll((els) => els.map((e) => e.getAttribute('title')))).toContain('+cause')
    expect(await doc.getByTestId('knowledge-redacted').innerText()).toMatch(/^(1 value|\d+ values) masked$/)
    const body = doc.getByTestId('knowledge-markdown')
    // The title is shown once, above the front matter; the body's own H1 repeating it is left out (item 16.7).
    expect(await doc.getByTestId('knowledge-document-title').innerText()).toBe(SEEDED[0].question)
    expect(await body.locator('h1').count()).toBe(0)
    expect(await body.locator('h2').allInnerTexts()).toEqual(expect.arrayContaining(['Question', 'Answer', 'Tools']))
    expect(await body.locator('pre').first().innerText()).toContain('pnpm config set @acme:registry')
    expect(await body.locator('code').allInnerTexts()).toContain('.npmrc')
    await screenshot(page, 'knowledge-document')
    await doc.getByRole('button', { name: /All documents/ }).click()
    await poll(() => docRows().count()).toBe(3)
  })

  it('renders a document holding <script> and <img onerror> as text: nothing runs, no element is made', async () => {
    await resetDocuments()
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await docRows().filter({ hasText: 'without XSS' }).getByTestId('knowledge-doc-open').click()
    const body = page.getByTestId('knowledge-markdown')
    await body.waitFor()
    const text = await body.innerText()
    expect(text).toContain('<script>window.__knowledgeXss = 1</script>')
    expect(text).toContain('<img src=x onerror="window.__knowledgeXss = 2">')
    expect(await body.locator('script, img, iframe').count()).toBe(0)
    // Only the https link became a link, opening safely; the javascript: one stays visible as text.
    const links = body.locator('a')
    expect(await links.count()).toBe(1)
    expect(await links.first().getAttribute('href')).toBe('https://developer.mozilla.org/en-US/docs/Web/API/Element/innerHTML')
    expect(await links.first().getAttribute('rel')).toBe('noopener noreferrer')
    expect(text).toContain('[this link](javascript:window.__knowledgeXss=3)')
    await page.waitForTimeout(500)
    expect(await page.evaluate(() => (window as unknown as { __knowledgeXss?: unknown }).__knowledgeXss)).toBeUndefined()
    expect(dialogs).toEqual([])
    await screenshot(page, 'knowledge-document-xss')
    await page.getByRole('button', { name: /All documents/ }).click()
  })

  it('shows the config with inherited values, and a saved minScore drops the next chat round of the running dsh web', async () => {
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Config' }).click()
    const minScore = field('capture.salience.minScore')
    await poll(() => page.getByTestId('knowledge-config').getAttribute('data-phase')).toBe('ready')
    await poll(() => minScore.getByTestId('knowledge-inherited').innerText()).toMatch(/^Inherited: \d+$/)
    const inherited = (await minScore.getByTestId('knowledge-inherited').innerText()).replace('Inherited: ', '')
    expect(await minScore.getAttribute('data-overridden')).toBe('false')

    await minScore.getByRole('spinbutton').fill('100')
    await minScore.getByRole('button', { name: 'Save' }).click()
    await poll(() => minScore.getAttribute('data-overridden')).toBe('true')
    expect(await minScore.getByRole('status').innerText()).toBe('Saved.')
    expect(await minScore.getByTestId('knowledge-inherited').innerText()).toBe(`Inherited: ${inherited}`)
    // The host stored it: the user layer of $DSH_HOME/settings.yaml, and the effective config of the routes.
    expect(readFileSync(join(home.home, 'settings.yaml'), 'utf8')).toMatch(/minScore: 100/)
    const config = JSON.parse((await httpGet('/knowledge/config')).body)
    expect(config.sections.capture.effective.salience.minScore).toBe(100)
    await screenshot(page, 'knowledge-config')

    const before = await stats()
    await closeSettings(page)
    await chooseWorkspace(page, workspace)
    await sendPrompt(page, PROMPT_DROPPED, 'The login test was flaky because')
    const after = await waitForStats((s) => s.rounds.dropped === before.rounds.dropped + 1)
    expect(after.rounds.kept).toBe(before.rounds.kept)
    expect(after.documents).toBe(3)

    await openKnowledge('Documents')
    await page.getByRole('button', { name: 'Refresh' }).click()
    await poll(() => page.getByTestId('knowledge-stats').innerText()).toMatch(/^3 documents · 3 rounds kept · 2 dropped/)
    expect(await docRows().count()).toBe(3)
  }, 180_000)

  it('after Reset the field inherits again, and the next chat round is kept as a new document', async () => {
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Config' }).click()
    const minScore = field('capture.salience.minScore')
    await minScore.getByRole('button', { name: 'Reset' }).click()
    await poll(() => minScore.getAttribute('data-overridden')).toBe('false')
    expect(readFileSync(join(home.home, 'settings.yaml'), 'utf8')).not.toMatch(/minScore/)

    const before = await stats()
    await closeSettings(page)
    await sendPrompt(page, PROMPT_KEPT, /The login test was flaky because/)
    await waitForStats((s) => s.rounds.kept === before.rounds.kept + 1 && s.documents === 4)

    await openKnowledge('Documents')
    await page.getByRole('button', { name: 'Refresh' }).click()
    await poll(() => docRows().count()).toBe(4)
    expect(await docRows().first().getByTestId('knowledge-doc-open').innerText()).toBe(PROMPT_KEPT)
    await poll(() => page.getByTestId('knowledge-stats').innerText()).toMatch(/^4 documents · 4 rounds kept · 2 dropped/)
    // The new document records the chat's workspace.
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption(workspace)
    await poll(() => docRows().count()).toBe(1)
    await page.getByRole('button', { name: 'Clear' }).click()
  }, 180_000)

  it("refuses a bad regular expression and an out-of-range number, showing the host's message", async () => {
    await page.getByTestId('knowledge-page').getByRole('tab', { name: 'Config' }).click()
    const patterns = field('redact.patterns')
    await patterns.getByRole('textbox').fill('token=\\w+\n([unclosed')
    await patterns.getByRole('button', { name: 'Save' }).click()
    const refused = patterns.getByTestId('knowledge-refused')
    await refused.waitFor()
    const message = await refused.innerText()
    expect(message).toMatch(/^Refused: /)
    expect(message).toContain('([unclosed')
    expect(message).toMatch(/regular expression/i)
    expect(await patterns.getAttribute('data-overridden')).toBe('false')
    expect(existsSync(join(home.home, 'settings.yaml')) ? readFileSync(join(home.home, 'settings.yaml'), 'utf8') : '').not.toContain('unclosed')

    const limit = field('recall.searchLimit')
    await limit.getByRole('spinbutton').fill('500')
    await limit.getByRole('button', { name: 'Save' }).click()
    await limit.getByTestId('knowledge-refused').waitFor()
    expect(await limit.getByTestId('knowledge-refused').innerText()).toMatch(/^Refused: .*searchLimit.*<= 50 but got 500/)
    expect(await limit.getAttribute('data-overridden')).toBe('false')
    await limit.scrollIntoViewIfNeeded()
    await screenshot(page, 'knowledge-config-refused')
  })

  it('follows the dsh locale: Chinese labels once Language is set to 中文', async () => {
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^English/ }).click()
    await page.getByText('中文', { exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: '知识库' }).click()
    await page.getByTestId('knowledge-page').waitFor()
    expect(await page.getByTestId('knowledge-page').getByRole('tab').allInnerTexts()).toEqual(['文档', '维基', '原件', '上游', '健康度', '配置'])
    await poll(() => page.getByTestId('knowledge-stats').innerText()).toMatch(/^4 篇文档/)
    // The drop reason in the stats line is translated too (item 16.7); the raw reason stays on hover.
    // (One terse round and one dropped by the raised bar: the top reason is 简短状态 or 低于调高后的门槛.)
    expect(await page.getByTestId('knowledge-stats').innerText()).toMatch(/（主要原因 (简短状态|低于调高后的门槛)）/)
    expect(await page.getByTestId('knowledge-stats').getAttribute('title')).toMatch(/^-(terse-status|below-bar)$/)
    await screenshot(page, 'knowledge-documents-zh')
    // Back to English for whoever looks at the page next.
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^(通用设置|general)$/i })
      .click()
    await page.getByRole('button', { name: /^中文/ }).click()
    await page.getByText('English', { exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).waitFor()
  })

  it("follows the dsh theme: dark Appearance turns the page's text light", async () => {
    const luminance = async () =>
      page
        .getByTestId('knowledge-page')
        .locator('h2')
        .evaluate((el) => {
          const [r, g, b] = getComputedStyle(el)
            .color.match(/[\d.]+/g)!
            .map(Number)
          return 0.2126 * r + 0.7152 * g + 0.0722 * b
        })
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^dark$/i }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).click()
    await page.getByTestId('knowledge-page').waitFor()
    await poll(luminance).toBeGreaterThan(160)
    await screenshot(page, 'knowledge-documents-dark')
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^general$/i })
      .click()
    await page.getByRole('button', { name: /^light$/i }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Knowledge' }).click()
    await poll(luminance).toBeLessThan(100)
  })

  it('answers a foreign Host header with 403 (from the route itself), a loopback one with JSON', async () => {
    // dsh web's own shell serves index.html whatever the Host, so the refusal has to come from the route.
    const foreign = await httpGet('/knowledge/documents', 'evil.example')
    expect(foreign.status).toBe(403)
    expect(foreign.type).toContain('application/json')
    expect(JSON.parse(foreign.body).error).toMatch(/evil\.example/)
    const ok = await httpGet('/knowledge/documents', `127.0.0.1:${new URL(web.url).port}`)
    expect(ok.status).toBe(200)
    expect(ok.type).toContain('application/json')
    expect(JSON.parse(ok.body).total).toBe(4)
    const unknown = await httpGet('/knowledge/nope')
    expect(unknown.status).toBe(404)
    expect(unknown.type).toContain('application/json')
  })
})
