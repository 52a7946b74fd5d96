import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Every spec file runs in its own fork, at least two at a time; end-to-end and browser specs boot real dsh processes
// with generous timeouts.
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
    // Vitest's default is one fork less than the cores: on 2 cores one fork, every file in a row (CI took 16–19 min).
    // Most e2e time is spent waiting on real dsh processes, so two forks there roughly halve it; the specs' waits are
    // hang guards, and the suite is shown passing with both cores kept busy besides.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    server: { deps: { inline: [] } },
  },
})
