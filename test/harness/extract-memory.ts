/**
 * One extraction in a process of its own, with its peak memory: `node extract-memory.ts <file> <name> <type> [from]
 * [to]` loads the built extractor (lib/), lets the collector settle, resets the kernel's peak-RSS mark
 * (/proc/self/clear_refs) and reads the baseline, extracts, and prints `{ result, baseline, peak, growth, how }` in
 * bytes. The peak is the kernel's high-water mark of this process's own memory (VmHWM in /proc/self/status, exact,
 * nothing sampled); where /proc is absent, process.memoryUsage().rss sampled at every turn of the event loop.
 * (process.resourceUsage().maxRSS is not used: Linux carries the parent's high-water mark across exec.)
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setImmediate as turn } from 'node:timers/promises'
import { PROJECT_ROOT } from './dsh.ts'

const [file, name, type, from, to] = process.argv.slice(2)
const { extractText } = await import(pathToFileURL(join(PROJECT_ROOT, 'lib/originals/extract/index.js')).href)
for (const part of ['docx', 'pdf']) await import(pathToFileURL(join(PROJECT_ROOT, `lib/originals/extract/${part}.js`)).href).catch(() => {})
const gc = (globalThis as { gc?: () => void }).gc
gc?.()
await turn()
gc?.()
const hwm = (): number | undefined => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    return m ? Number(m[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}
let how = 'VmHWM'
try {
  writeFileSync('/proc/self/clear_refs', '5')
} catch {
  how = 'VmHWM (not reset: from process start)'
}
const baseline = process.memoryUsage().rss
let sampled = baseline
let running = true
const sample = async () => {
  while (running) {
    sampled = Math.max(sampled, process.memoryUsage().rss)
    await turn()
  }
}
if (hwm() === undefined) {
  how = 'rss sampled'
  void sample()
}
const fd = openSync(file, 'r')
let result: unknown
try {
  result = await extractText(fd, name, type, { ...(from ? { from: Number(from) } : {}), ...(to ? { to: Number(to) } : {}) })
} catch (error) {
  result = { error: (error as Error).message }
} finally {
  closeSync(fd)
}
running = false
const peak = Math.max(hwm() ?? sampled, process.memoryUsage().rss)
process.stdout.write(`${JSON.stringify({ result, baseline, peak, growth: peak - baseline, how })}\n`)
process.exit(0)
