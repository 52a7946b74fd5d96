/**
 * decisions.json under concurrent writers: each read-modify-write holds the root's lock, so no update is lost
 * between writers that share nothing but the folder (other processes; here, separate Decisions objects), and a
 * person's locked decision is never replaced without saying so.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Decisions, DECISIONS_FILE, LockedDecision } from '../../src/sync/decisions.js'

describe('decisions.json read-modify-write', () => {
  it('keeps every one of 12 concurrent verdicts from writers that share only the folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-decisions-'))
    const urls = Array.from({ length: 12 }, (_, k) => `https://docs.example/page-${k}`)
    const decided = await Promise.all(urls.map((url) => new Decisions(root).decide({ url, status: 'in-use', by: 'human', target: { file: 'd.md', section: 's' } })))
    expect(decided.map((d) => d.url)).toEqual(urls)
    const file = JSON.parse(readFileSync(join(root, DECISIONS_FILE), 'utf8'))
    expect(file.decisions.map((d: { url: string }) => d.url).sort()).toEqual([...urls].sort())
    expect(readFileSync(join(root, '.knowledge/decisions.md'), 'utf8').match(/page-\d+/g)?.length).toBe(12)
  })

  it('refuses to replace a locked decision unless the person says so, and changes nothing when it refuses', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-ks-decisions-'))
    const decisions = new Decisions(root)
    const url = 'https://docs.example/api'
    await decisions.decide({ url, status: 'rejected', by: 'human', reason: 'outdated' })
    const before = readFileSync(join(root, DECISIONS_FILE), 'utf8')
    const attempt = decisions.decide({ url, status: 'in-use', by: 'human', target: { file: 'd.md', section: 's' } })
    await expect(attempt).rejects.toBeInstanceOf(LockedDecision)
    await expect(attempt).rejects.toThrow(/is locked: a person decided it \(rejected, .*--force/)
    expect(readFileSync(join(root, DECISIONS_FILE), 'utf8')).toBe(before)
    const replaced = await decisions.decide({ url, status: 'in-use', by: 'human', target: { file: 'd.md', section: 's' }, replaceLocked: true })
    expect(replaced).toMatchObject({ status: 'in-use', locked: true, target_file: 'd.md' })
  })
})
