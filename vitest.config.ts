import { existsSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

// Unit and in-process loop specs run in parallel; end-to-end and browser specs boot real dsh processes and
// run one file at a time (2 cores) with generous timeouts.
// The page tests drive Chromium (Debian's, installed by scripts/bootstrap.sh --browser). Where there is none, they
// are left out with a message that says how to get them back, and every other test still runs.
const chromium = process.env.DSH_TEST_CHROMIUM ?? '/usr/bin/chromium'
const browser = existsSync(chromium)
if (!browser) {
  console.warn(`[tests] no Chromium at ${chromium}: the page tests (test/browser/*.browser.ts) are skipped. Install Chromium `
    + '(Debian/Ubuntu: apt-get install chromium; elsewhere your system\'s package) and set DSH_TEST_CHROMIUM=/path/to/chromium.')
}

export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts', 'test/**/*.e2e.ts', ...(browser ? ['test/**/*.browser.ts'] : [])],
    // Hang guards, not budgets: a busy machine (load 20+ on 2 cores) stretches a real dsh run several times over.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
    server: { deps: { inline: [] } },
  },
})
