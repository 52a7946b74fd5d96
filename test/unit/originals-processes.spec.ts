/**
 * The originals manifest under several processes on one root (dsh, the CLI, the MCP server): real, separate Node
 * processes (test/harness/originals-writer.ts over the built lib/) that add and retire originals at the same time,
 * driven by their own output lines, never by sleeps. Every committed update is in the manifest file afterwards (read
 * as it is on disk, without the scan that would re-adopt a lost file as `manual`), none twice; a writer killed with
 * SIGKILL mid-update loses nothing it had committed, and leaves no lock behind. Needs `pnpm run build` first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../harness/dsh.ts'

const HARNESS = join(PROJECT_ROOT, 'test/harness/originals-writer.ts')
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

type Line = { ready?: number; added?: string; retired?: string; done?: boolean; errors?: string[] }

/** A writer process: its lines as they come, and how it ended. */
async function writer(root: string, tag: string, count: number, flags: string[] = []) {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', HARNESS, root, tag, String(count), ...flags], { stdio: ['pipe', 'pipe', 'inherit'] })
  children.push(child)
  const lines: Line[] = []
  let wake: (() => void) | undefined
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line))
    wake?.()
  })
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
  await new Promise<void>((resolve) => {
    wake = () => lines.some((l) => l.ready) && resolve()
  })
  return { child, lines, exited, go: () => child.stdin.write('go\n') }
}

function manifestOnDisk(root: string): Array<{ path: string; provenance: { kind: string; session?: string }; retired?: { reason: string } }> {
  const raw = JSON.parse(readFileSync(join(root, 'originals/.manifest/manifest.json'), 'utf8'))
  return raw.originals
}

const tmpRoot = () => {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-originals-procs-')), 'kb')
  mkdirSync(root, { recursive: true })
  return root
}

describe('the originals manifest across processes', () => {
  it('three processes adding 30 originals each and retiring 10, all at once: every entry there, none twice, none lost', async () => {
    const root = tmpRoot()
    const tags = ['aa', 'bb', 'cc']
    const procs = await Promise.all(tags.map((tag) => writer(root, tag, 30, ['--retire', '10'])))
    for (const p of procs) p.go()
    await Promise.all(procs.map((p) => p.exited))
    for (const p of procs) expect(p.lines.at(-1)).toEqual({ done: true, errors: [] })
    const entries = manifestOnDisk(root)
    const paths = entries.map((e) => e.path)
    expect(new Set(paths).size).toBe(paths.length)
    for (const tag of tags) {
      const mine = entries.filter((e) => e.path.startsWith(`${tag}/`))
      expect(mine.map((e) => e.path).sort()).toEqual(Array.from({ length: 30 }, (_, k) => `${tag}/${k}.txt`).sort())
      // Recorded by its own add (not re-adopted by another process's scan as a file copied in by hand).
      for (const e of mine) expect(e.provenance).toEqual({ kind: 'run', session: tag })
      expect(
        mine
          .filter((e) => e.retired)
          .map((e) => e.path)
          .sort(),
      ).toEqual(Array.from({ length: 10 }, (_, k) => `${tag}/${k}.txt`).sort())
      for (const e of mine.filter((e) => e.retired)) expect(e.retired?.reason).toBe(`withdrawn by ${tag}`)
    }
    expect(entries.length).toBe(90)
  }, 180_000)

  it('a writer killed with SIGKILL mid-update loses nothing it committed; the others carry on at once', async () => {
    const root = tmpRoot()
    const victim = await writer(root, 'vv', 40, ['--kill-at', '15'])
    const survivor = await writer(root, 'ss', 40, ['--retire', '5'])
    victim.go()
    survivor.go()
    expect(await victim.exited).toBe('SIGKILL')
    await survivor.exited
    expect(survivor.lines.at(-1)).toEqual({ done: true, errors: [] })
    const committed = victim.lines.filter((l) => l.added).map((l) => l.added)
    expect(committed.length).toBeGreaterThanOrEqual(15)
    const entries = manifestOnDisk(root) // whole JSON: the kill tore nothing
    const paths = entries.map((e) => e.path)
    expect(new Set(paths).size).toBe(paths.length)
    for (const path of committed) expect(paths).toContain(path)
    expect(entries.filter((e) => e.path.startsWith('ss/')).length).toBe(40)
    expect(entries.filter((e) => e.retired).length).toBe(5)
    // The lock died with its holder: a new process takes it and finishes (the victim's in-flight files, if any, adopted).
    const next = await writer(root, 'nn', 3)
    next.go()
    await next.exited
    expect(next.lines.at(-1)).toEqual({ done: true, errors: [] })
    expect(manifestOnDisk(root).filter((e) => e.path.startsWith('nn/')).length).toBe(3)
    expect(readdirSync(join(root, 'originals/.manifest')).filter((f) => f.endsWith('-journal'))).toEqual([])
  }, 180_000)
})
