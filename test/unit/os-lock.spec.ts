/**
 * The OS lock the local history's appends and rewrites take (knowledge/disk/os-lock.ts): another process holding it
 * makes a taker wait without holding its event loop, a holder killed with SIGKILL frees it at once, a folder or a
 * link put where the lock goes is refused naming the path, a file that is not a database is set aside, and a wait
 * has a bound. The other process is a real one, taking the lock as the module does (a write transaction).
 * @module dsh-knowledge-sync/test/unit/os-lock
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { LockBusyError, withOsLock } from '../../src/knowledge/disk/os-lock.js'
import { keepLocalHistory, readLocalHistory } from '../../src/knowledge/history/local.js'
import { KnowledgeStore } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'

const children: ChildProcessWithoutNullStreams[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})
const folder = () => mkdtempSync(join(tmpdir(), 'dsh-ks-oslock-'))

/** A process holding the lock on `path` until its stdin ends; resolves once it holds it. */
function holder(path: string): Promise<ChildProcessWithoutNullStreams> {
  const code = `const { DatabaseSync } = require('node:sqlite')
const db = new DatabaseSync(${JSON.stringify(path)}, { timeout: 0 })
db.exec('BEGIN IMMEDIATE')
process.stdout.write('held\\n')
process.stdin.resume()
process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); process.exit(0) })`
  const child = spawn(process.execPath, ['--no-warnings', '-e', code])
  children.push(child)
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child))
    child.once('exit', (status) => reject(new Error(`the holder exited (${status}) before holding the lock`)))
  })
}

describe('the OS lock', () => {
  it('waits for another process that holds it, with its event loop free, and runs once that process lets go', async () => {
    const lock = join(folder(), 'history.lock')
    const child = await holder(lock)
    let ran = false
    const taking = withOsLock(lock, async () => {
      ran = true
      return 'done'
    })
    // The loop turns while the lock is held elsewhere: a timer fires and the taker has not run.
    let turns = 0
    for (let k = 0; k < 20; k++) await new Promise<void>((resolve) => setTimeout(() => resolve(void turns++), 1))
    expect(turns).toBe(20)
    expect(ran).toBe(false)
    child.stdin.end()
    expect(await taking).toBe('done')
    expect(ran).toBe(true)
  })

  it('is free the moment its holder is killed with SIGKILL: nothing stale is left to detect', async () => {
    const lock = join(folder(), 'history.lock')
    const child = await holder(lock)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    expect(await withOsLock(lock, async () => 'after the kill', { waitMs: 0 })).toBe('after the kill')
  })

  it('gives up after its bound with an error that says nothing was written', async () => {
    const lock = join(folder(), 'history.lock')
    await holder(lock)
    let ran = false
    const error = await withOsLock(
      lock,
      async () => {
        ran = true
      },
      { waitMs: 30 },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LockBusyError)
    expect((error as Error).message).toMatch(/held by another process .*nothing was written/)
    expect(ran).toBe(false)
  })

  it('refuses a folder or a link where the lock goes, naming it, and sets aside a file that is not a database', async () => {
    const dir = folder()
    mkdirSync(join(dir, 'a.lock'))
    await expect(withOsLock(join(dir, 'a.lock'), async () => 1)).rejects.toThrow(`${join(dir, 'a.lock')} is not a plain file`)
    writeFileSync(join(dir, 'target'), '')
    symlinkSync(join(dir, 'target'), join(dir, 'b.lock'))
    await expect(withOsLock(join(dir, 'b.lock'), async () => 1)).rejects.toThrow('is not a plain file')
    writeFileSync(join(dir, 'c.lock'), 'x'.repeat(4096))
    expect(await withOsLock(join(dir, 'c.lock'), async () => 'taken')).toBe('taken')
    expect(readdirSync(dir).filter((name) => name.startsWith('c.lock.unreadable-'))).toHaveLength(1)
    expect(existsSync(join(dir, 'c.lock'))).toBe(true)
  })

  it('nests nothing: two takers in one process run one after the other', async () => {
    const lock = join(folder(), 'history.lock')
    const order: string[] = []
    const take = (name: string) =>
      withOsLock(lock, async () => {
        order.push(`${name} in`)
        await new Promise((resolve) => setImmediate(resolve))
        order.push(`${name} out`)
      })
    await Promise.all([take('a'), take('b')])
    expect(order).toEqual(expect.arrayContaining(['a in', 'a out', 'b in', 'b out']))
    const first = order[0].split(' ')[0]
    expect(order.slice(0, 2)).toEqual([`${first} in`, `${first} out`])
  })
})

describe('the local history when its lock cannot be taken', () => {
  it('writes every document, keeps no history, and says why once', async () => {
    const root = join(folder(), 'kb')
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    mkdirSync(join(root, '.knowledge', 'history.lock'))
    const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch: false, cache: false })
    const warnings: string[] = []
    keepLocalHistory(store, { git: false, warn: (message) => warnings.push(message) })
    await store.start()
    for (let k = 0; k < 3; k++)
      await store.write({
        kind: 'note',
        title: `Finding ${k}`,
        cwd: '/w',
        session: 'session-aaaa1111-0000-4000-8000-000000000000',
        suffix: `n${k}`,
        sections: [{ heading: 'Finding', text: `Step ${k} needs the cache warmed first.` }],
      })
    await store.close()
    expect(readdirSync(root, { recursive: true }).filter((name) => String(name).endsWith('.md') && !String(name).startsWith('.knowledge'))).toHaveLength(3)
    expect(readLocalHistory(root)).toEqual([])
    expect(warnings).toEqual([
      `the local history is not kept: ${join(root, '.knowledge', 'history.lock')} is not a plain file (a link, a folder or a device was put there); it is never used as the lock, remove it`,
    ])
  })
})
