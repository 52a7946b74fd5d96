/**
 * Bounded JSON serialization for values that come from a model or a user (tool arguments): `JSON.stringify` recurses
 * once per nesting level, so 200k levels throw "Maximum call stack size exceeded" and a huge object costs whatever it
 * costs. Here depth and output size are capped: a subtree past the depth cap and whatever does not fit the size cap
 * become short string markers, and the caller learns where. Strings are emitted whole or not at all, so a cap never
 * leaves part of a value (a secret) behind before redaction has seen it. Pure, no I/O.
 * @module dsh-knowledge-sync/redact/json
 */

/** Default caps: real tool arguments are a few levels deep; the document shows 2,000 characters of them anyway. */
export const JSON_LIMITS = { depth: 64, chars: 1024 * 1024 }

/** What {@link boundedJson} produced, and why it had to leave something out. */
export interface BoundedJson {
  text: string
  /** Set when a cap was hit: `depth` or `size`, with the JSON path of the first place (`$.a[0].b`). */
  capped?: { reason: 'depth' | 'size'; path: string }
}

/** The marker written in place of a subtree nested deeper than the cap. */
export const depthMarker = (depth: number): string => `[nested deeper than ${depth} levels: omitted]`
/** The marker written in place of what did not fit the size cap. */
export const sizeMarker = (chars: number): string => `[over ${chars} characters: omitted]`

const PATH_KEY = /^[A-Za-z_$][\w$]{0,40}$/

/**
 * `JSON.stringify(value)` with at most `depth` levels of nesting and about `chars` characters of output; never
 * throws for any JSON-shaped value (cycles hit the depth cap). `undefined`, functions and symbols behave as in
 * `JSON.stringify`; `toJSON` is not called (tool arguments are plain data).
 */
export function boundedJson(value: unknown, limits: { depth?: number; chars?: number } = {}): BoundedJson {
  const maxDepth = limits.depth ?? JSON_LIMITS.depth
  const maxChars = limits.chars ?? JSON_LIMITS.chars
  const parts: string[] = []
  let size = 0
  let capped: BoundedJson['capped']
  const push = (s: string) => {
    parts.push(s)
    size += s.length
  }
  const cap = (reason: 'depth' | 'size', path: string) => {
    capped ??= { reason, path }
  }
  const full = () => size >= maxChars

  const write = (v: unknown, depth: number, path: string): boolean => {
    if (v === null || typeof v === 'number' || typeof v === 'boolean') {
      push(typeof v === 'number' && !Number.isFinite(v) ? 'null' : String(v))
      return true
    }
    if (typeof v === 'string') {
      const s = JSON.stringify(v)
      if (size + s.length > maxChars) {
        cap('size', path)
        push(JSON.stringify(sizeMarker(maxChars)))
        return true
      }
      push(s)
      return true
    }
    if (typeof v === 'bigint') {
      push(JSON.stringify(String(v)))
      return true
    }
    if (typeof v !== 'object') return false // undefined, function, symbol: skipped in objects, null in arrays
    if (depth >= maxDepth) {
      cap('depth', path)
      push(JSON.stringify(depthMarker(maxDepth)))
      return true
    }
    if (Array.isArray(v)) {
      push('[')
      for (let i = 0; i < v.length; i++) {
        if (i) push(',')
        if (full()) {
          cap('size', `${path}[${i}]`)
          push(JSON.stringify(sizeMarker(maxChars)))
          break
        }
        if (!write(v[i], depth + 1, `${path}[${i}]`)) push('null')
      }
      push(']')
      return true
    }
    push('{')
    let first = true
    for (const key of Object.keys(v as object)) {
      const item = (v as Record<string, unknown>)[key]
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
      const at = PATH_KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key.slice(0, 40))}]`
      if (!first) push(',')
      first = false
      if (full()) {
        cap('size', at)
        push(`${JSON.stringify('…')}:${JSON.stringify(sizeMarker(maxChars))}`)
        break
      }
      push(`${JSON.stringify(key)}:`)
      write(item, depth + 1, at)
    }
    push('}')
    return true
  }

  if (!write(value, 0, '$')) return { text: 'null' }
  return capped ? { text: parts.join(''), capped } : { text: parts.join('') }
}
