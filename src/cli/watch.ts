/**
 * `dsh-knowledge watch`: keeps the index of a root current for as long as it runs, as a dsh session does, and vouches
 * for it (knowledge/index-cache/watch-stamp.ts). While it runs, every other command on the root (`search`, `read`,
 * `list`, `note`, …) and every dsh process starting there takes its word instead of checking every file against the
 * index: a search of 100k documents in ~90 ms instead of ~0.5 s, of a million in ~150 ms instead of ~2.6 s.
 *
 * Why a process: an edit in place changes nothing but the file's own times, so with nobody watching an exact answer
 * needs a stat of every file. Git answers the same question the same way (its fsmonitor daemon). It is started by
 * the person, never behind their back: a command that leaves a process running is a surprise in a script or in CI.
 * @module dsh-knowledge-sync/cli/watch
 */
import { format } from 'node:util'
import { HEARTBEAT_MS } from '../knowledge/index-cache/watch-stamp.js'
import { createRedactor } from '../redact/redactor.js'
import { DEFAULT_MASK } from '../redact/spans.js'
import { CLI_LOGGER, checkedRoot, type Command, print, UsageError } from './common.js'

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `--for`: `90s`, `30m`, `8h`, `2d`, or seconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(text)
  const ms = match ? Number(match[1]) * UNITS[match[2] || 's'] : Number.NaN
  if (!(ms > 0) || ms > 24 * UNITS.d) throw new UsageError(`--for ${JSON.stringify(text)}: give a duration such as 90s, 30m, 8h or 2d (at most 24d)`)
  return ms
}

export const watch: Command = async (invocation) => {
  if (process.platform !== 'linux') throw new UsageError('watch vouches for the index through /proc, which only Linux has; elsewhere every command checks the files itself')
  const lasts = invocation.values.for === undefined ? undefined : parseDuration(invocation.values.for)
  const root = checkedRoot(invocation, false)
  // Said as it goes: a long-lived process that builds or checks a large index tells the person so.
  const logger = { ...CLI_LOGGER, info: (message: string, ...args: unknown[]) => process.stderr.write(`dsh-knowledge: ${format(message, ...args)}\n`) }
  const { KnowledgeStore } = await import('../knowledge/store.js')
  const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] }), watch: true, logger })
  let why: string | undefined // what ended it: a signal, 'time' (--for), or 'lost' (its stamp withdrawn)
  let end = (_why: string): void => {}
  const ended = new Promise<void>((resolve) => {
    end = (reason) => {
      why ??= reason
      resolve()
    }
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => end(signal))
  const started = Date.now()
  await Promise.race([store.start().then(() => store.freshness.checked), ended])
  if (!store.freshness.vouching && !store.freshness.behind) {
    await store.close()
    if (why) return 0 // stopped before it was ready
    process.stderr.write(`dsh-knowledge: cannot vouch for the index of ${root}: its watcher does not cover the whole root, or its index is not kept on disk (DSH_KNOWLEDGE_DEBUG=1 says which)\n`)
    return 1
  }
  const until = lasts === undefined ? undefined : new Date(Date.now() + lasts)
  // One line, so a script can wait for it.
  if (invocation.values.json) print(JSON.stringify({ watching: root, documents: store.size, pid: process.pid, readyMs: Date.now() - started, until: until?.toISOString() }))
  else
    print(
      `watching ${root}: ${store.size.toLocaleString('en')} document${store.size === 1 ? '' : 's'}, current; while this runs, commands on this root skip checking every file (${until ? `until ${until.toISOString()}, or ` : ''}Ctrl-C)`,
    )
  // Behind for a while (a burst of changes being checked) is not lost: readers check the files meanwhile.
  const vouches = () => !store.freshness.lost && (store.freshness.vouching || store.freshness.behind)
  const timers = [setInterval(() => vouches() || end('lost'), HEARTBEAT_MS), ...(lasts === undefined ? [] : [setTimeout(() => end('time'), lasts)])]
  await ended
  for (const timer of timers) clearTimeout(timer)
  await store.close()
  if (why !== 'lost') return 0
  process.stderr.write(
    `dsh-knowledge: stopped watching ${root}: it can no longer vouch for the index (its watcher lost part of the root, or the index file was replaced), so commands check every file again\n`,
  )
  return 1
}
