/**
 * Bounded JSON serialization of tool arguments (issue 10, item 11): what JSON.stringify gives for ordinary values,
 * a marker and the path for nesting past the cap or output past the size cap, no throw for cycles or 200k levels.
 */
import { describe, expect, it } from 'vitest'
import { boundedJson, depthMarker, sizeMarker } from '../../src/redact/json.js'

describe('boundedJson', () => {
  it('matches JSON.stringify for ordinary values', () => {
    for (const v of [{ command: 'ls -la', n: 3, ok: true, none: null, list: [1, 'two', { three: 3 }] }, [], {}, 'x', 0, null, [undefined, () => 1], { skip: undefined, f: () => 1 }, { nan: NaN }]) {
      expect(boundedJson(v).text).toBe(JSON.stringify(v))
      expect(boundedJson(v).capped).toBeUndefined()
    }
  })

  it('replaces a subtree past the depth cap by a marker and names where, without recursion trouble at 200k levels', () => {
    let v: unknown = { leaf: 1 }
    for (let i = 0; i < 200_000; i++) v = { a: v }
    const out = boundedJson(v, { depth: 3 })
    expect(out.text).toBe(`{"a":{"a":{"a":${JSON.stringify(depthMarker(3))}}}}`)
    expect(out.capped).toEqual({ reason: 'depth', path: '$.a.a.a' })
    const cyclic: Record<string, unknown> = { name: 'x' }
    cyclic.self = cyclic
    expect(boundedJson(cyclic, { depth: 4 }).capped?.reason).toBe('depth')
  })

  it('keeps strings whole or leaves them out: the size cap never cuts a value in two', () => {
    const secret = 'ghp_' + 'R8k2LmN4pQ6sT8vX0zA2bC4dE6fG8hJ0kL2m'
    const out = boundedJson({ a: 'x'.repeat(90), b: `token ${secret}`, c: Array.from({ length: 1000 }, (_, i) => i) }, { chars: 100 })
    expect(out.text).not.toContain('ghp_')
    expect(out.text).toContain(sizeMarker(100))
    expect(out.capped).toEqual({ reason: 'size', path: '$.b' })
    expect(() => JSON.parse(out.text)).not.toThrow()
    expect(out.text.length).toBeLessThan(300)
  })
})
