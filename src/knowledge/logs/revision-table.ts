/**
 * The folded revision log, one slot per document id: its revision count, its newest hash and when its first
 * revision was recorded, in typed arrays. An object per id with a hash string and a boxed time cost ~100 bytes of
 * heap per document (100 MB at a million, for as long as the process runs; issue 30); a slot costs 20 bytes beside
 * the id's map entry, and the log's hash (16 hexadecimal digits, revision-line.ts) is kept as its two 32-bit halves.
 * @module dsh-knowledge-sync/knowledge/logs/revision-table
 */

const FIRST_CAPACITY = 1024

/** The value of 8 lowercase hexadecimal digits of `text` from `start` (the log's lines are checked before). */
function hexWordOf(text: string, start: number): number {
  let value = 0
  for (let k = start; k < start + 8; k++) {
    const c = text.charCodeAt(k)
    value = value * 16 + (c <= 57 ? c - 48 : c - 87)
  }
  return value
}

export class RevisionTable {
  private readonly slots = new Map<string, number>()
  private counts = new Uint32Array(FIRST_CAPACITY)
  private high = new Uint32Array(FIRST_CAPACITY)
  private low = new Uint32Array(FIRST_CAPACITY)
  /** Epoch ms; NaN: the first line named no time. */
  private firsts = new Float64Array(FIRST_CAPACITY)

  get size(): number {
    return this.slots.size
  }

  has(id: string): boolean {
    return this.slots.has(id)
  }

  /** The revision of `id` (0: never seen). */
  count(id: string): number {
    const slot = this.slots.get(id)
    return slot === undefined ? 0 : this.counts[slot]
  }

  /** When the first revision of `id` was recorded, if its line said. */
  firstSeen(id: string): number | undefined {
    const slot = this.slots.get(id)
    if (slot === undefined) return undefined
    const first = this.firsts[slot]
    return Number.isNaN(first) ? undefined : first
  }

  /** Whether `hash` (16 lowercase hexadecimal digits) is the newest hash of `id`. */
  isLast(id: string, hash: string): boolean {
    const slot = this.slots.get(id)
    return slot !== undefined && this.high[slot] === hexWordOf(hash, 0) && this.low[slot] === hexWordOf(hash, 8)
  }

  /**
   * One line of the log, its hash given as 16 hexadecimal digits: a new id gets revision 1, a hash other than the id's
   * newest one more; the same hash again counts nothing. Returns the new id's slot (to {@link date} its first
   * revision), else -1. `id` becomes a key only when new: it must not be a view into a larger string.
   */
  record(id: string, hash: string): number {
    const high = hexWordOf(hash, 0)
    const low = hexWordOf(hash, 8)
    let slot = this.slots.get(id)
    let added = -1
    if (slot === undefined) {
      slot = this.slots.size
      if (slot === this.counts.length) this.grow()
      this.slots.set(id, slot)
      this.counts[slot] = 1
      this.firsts[slot] = Number.NaN
      added = slot
    } else if (this.high[slot] !== high || this.low[slot] !== low) this.counts[slot]++
    else return -1
    this.high[slot] = high
    this.low[slot] = low
    return added
  }

  /** Sets when the first revision in `slot` (from {@link record}) was recorded; NaN or 0 (an unreadable time): unknown. */
  date(slot: number, first: number): void {
    if (slot >= 0 && first) this.firsts[slot] = first
  }

  /** Forgets every id (the log was replaced or truncated and is folded again). */
  clear(): void {
    this.slots.clear()
    this.counts = new Uint32Array(FIRST_CAPACITY)
    this.high = new Uint32Array(FIRST_CAPACITY)
    this.low = new Uint32Array(FIRST_CAPACITY)
    this.firsts = new Float64Array(FIRST_CAPACITY)
  }

  /** Half as much room again (doubling would leave up to 20 MB unused at a million ids). */
  private grow(): void {
    const capacity = Math.ceil(this.counts.length * 1.5)
    const widen = <T extends Uint32Array | Float64Array>(from: T, to: T): T => {
      to.set(from)
      return to
    }
    this.counts = widen(this.counts, new Uint32Array(capacity))
    this.high = widen(this.high, new Uint32Array(capacity))
    this.low = widen(this.low, new Uint32Array(capacity))
    this.firsts = widen(this.firsts, new Float64Array(capacity))
  }
}
