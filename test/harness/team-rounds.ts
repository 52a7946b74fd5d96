/**
 * Rounds of two machines' sessions that share an id prefix (a team base merged through git), for the team e2e and
 * the merged-prefixes spec.
 */
import type { Round } from '../../src/types.js'
import { createRedactor } from '../../src/redact/redactor.js'

export const teamRedactor = () => createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })

/** A kept round of `session` about why `topic` fails on CI. */
export const teamRound = (session: string, turn: number, topic: string): Round => ({
  session,
  turn,
  cwd: '/work/app',
  created: new Date(Date.UTC(2026, 10, turn)).toISOString(),
  outcome: 'completed',
  tools: [],
  question: `Why does ${topic} fail on CI?`,
  answer: `The cause is ${topic}: the lockfile pinned an old version, because the cache was stale; the fix is to run pnpm install --force and commit the lockfile.`,
})
