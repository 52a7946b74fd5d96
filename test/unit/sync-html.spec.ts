/**
 * HTML conversion in its worker thread: selectors and fallback, cleanup, absolute links, and crafted pages (absurd
 * nesting, nested selector matches, a 2 MiB page) that cost bounded time off the main thread.
 */
import { describe, expect, it } from 'vitest'
import { htmlToMarkdown, toSectionText } from '../../src/sync/convert.js'
import { HtmlWorkError, runHtmlJob } from '../../src/sync/html.js'

describe('converting HTML', () => {
  it('keeps the selected subtree, drops scripts and navigation, and makes links absolute', async () => {
    const html =
      '<html><head><style>p{}</style></head><body><nav>menu</nav><main id="doc"><h2>Install</h2><p>Run <code>pnpm i</code> — see <a href="../guide">the guide</a>.</p><pre><code class="language-sh">pnpm i\nnext</code></pre><ul><li>one</li><li>two</li></ul><script>alert(1)</script></main></body></html>'
    const { markdown, selected } = await htmlToMarkdown(html, '#doc', 'https://docs.example/a/b/page')
    expect(selected).toBe(true)
    expect(markdown).toBe('## Install\n\nRun `pnpm i` — see [the guide](https://docs.example/a/guide).\n\n```sh\npnpm i\nnext\n```\n\n-   one\n-   two')
    const whole = await htmlToMarkdown(html, '.absent')
    expect(whole.selected).toBe(false)
    expect(whole.markdown).toContain('menu')
    expect(whole.markdown).not.toContain('alert')
    expect(whole.markdown).not.toContain('p{}')
  })

  it('passes Markdown and plain text through verbatim and refuses other types', async () => {
    expect(await toSectionText(Buffer.from('# T\r\n<b>x</b>'), 'text/markdown; charset=utf-8')).toBe('# T\r\n<b>x</b>')
    expect(await toSectionText(Buffer.from('caf\xe9', 'latin1'), 'text/plain; charset=iso-8859-1')).toBe('café')
    await expect(toSectionText(Buffer.from('{}'), 'application/json')).rejects.toThrow(/application\/json is not Markdown/)
  })
})

describe('crafted pages', () => {
  it('stops a page that takes too long, without blocking the main thread, and the next page still converts', async () => {
    const deep = '<div>'.repeat(200_000) + 'x' + '</div>'.repeat(200_000)
    let ticks = 0
    const timer = setInterval(() => {
      ticks++
    }, 50)
    const started = Date.now()
    await expect(runHtmlJob({ op: 'markdown', html: deep, selector: 'div' }, 1500)).rejects.toThrow(HtmlWorkError)
    const took = Date.now() - started
    clearInterval(timer)
    expect(took).toBeLessThan(8000)
    // The event loop kept turning while the worker churned (a blocked loop would tick once or not at all; the bound
    // is loose because this machine is shared).
    expect(ticks).toBeGreaterThanOrEqual(Math.max(5, Math.floor(took / 50 / 4)))
    expect((await htmlToMarkdown('<p>after</p>')).markdown).toBe('after')
  }, 180_000)

  it('converts nested selector matches once (outermost only), a dense 500 KB page, and bounds a dense 2 MiB one', async () => {
    const nested = '<div>'.repeat(1000) + 'x' + '</div>'.repeat(1000)
    let started = Date.now()
    expect((await htmlToMarkdown(nested, 'div')).markdown).toBe('x')
    expect(Date.now() - started).toBeLessThan(3000)
    const page = (n: number) => '<html><body>' + '<p>para <b>bold</b> <a href="/x">l</a></p>'.repeat(n) + '</body></html>'
    started = Date.now()
    const { markdown } = await htmlToMarkdown(page(11_000), undefined, 'https://e.example/')
    const mid = Date.now() - started
    expect(markdown.split('\n\n')).toHaveLength(11_000)
    // The densest 2 MiB page either converts or is stopped at the time limit: bounded either way, never on the main thread.
    const big = page(45_000)
    expect(big.length).toBeGreaterThan(1.8 * 1024 * 1024)
    started = Date.now()
    const outcome = await runHtmlJob({ op: 'markdown', html: big }, 20_000).then(
      () => 'converted',
      (e: Error) => e.message,
    )
    const took = Date.now() - started
    expect(took).toBeLessThan(22_000)
    expect(outcome).toMatch(/^converted$|longer than 20000 ms/)
    console.log(`dense 480 KB page: ${mid} ms; dense 2 MiB page: ${outcome} after ${took} ms`)
  }, 180_000)
})
