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
    // A child that exits without reading its stdin (most commands never do) closes the pipe first on a busy machine:
    // EPIPE is then its choice, not a failure of the run; what it printed and its exit code are what a test asserts.
    child.stdin?.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error)
    })
    child.stdin?.end(input)
  })
}
