import { defineConfig } from 'vitest/config'

// Unit and in-process loop specs run in parallel; end-to-end and browser specs boot real dsh processes and
// run one file at a time (2 cores) with generous timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts', 'test/**/*.e2e.ts', 'test/**/*.browser.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    server: { deps: { inline: [] } },
  },
})
