// A test-bed row (loaded with `--patch`, by absolute path, so it imports only Node builtins): exports every log
// message of every logger, at every level, to a file, so a failing boot shows its cause instead of
// "see the error(s) logged above". It first replays the logger's ring buffer, which holds what came before it.
import { appendFileSync } from 'node:fs'
import { format } from 'node:util'

export const name = 'test-log-exporter'

export function apply(ctx, config = {}) {
  const seen = new Set()
  const write = (m) => {
    if (seen.has(m.sn)) return
    seen.add(m.sn)
    const args = m.args.map((a) => (a instanceof Error ? a.stack || a.message : a))
    const line = `${new Date(m.ts).toISOString()} ${m.type} [${m.name}] ${typeof args[0] === 'string' ? format(...args) : format('%o', ...args)}\n`
    if (config.file) appendFileSync(config.file, line)
    else process.stderr.write(line)
  }
  for (const m of ctx.logger.buffer ?? []) write(m)
  ctx.logger.exporter({ colors: false, levels: { default: 3 }, export: write })
}
