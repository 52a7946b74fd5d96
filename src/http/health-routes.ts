/**
 * The page's health probe: `POST <prefix>/health/run` runs a sampled probe (behind the mutation guard), and
 * `GET <prefix>/health/last` says how far a running one got ("n of N") and what the last one found, so the findings
 * survive switching tabs or reloading the page (until the process restarts; every probe's figures are recorded in
 * `.knowledge/health.jsonl` anyway). One probe at a time: a second request while one runs is refused.
 * @module dsh-knowledge-sync/http/health-routes
 */
import type { KnowledgeStore } from '../knowledge/store.js'
import { probeHealth } from '../knowledge/reports/health.js'
import type { HealthReport } from '../wire.js'
import type { Mutation } from './routes.js'

export function healthRoutes(store: KnowledgeStore, sample: number): { mutation: Mutation; reads: Record<string, () => Promise<unknown>> } {
  let last: HealthReport | undefined
  let running: { done: number; total: number } | undefined
  return {
    mutation: {
      pattern: /^\/health\/run$/,
      run: async (_match, _body, scope) => {
        if (running) throw new Error(`a probe is already running (${running.done} of ${running.total} documents)`)
        running = { done: 0, total: 0 }
        try {
          last = await probeHealth(store, {
            scope,
            sample,
            onProgress: (done, total) => {
              running = { done, total }
            },
          })
          return last
        } finally {
          running = undefined
        }
      },
    },
    reads: { '/health/last': async () => ({ ...(last ? { last } : {}), ...(running ? { running } : {}) }) },
  }
}
