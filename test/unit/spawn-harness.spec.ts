/**
 * The CLI specs' child runner (test/harness/spawn.ts): a child that exits without reading its stdin must not fail the
 * run with an unhandled EPIPE (it did once in a full run on a busy machine, in cli-person.e2e.ts). 4 MB of input to a
 * child that reads none makes the pipe close under the write every time.
 */
import { describe, expect, it } from 'vitest'
import { spawnCollect } from '../harness/spawn.ts'

describe('spawnCollect', () => {
  it('resolves with the exit code and output of a child that never reads its stdin', async () => {
    const input = 'x'.repeat(4 * 2 ** 20)
    const done = await spawnCollect(process.execPath, ['-e', 'process.stdout.write("bye"); process.exit(3)'], {}, input)
    expect(done).toEqual({ code: 3, stdout: 'bye', stderr: '' })
  })
})
