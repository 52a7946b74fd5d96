/**
 * A one-shot command (a CLI search) asks the revisions of its ten hits: looked up in the log without folding all of it,
 * with exactly the answers folding gives, hostile lines included.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Revisions } from '../../src/knowledge/logs/revisions.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function rootWithLog(text: string): string {
  const root = mkdtempSync(join(tmpdir(), 'dsh-ks-revlookup-'))
  roots.push(root)
  mkdirSync(join(root, '.knowledge'))
  writeFileSync(join(root, '.knowledge', 'revisions.log'), text)
  return root
}

const LOG = [
  'a 0123456789abcdef 2025-01-01T00:00:00.000Z',
  'ba 1111111111111111 2025-01-01T00:00:00.000Z', // holds "a " but is another id's line
  'a 0123456789abcdef 2025-01-02T00:00:00.000Z', // the same hash again: two processes saw one edit
  'a fedcba9876543210 2025-01-03T00:00:00.000Z',
  '  a 2222222222222222 2025-01-04T00:00:00.000Z', // leading blanks: folding trims them
  'a not-a-hash 2025-01-05T00:00:00.000Z',
  `a 3333333333333333 ${'x'.repeat(5000)}`, // longer than any line the store writes: noise
  'note/x 4444444444444444 2025-01-06T00:00:00.000Z',
  'xa 5555555555555555 a 6666666666666666', // more than a time after the hash: not a line of the log
  'a 7777777777777777', // no time: still a line
].join('\n')
const TAIL = '\na 8888888888888888 2025-01-07' // unterminated: being written, not a line yet

describe('revisions of a few ids from an unfolded log', () => {
  it('gives what folding the whole log gives, without folding it', () => {
    const root = rootWithLog(LOG + TAIL)
    const fresh = new Revisions(root)
    const rows = ['a', 'ba', 'note/x', 'xa', 'unknown', 'x'].map((id) => ({ id }))
    const looked = fresh.withVersions(rows)
    expect(fresh.bytesRead).toBe(0) // nothing folded
    const folded = new Revisions(root)
    folded.refresh()
    expect(folded.bytesRead).toBeGreaterThan(0)
    expect(looked.map((row) => row.version)).toEqual(rows.map((row) => folded.get(row.id) || undefined))
    expect(looked.map((row) => row.version)).toEqual([4, 1, 1, undefined, undefined, undefined])
    // A second call (a long-lived process: a request after a request) folds the log once instead of reading it again.
    expect(fresh.withVersions(rows).map((row) => row.version)).toEqual(looked.map((row) => row.version))
    expect(fresh.bytesRead).toBe(folded.bytesRead)
  })

  it('folds as before once the log has been read, or when many ids are asked', () => {
    const root = rootWithLog(`${LOG}\n`)
    const revisions = new Revisions(root)
    const many = Array.from({ length: 500 }, (_, k) => ({ id: k ? `id${k}` : 'a' }))
    expect(revisions.withVersions(many)[0].version).toBe(4)
    expect(revisions.bytesRead).toBeGreaterThan(0)
  })

  it('a root without a log has no revisions to look up', () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-revlookup-'))
    roots.push(root)
    expect(new Revisions(root).withVersions([{ id: 'a' }])).toEqual([{ id: 'a', version: undefined }])
  })
})
