/**
 * One pager over the store's list: every document a filter selects, a page at a time (one list call returns at most
 * {@link LIST_PAGE}), for the scans that need them all (the health probe, the wiki's catalogue, orphans, the originals'
 * summary links).
 *
 * Semantics when the list changes between two pages (the caller awaited, or another process wrote):
 * - Order: the list's own (newest first). Each page after the first re-reads the last document of the page before
 *   (its anchor) and continues right after it, wherever it moved: offsets alone repeat a document when one is
 *   written before the point reached (a new document sorts first) and skip one when one before it is removed.
 * - Exactly once: a document the filter selects for the whole scan is yielded once, in order; none is yielded twice.
 * - A document written during the scan is yielded only if it sorts after the point reached (a new one, newest, does
 *   not); one removed or retired during the scan only if it was reached before.
 * When the anchor is not in its window (it left the list, or more than a page was written before it), the pager
 * reads the list once more and resumes after the last document it yielded (from the start if none is left).
 * @module dsh-knowledge-sync/knowledge/pager
 */
import type { SearchFilter } from '../types.js'
import type { IndexedMeta, KnowledgeStore } from './store.js'

/** The most one list call returns (the index's window). */
export const LIST_PAGE = 1000

/** A listed document, as `store.list` returns it. */
export type ListedMeta = IndexedMeta & { version?: number }
/** What a scan selects: a list filter without paging, in the list's default order. */
export type ScanFilter = Omit<SearchFilter, 'offset' | 'limit' | 'bare'>
/** The part of the store the pager reads. */
export type Lister = Pick<KnowledgeStore, 'list'>

/** The pages of documents `filter` selects, in the list's order (see the module header for writes between pages). */
export function* listedPages(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): Generator<ListedMeta[], void, undefined> {
  for (const { items } of scan(store, filter, size)) yield items
}

/** The documents `filter` selects, one by one, read a page at a time. */
export function* eachListed(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): Generator<ListedMeta, void, undefined> {
  for (const { items } of scan(store, filter, size)) yield* items
}

/**
 * {@link listedPages} for a long async scan: a turn of the event loop after each page but the last, before the next
 * page is listed, so a scan over a large base never holds the loop for all of it.
 */
export async function* listedPagesWithTurns(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): AsyncGenerator<ListedMeta[], void, undefined> {
  for (const { items, last } of scan(store, filter, size)) {
    yield items
    if (!last) await new Promise((resolve) => setImmediate(resolve))
  }
}

function* scan(store: Lister, filter: ScanFilter, size: number): Generator<{ items: ListedMeta[]; last: boolean }, void, undefined> {
  if (!Number.isInteger(size) || size < 2 || size > LIST_PAGE) throw new RangeError(`pager: size must be an integer from 2 to ${LIST_PAGE}`)
  const seen = new Set<string>()
  // The last document read and the list position right after it (when there is one).
  let anchor: string | undefined
  let next = 0
  for (;;) {
    const start = anchor === undefined ? 0 : next - 1
    const { total, items } = store.list({ ...filter, offset: start, limit: size })
    let from = 0
    if (anchor !== undefined) {
      const at = items.findIndex((m) => m.id === anchor)
      if (at < 0) {
        const found = lastSeen(store, filter, seen, size)
        anchor = found?.id
        next = found ? found.at + 1 : 0
        continue
      }
      // Documents before the anchor's new place were written before the point reached: not this scan's.
      from = at + 1
    }
    const last = !items.length || start + items.length >= total
    const page = items.slice(from).filter((m) => !seen.has(m.id))
    for (const m of page) seen.add(m.id)
    if (items.length) {
      anchor = items[items.length - 1].id
      next = start + items.length
    }
    if (page.length) yield { items: page, last }
    if (last) return
  }
}

/** Where the last already-yielded document now sits in the list (one more read of it, in one synchronous pass). */
function lastSeen(store: Lister, filter: ScanFilter, seen: ReadonlySet<string>, size: number): { id: string; at: number } | undefined {
  let found: { id: string; at: number } | undefined
  for (let offset = 0; ; offset += size) {
    const { total, items } = store.list({ ...filter, offset, limit: size })
    for (const [k, m] of items.entries()) if (seen.has(m.id)) found = { id: m.id, at: offset + k }
    if (!items.length || offset + items.length >= total) return found
  }
}
