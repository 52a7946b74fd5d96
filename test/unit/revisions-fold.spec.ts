/**
 * Folding the revision log reads plain-ASCII lines in place (no string or regex per line); any other text goes line by
 * line through the LINE pattern. Both must count the same lines: the same log folded each way (a non-ASCII first line
 * sends a whole read down the line-by-line path) gives every id the same revision and first-seen time, on generated
 * lines valid and not, and whatever the read size cuts.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REVISIONS_FILE, Revisions } from '../../src/knowledge/logs/revisions.js'
import { LEDGER_DIR } from '../../src/knowledge/logs/ledger.js'

/** A small seeded generator: the same lines every run. */
function random(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (x + 0x6d2b79f5) >>> 0
    let t = Math.imul(x ^ (x >>> 15), 1 | x)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const IDS = [
  'note-1',
  'round-a',
  'wiki/page',
  'concept-x/Topic.v2',
  'A',
  'x_y',
  `${'p'.repeat(32)}/z`,
  `${'p'.repeat(33)}/z`,
  'r'.repeat(128),
  'r'.repeat(129),
  'Wiki/page',
  'a/b/c',
  '/lead',
  'tail/',
  '_under',
  '.dot',
  '-dash',
  'ok-9',
  'sp ace',
]
const HASHES = ['0123456789abcdef', 'fedcba9876543210', 'aaaaaaaaaaaaaaaa', '0123456789ABCDEF', '0123456789abcde', '0123456789abcdef0', 'g123456789abcdef']
const TIMES = [
  '',
  ' 2026-01-02T03:04:05.000Z',
  ' 2025-12-31T00:00:00Z',
  ' not-a-time',
  '  2026-01-02T03:04:05.000Z',
  ' 2026-01-02 03:04',
  ' 2026-01-02\t03:04',
  ' 2026\r',
  ' ',
  '\t2026-01-02T03:04:05Z',
]
const PADS = ['', '', '', ' ', '\t', '\r', ' \t', '\v', '\f']

function lines(seed: number, count: number): string[] {
  const pick = random(seed)
  const one = <T>(list: readonly T[]): T => list[Math.floor(pick() * list.length)]
  const out: string[] = []
  for (let k = 0; k < count; k++) {
    const roll = pick()
    if (roll < 0.02) out.push('')
    else if (roll < 0.03)
      out.push(`${one(IDS)} ${one(HASHES)} ${'x'.repeat(5000)}`) // longer than any line the store writes
    else if (roll < 0.05) out.push(`${one(IDS)}  ${one(HASHES)}`)
    else if (roll < 0.06) out.push(`${one(IDS)} ${one(HASHES)} a b`)
    else out.push(`${one(PADS)}${one(IDS)} ${pick() < 0.85 ? HASHES[Math.floor(pick() * 3)] : one(HASHES)}${one(TIMES)}${one(PADS)}`)
  }
  return out
}

function folded(text: string): Revisions {
  const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-fold-')), 'kb')
  mkdirSync(join(root, LEDGER_DIR), { recursive: true })
  writeFileSync(join(root, LEDGER_DIR, REVISIONS_FILE), text)
  const revisions = new Revisions(root)
  revisions.refresh()
  return revisions
}

const view = (revisions: Revisions, ids: readonly string[]) => ids.map((id) => [id, revisions.get(id), revisions.firstSeen(id)])

describe('folding the revision log in place', () => {
  const candidates = [...new Set([...IDS, ...IDS.map((id) => id.trim())])]

  it('counts the same lines as the line-by-line pattern, on valid and malformed lines', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const text = `${lines(seed, 3000).join('\n')}\n`
      const inPlace = folded(text)
      // A first line outside ASCII (not a valid line itself) sends the whole read down the line-by-line path.
      const byLine = folded(`é\n${text}`)
      expect(view(inPlace, candidates)).toEqual(view(byLine, candidates))
      // Not vacuous: valid lines were counted, and some ids reached several revisions.
      expect(inPlace.get('note-1')).toBeGreaterThan(1)
      expect(inPlace.get('wiki/page')).toBeGreaterThan(0)
    }
  })

  it('gives the same answer when reads cut lines anywhere (a log folded as it grows)', () => {
    const text = `${lines(9, 2000).join('\n')}\n`
    const whole = folded(`é\n${text}`)
    const root = join(mkdtempSync(join(tmpdir(), 'dsh-ks-fold-')), 'kb')
    mkdirSync(join(root, LEDGER_DIR), { recursive: true })
    const file = join(root, LEDGER_DIR, REVISIONS_FILE)
    const growing = new Revisions(root)
    const pick = random(42)
    // Appended in pieces of 1-300 bytes, folded after each: every read starts and ends mid-line somewhere.
    const bytes = Buffer.from(text)
    for (let at = 0; at < bytes.length; ) {
      at = Math.min(bytes.length, at + 1 + Math.floor(pick() * 300))
      writeFileSync(file, bytes.subarray(0, at))
      growing.refresh()
    }
    expect(view(growing, candidates)).toEqual(view(whole, candidates))
  })

  it('counts a new hash as a revision and dates the first line', () => {
    const revisions = folded('note-1 0123456789abcdef 2026-01-02T03:04:05.000Z\nnote-1 fedcba9876543210\n')
    expect(revisions.get('note-1')).toBe(2)
    expect(revisions.firstSeen('note-1')).toBe(Date.parse('2026-01-02T03:04:05.000Z'))
  })
})
