/**
 * One child process run to its end, with everything it printed: the pattern every CLI test shares.
 * Plain TypeScript that Node 22 runs with type stripping.
 * @module dsh-knowledge-sync/test/harness/spawn
 */
import { spawn, type SpawnOptions } from 'node:child_process'

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `command args` with `options`, writes `input` (default none) to its stdin, and resolves when it exits. */
export function spawnCollect(command: string, args: readonly string[], options: SpawnOptions = {}, input = ''): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: 'pipe' })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (d) => {
      stdout += d
    })
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin?.end(input)
  })
}
