/**
 * Every file of the root that is not a document, opened the way documents are (issue 23 items 3 and 4): the
 * revisions log, the ledger, health history, decisions, sync state, the fetch cache and sources.yml are never
 * followed through a link (the file or a folder on its way) for reading or writing, never opened as a FIFO, and a
 * torn or hostile revisions log is read once, in bounded pieces, with a cap on a line.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contentHash, MAX_LINE_BYTES, Revisions } from '../../src/knowledge/logs/revisions.js'
import { Ledger } from '../../src/knowledge/logs/ledger.js'
import { healthHistory } from '../../src/knowledge/reports/health.js'
import { readDecisions } from '../../src/sync/decisions.js'
import { loadSources } from '../../src/sync/sources.js'
import { readState } from '../../src/sync/run.js'
import { roundDraft, storeFixture } from '../harness/stores.ts'

const { open, tmpRoot } = storeFixture('rootfiles')
const victim = (text = 'export PATH=/usr/bin\n') => {
  const file = join(mkdtempSync(join(tmpdir(), 'dsh-ks-victim-')), '.bashrc')
  writeFileSync(file, text)
  return file
}

describe('no file under .knowledge/ is followed through a link', () => {
  it('a revisions.log linked to ~/.bashrc gets no line; revisions are still counted in memory', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const bashrc = victim()
    symlinkSync(bashrc, join(root, '.knowledge/revisions.log'))
    const warnings: string[] = []
    const store = open(root, false, { logger: { warn: (f: string, ...a: unknown[]) => warnings.push([f, ...a].join(' ')), info() {}, debug() {} } as never })
    await store.start()
    const written = await store.write(roundDraft('The cache misses because the key includes a timestamp.'))
    expect(readFileSync(bashrc, 'utf8')).toBe('export PATH=/usr/bin\n')
    expect(written.id).toBeTruthy()
    expect(warnings.join('\n')).toMatch(/revisions\.log.*symbolic link/)
  })

  it('a .knowledge folder linked outside the root gets no ledger, revision, lock or id claim: the write is refused', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    const outside = mkdtempSync(join(tmpdir(), 'dsh-ks-outdir-'))
    symlinkSync(outside, join(root, '.knowledge'))
    const store = open(root)
    await store.start()
    await expect(store.write(roundDraft('Answer long enough to be kept in the knowledge base, about cache keys.'))).rejects.toThrow(/symbolic link/)
    await new Ledger(root).record({ type: 'kept', id: 'x' } as never)
    expect(execFileSync('ls', ['-A', outside], { encoding: 'utf8' })).toBe('')
  })

  it('ledger, health history, decisions, sync state and sources.yml linked to files outside are not read', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const planted = victim(JSON.stringify({ version: '1.0.0', decisions: [{ url: 'https://evil.example/', status: 'in-use', discovered_at: 'x' }] }))
    for (const name of ['ledger.jsonl', 'health.jsonl', 'decisions.json', 'sync-state.json']) symlinkSync(planted, join(root, '.knowledge', name))
    symlinkSync(planted, join(root, 'sources.yml'))
    await expect(readDecisions(root)).rejects.toThrow(/symbolic link/)
    expect(await new Ledger(root).entries()).toEqual([])
    expect(await healthHistory(root, undefined)).toEqual([])
    expect((await readState(root)).results).toEqual({})
    expect((await loadSources(root)).error).toMatch(/symbolic link/)
  })

  it('a FIFO as sources.yml, revisions.log or decisions.json never blocks', async () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    for (const path of ['sources.yml', '.knowledge/revisions.log', '.knowledge/decisions.json']) execFileSync('mkfifo', [join(root, path)])
    expect((await loadSources(root)).error).toMatch(/not a regular file/)
    await expect(readDecisions(root)).rejects.toThrow(/not a regular file/)
    const revisions = new Revisions(root)
    expect(revisions.refresh()).toBe(true)
    expect(revisions.observe('doc-1', contentHash('a'))).toBe(1)
  })
})

describe('a torn or hostile revisions.log', () => {
  it('reads an unterminated 5 MB tail once, however often it looks, and folds the lines written after it', () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const log = join(root, '.knowledge/revisions.log')
    const hash = (k: number) => contentHash(String(k))
    writeFileSync(log, `doc-a ${hash(1)} 2026-01-01T00:00:00Z\n${'x'.repeat(5 * 1024 * 1024)}`)
    const revisions = new Revisions(root)
    for (let k = 0; k < 50; k++) revisions.refresh()
    const size = 5 * 1024 * 1024 + 50
    expect(revisions.bytesRead).toBeLessThan(size + 1024)
    expect(revisions.get('doc-a')).toBe(1)
    // Another process ends the torn line and appends; the giant line is noise, the next lines count.
    appendFileSync(log, `\ndoc-a ${hash(2)} 2026-01-01T00:00:01Z\ndoc-b ${hash(1)} 2026-01-01T00:00:01Z\n`)
    revisions.refresh()
    expect([revisions.get('doc-a'), revisions.get('doc-b')]).toEqual([2, 1])
    // This process's own append starts a new line after a torn tail.
    appendFileSync(log, 'doc-c 0123')
    revisions.refresh()
    expect(revisions.observe('doc-d', hash(3))).toBe(1)
    const lines = readFileSync(log, 'utf8').split('\n')
    expect(lines.at(-2)).toMatch(/^doc-d /)
    expect(lines).toContain('doc-c 0123')
  })

  it('caps a line: a line longer than the cap never counts, and its bytes are not kept', () => {
    const root = tmpRoot()
    mkdirSync(join(root, '.knowledge'), { recursive: true })
    const log = join(root, '.knowledge/revisions.log')
    writeFileSync(log, `doc-a ${contentHash('1')}${' '.repeat(MAX_LINE_BYTES)}\ndoc-b ${contentHash('1')}\n`)
    const revisions = new Revisions(root)
    revisions.refresh(1000)
    while (!revisions.refresh(1000));
    expect([revisions.get('doc-a'), revisions.get('doc-b')]).toEqual([0, 1])
  })
})
