/**
 * The round-three pastes (test/fixtures/redact-pastes-r3.ts): every positive loses its secrets and keeps its
 * context, no look-alike negative changes. Prints the counts, so a run shows where each family stands.
 */
import { describe, expect, it } from 'vitest'
import { createRedactor, DEFAULT_MASK } from '../../src/redact/redactor.js'
import { PASTE_NEGATIVES, PASTE_POSITIVES } from '../fixtures/redact-pastes-r3.ts'

const redactor = createRedactor({ enabled: true, mask: DEFAULT_MASK, patterns: [] })

describe('round-three pastes', () => {
  it('masks every secret, keeps the context, and leaves every look-alike as it was', async () => {
    const misses: string[] = []
    let masked = 0
    let secrets = 0
    for (const item of PASTE_POSITIVES) {
      const out = await redactor.redact(item.text)
      const left = item.secrets.filter((s) => out.text.includes(s))
      const lost = item.keep.filter((k) => !out.text.includes(k))
      secrets += item.secrets.length
      masked += item.secrets.length - left.length
      if (left.length || lost.length) misses.push(`${item.id}: ${left.length ? `left ${left.join(', ')}` : `lost ${lost.join(' | ')}`} → ${JSON.stringify(out.text.slice(0, 200))}`)
    }
    const fps: string[] = []
    for (const n of PASTE_NEGATIVES) {
      const out = await redactor.redact(n.text)
      if (out.text !== n.text) fps.push(`${n.id}: ${JSON.stringify(out.text)}`)
    }
    console.log(
      `round-three pastes: ${masked}/${secrets} secrets masked, ${PASTE_POSITIVES.length - misses.length}/${PASTE_POSITIVES.length} positives whole; ${fps.length}/${PASTE_NEGATIVES.length} negatives changed`,
    )
    if (misses.length) console.log(`misses:\n  ${misses.join('\n  ')}`)
    if (fps.length) console.log(`false positives:\n  ${fps.join('\n  ')}`)
    expect(PASTE_POSITIVES.length + PASTE_NEGATIVES.length).toBeGreaterThanOrEqual(40)
    expect(misses).toEqual([])
    expect(fps).toEqual([])
  })
})
